package gitint

import (
	"bytes"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

// openFast opens the repository containing abs the way go-git's
// PlainOpenWithOptions (DetectDotGit, EnableDotGitCommonDir) does, without
// go-git: the nearest directory with a .git directory, or a .git file
// "gitdir: <dir>" (a linked worktree or submodule), whose commondir file
// names the shared directory. It returns nil whenever anything is not
// plainly so (no .git anywhere, an unreadable HEAD, a .git file without a
// gitdir line, ...): Open then asks go-git, which gives the answer and the
// error it always gave.
func openFast(abs string) *Repo {
	d := abs
	if fi, err := os.Stat(d); err == nil && !fi.IsDir() {
		d = filepath.Dir(d)
	}
	var fi os.FileInfo
	for {
		var err error
		fi, err = os.Stat(filepath.Join(d, ".git"))
		if err == nil {
			break
		}
		parent := filepath.Dir(d)
		if !errors.Is(err, os.ErrNotExist) || parent == d {
			return nil
		}
		d = parent
	}
	r := &Repo{root: filepath.Clean(d), gitDir: filepath.Join(d, ".git")}
	if !fi.IsDir() {
		b, err := os.ReadFile(r.gitDir)
		rest, ok := bytes.CutPrefix(b, []byte("gitdir: "))
		if err != nil || !ok {
			return nil
		}
		line, _, _ := strings.Cut(string(rest), "\n")
		if line = strings.TrimSpace(line); line == "" {
			return nil
		}
		if !filepath.IsAbs(line) {
			line = filepath.Join(d, line)
		}
		r.gitDir = line
	}
	r.commonDir = r.gitDir
	if b, err := os.ReadFile(filepath.Join(r.gitDir, "commondir")); err == nil {
		p := strings.TrimSpace(string(b))
		if p == "" {
			return nil
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(r.gitDir, p)
		}
		if _, err := os.Stat(p); err != nil {
			return nil
		}
		r.commonDir = p
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil
	}
	head, err := os.ReadFile(filepath.Join(r.gitDir, "HEAD"))
	if err != nil || !(bytes.HasPrefix(head, []byte("ref: ")) || len(bytes.TrimSpace(head)) == 40) {
		return nil
	}
	r.head = head
	// The fast paths know SHA-1 objects and files refs only. A repository
	// that declares an extension (objectFormat, refStorage, ...) uses
	// go-git throughout.
	cfg, err := os.ReadFile(filepath.Join(r.commonDir, "config"))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil
	}
	plain := !bytes.Contains(bytes.ToLower(cfg), []byte("[extensions"))
	r.fastRefs, r.fastObjs = plain, plain
	return r
}

// headCommit returns the commit HEAD points at; ok is false when HEAD's
// branch has no commits yet. A HEAD naming a branch is resolved from the
// branch's loose ref, then packed-refs; anything else (a ref that exists in
// neither, a symbolic ref, an unusual ref) goes to go-git.
func (r *Repo) headCommit() (plumbing.Hash, bool, error) {
	if !r.headDone {
		r.headDone = true
		r.headHash, r.headOK, r.headErr = r.resolveHead()
	}
	return r.headHash, r.headOK, r.headErr
}

func (r *Repo) resolveHead() (plumbing.Hash, bool, error) {
	if r.fastRefs {
		if h, ok := r.fastHead(); ok {
			return h, true, nil
		}
	}
	return r.goGitHead()
}

// fastHead resolves HEAD from the files; ok is false when go-git must.
func (r *Repo) fastHead() (plumbing.Hash, bool) {
	line, _, _ := strings.Cut(string(r.head), "\n")
	name, sym := strings.CutPrefix(line, "ref: ")
	if !sym {
		return parseHexID(line)
	}
	name = strings.TrimSpace(name)
	// Branches live in the common directory, also for a linked worktree.
	if !strings.HasPrefix(name, "refs/heads/") || strings.Contains(name, "..") || strings.ContainsAny(name, "\\\x00") {
		return plumbing.ZeroHash, false
	}
	b, err := os.ReadFile(filepath.Join(r.commonDir, filepath.FromSlash(name)))
	if err == nil {
		return parseHexID(strings.TrimRight(string(b), "\n"))
	}
	if !errors.Is(err, os.ErrNotExist) {
		return plumbing.ZeroHash, false
	}
	return packedRef(filepath.Join(r.commonDir, "packed-refs"), name)
}

// packedRef looks name up in a packed-refs file: lines "<id> <name>", with
// comments ("#") and peeled lines ("^<id>") in between.
func packedRef(path, name string) (plumbing.Hash, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return plumbing.ZeroHash, false
	}
	for len(b) > 0 {
		var line []byte
		line, b, _ = bytes.Cut(b, []byte("\n"))
		id, ref, ok := bytes.Cut(bytes.TrimRight(line, "\r"), []byte(" "))
		if ok && string(ref) == name {
			return parseHexID(string(id))
		}
	}
	return plumbing.ZeroHash, false
}

// parseHexID parses exactly 40 lowercase hex digits.
func parseHexID(s string) (plumbing.Hash, bool) {
	var h plumbing.Hash
	if len(s) != 40 || strings.ToLower(s) != s {
		return h, false
	}
	if _, err := hex.Decode(h[:], []byte(s)); err != nil {
		return h, false
	}
	return h, true
}
