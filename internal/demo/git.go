package demo

// git.go: the demo's repository, written with go-git's storage
// (storage/filesystem) and index encoder. agentgate does not link the root
// go-git package, whose transports pull in package net, SSH, HTTP and
// OpenPGP and cost ~2 ms on every start (issue #5); a one-commit
// repository needs none of them.

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/go-git/go-billy/v5/osfs"
	gitconfig "github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// demoStorage returns go-git's storage of dir/.git.
func demoStorage(dir string) *filesystem.Storage {
	return filesystem.NewStorage(osfs.New(filepath.Join(dir, ".git")), cache.NewObjectLRUDefault())
}

// initDemoRepo makes dir a new, empty git repository, as git init (and
// go-git's PlainInit) does: a .git directory, a non-bare config and HEAD
// naming the branch master.
func initDemoRepo(dir string) error {
	s := demoStorage(dir)
	if err := s.Init(); err != nil {
		return err
	}
	cfg := gitconfig.NewConfig()
	cfg.Core.IsBare = false
	if err := s.SetConfig(cfg); err != nil {
		return err
	}
	return s.SetReference(plumbing.NewSymbolicReference(plumbing.HEAD, plumbing.Master))
}

// CommitFiles commits the files named (relative to dir, no
// directories; the tree holds exactly them) on the branch HEAD names (its
// first commit, or a child of its tip), by name <email> at when with
// message msg: it writes their blobs, the tree, the commit, the index (so
// that git status shows them unchanged) and the branch.
func CommitFiles(dir string, files []string, name, email string, when time.Time, msg string) error {
	s := demoStorage(dir)
	files = slices.Sorted(slices.Values(files))
	var tree bytes.Buffer
	idx := &index.Index{Version: 2}
	for _, f := range files {
		p := filepath.Join(dir, f)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fi, err := os.Stat(p)
		if err != nil {
			return err
		}
		h, err := demoWriteObject(s, plumbing.BlobObject, data)
		if err != nil {
			return err
		}
		fmt.Fprintf(&tree, "%o %s\x00", uint32(filemode.Regular), f)
		tree.Write(h[:])
		idx.Entries = append(idx.Entries, &index.Entry{
			Name: f, Hash: h, Mode: filemode.Regular, Size: uint32(fi.Size()),
			ModifiedAt: fi.ModTime(), CreatedAt: fi.ModTime(),
		})
	}
	treeID, err := demoWriteObject(s, plumbing.TreeObject, tree.Bytes())
	if err != nil {
		return err
	}
	head, err := s.Reference(plumbing.HEAD)
	if err != nil {
		return err
	}
	parent := ""
	if branch, err := s.Reference(head.Target()); err == nil {
		parent = "parent " + branch.Hash().String() + "\n"
	}
	sig := fmt.Sprintf("%s <%s> %d %s", name, email, when.Unix(), when.Format("-0700"))
	commit := fmt.Sprintf("tree %s\n%sauthor %s\ncommitter %s\n\n%s\n", treeID, parent, sig, sig, msg)
	commitID, err := demoWriteObject(s, plumbing.CommitObject, []byte(commit))
	if err != nil {
		return err
	}
	if err := s.SetIndex(idx); err != nil {
		return err
	}
	return s.SetReference(plumbing.NewHashReference(head.Target(), commitID))
}

// demoWriteObject stores an object of type t with content data and
// returns its id.
func demoWriteObject(s *filesystem.Storage, t plumbing.ObjectType, data []byte) (plumbing.Hash, error) {
	o := s.NewEncodedObject()
	o.SetType(t)
	o.SetSize(int64(len(data)))
	w, err := o.Writer()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if _, err := w.Write(data); err != nil {
		return plumbing.ZeroHash, err
	}
	if err := w.Close(); err != nil {
		return plumbing.ZeroHash, err
	}
	return s.SetEncodedObject(o)
}
