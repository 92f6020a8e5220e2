// Package gitint reads what agentgate needs from a git repository: the
// repository root, and a file's bytes at HEAD, at a revision and in the
// index.
//
// Everything here is read-only and reads as little as possible, because it
// runs in the pre-commit hook on every commit: opening a repository is a
// few stats and small reads (.git, commondir, HEAD, config); HEAD is
// resolved from its loose ref or packed-refs; objects are read by a small
// reader (objects) that touches only the index pages and pack entries it
// needs; the staged lockfile is read from the work tree when its git blob
// id equals the index entry's. Every object read is checked against its
// id. A revision other than HEAD is resolved by resolveRevision
// (revision.go) with go-git's reference storage for names and abbreviated
// ids and the object reader for commits and tags. Anything unusual (a
// SHA-256 or reftable repository, a HEAD that is not a branch's loose or
// packed ref, an object the fast reader cannot read) goes to go-git's
// storage, opened on first need, so correctness never depends on the fast
// paths.
//
// GIT_DIR is not consulted (the repository is found from the directory given
// to Open). GIT_INDEX_FILE is honoured by FileInIndex and StagedChanges,
// because git sets it for hooks run by "git commit -a" and "git commit
// <paths>", whose index is a temporary file.
//
// gitint is not a general git library: its API is what agentgate's
// commands need and changes with them. It stays outside internal/ because
// the design puts each of agentgate's parts at the top level (gitint/,
// hooks/, lock/, mcp/).
package gitint

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// ErrNotRepository is returned (wrapped, with the directory) by Open outside
// any git repository.
var ErrNotRepository = errors.New("not a git repository")

// IndexFileEnv is the environment variable git uses to point at an index
// file other than .git/index.
const IndexFileEnv = "GIT_INDEX_FILE"

// Repo is an open repository. A Repo caches the index, HEAD and the pack
// files it read, which Close releases; it is not safe for concurrent use.
type Repo struct {
	layout
	head     []byte // the HEAD file as read by Open
	fastRefs bool   // resolve HEAD without go-git
	fastObjs bool   // read objects without go-git
	odb      *objects

	ggOnce sync.Once
	gg     *filesystem.Storage // go-git's view, for everything else
	ggErr  error

	headDone bool
	headHash plumbing.Hash
	headOK   bool
	headErr  error

	idxOnce sync.Once
	idx     *indexFile
	idxErr  error
}

// Open finds the repository containing dir (any subdirectory, or a linked
// worktree). Outside a repository the error wraps ErrNotRepository and names
// dir. A bare repository is refused, since agentgate needs a work tree.
func Open(dir string) (*Repo, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("open git repository at %s: %w", dir, err)
	}
	l, err := discover(abs)
	var head []byte
	if err == nil {
		if head, err = os.ReadFile(filepath.Join(l.gitDir, "HEAD")); errors.Is(err, os.ErrNotExist) {
			err = errNoRepository
		}
	}
	if errors.Is(err, errNoRepository) {
		return nil, hinted(fmt.Errorf("%s: %w (or any of its parent directories)", abs, ErrNotRepository),
			"run agentgate inside a git work tree, or run: git init")
	}
	if err != nil {
		return nil, fmt.Errorf("open git repository at %s: %w", abs, err)
	}
	r := &Repo{layout: l, head: head}
	r.fastRefs = fastPaths(r)
	r.fastObjs = r.fastRefs
	return r, nil
}

// Close releases the pack files r's object reader mapped or opened (no
// finalizer does). go-git's storage, when r opened it, holds no file
// between reads (its default options close each pack after use). r must
// not be used afterwards. It returns nil; the error is for io.Closer.
func (r *Repo) Close() error {
	if r.odb != nil {
		r.odb.close()
		r.odb = nil
	}
	return nil
}

// Root is the absolute path of the work tree's top directory.
func (r *Repo) Root() string { return r.root }

// FileAt returns the bytes of path (slash-separated, relative to Root) at
// revision rev: "HEAD", a branch, a tag, a remote-tracking branch
// ("origin/main"), a full or abbreviated hash, or any of those with ~N,
// ^N, ^{commit} or ^{/TEXT} (go-git's forms; resolveRevision refuses the
// others with an error saying so).
// ok is false when the file does not exist there (or path names a directory
// or submodule), or when rev is "HEAD" and there are no commits. A revision
// that does not resolve is an error naming it.
func (r *Repo) FileAt(rev, path string) (data []byte, ok bool, err error) {
	if err := cleanPath(path); err != nil {
		return nil, false, fmt.Errorf("%s: %w", r.root, err)
	}
	tree, ok, err := r.treeAt(rev)
	if err != nil || !ok {
		return nil, false, err
	}
	data, ok, err = r.readTreeFile(tree, path)
	if err != nil {
		return nil, false, fmt.Errorf("%s: read %s at %s: %w", r.root, path, rev, err)
	}
	return data, ok, nil
}

// treeAt returns the root tree id of the commit rev names; ok is false only
// for "HEAD" in a repository without commits.
func (r *Repo) treeAt(rev string) (plumbing.Hash, bool, error) {
	var hash plumbing.Hash
	if rev == "HEAD" {
		h, ok, err := r.headCommit()
		if err != nil || !ok {
			return plumbing.ZeroHash, false, err
		}
		hash = h
	} else {
		h, err := r.resolveRevision(rev)
		if errors.Is(err, errUnsupportedRevision) {
			return plumbing.ZeroHash, false, hinted(fmt.Errorf("%s: revision %q: %w", r.root, rev, err),
				"name the commit as a branch, tag or commit id, optionally with ~N, ^N, ^{commit} or ^{/TEXT}; git rev-parse prints the id of any revision git reads: --rev \"$(git rev-parse 'REV^{commit}')\"")
		}
		if err != nil {
			return plumbing.ZeroHash, false, hinted(fmt.Errorf("%s: unknown revision %q: %w", r.root, rev, err),
				"name a branch, tag or commit that exists, e.g. HEAD, main, origin/main, HEAD~1 (run: git fetch, if it is a remote branch)")
		}
		hash = h
	}
	c, err := r.readObject(hash, objCommit)
	if err != nil {
		return plumbing.ZeroHash, false, fmt.Errorf("%s: read commit %s (%s): %w", r.root, hash, rev, err)
	}
	t, err := commitTree(c)
	if err != nil {
		return plumbing.ZeroHash, false, fmt.Errorf("%s: read tree of commit %s (%s): %w", r.root, hash, rev, err)
	}
	return t, true, nil
}

// SymlinkAt reports whether path is a symbolic link (mode 120000) at
// revision rev; FileAt's bytes are then the link's target. It is false
// when path does not exist there.
func (r *Repo) SymlinkAt(rev, path string) (bool, error) {
	if err := cleanPath(path); err != nil {
		return false, fmt.Errorf("%s: %w", r.root, err)
	}
	tree, ok, err := r.treeAt(rev)
	if err != nil || !ok {
		return false, err
	}
	e, ok, err := r.treeEntryAt(tree, path)
	if err != nil {
		return false, fmt.Errorf("%s: read %s at %s: %w", r.root, path, rev, err)
	}
	return ok && e.mode == filemode.Symlink, nil
}

// readTreeFile reads the blob at path in tree t; ok is false when there is
// none (or path is a directory or submodule there).
func (r *Repo) readTreeFile(t plumbing.Hash, path string) ([]byte, bool, error) {
	e, ok, err := r.treeEntryAt(t, path)
	if err != nil || !ok {
		return nil, false, err
	}
	b, err := r.readObject(e.hash, objBlob)
	if err != nil {
		return nil, false, fmt.Errorf("read blob %s: %w", e.hash, err)
	}
	return b, true, nil
}

// treeEntryAt finds the blob entry at path in tree t; ok is false when
// there is none (or path is a directory or submodule there).
func (r *Repo) treeEntryAt(t plumbing.Hash, path string) (treeEntry, bool, error) {
	for {
		name, rest, more := strings.Cut(path, "/")
		data, err := r.readObject(t, objTree)
		if err != nil {
			return treeEntry{}, false, fmt.Errorf("read tree %s: %w", t, err)
		}
		e, found, err := findTreeEntry(data, name)
		if err != nil {
			return treeEntry{}, false, fmt.Errorf("read tree %s: %w", t, err)
		}
		if !found {
			return treeEntry{}, false, nil
		}
		if more {
			if e.mode != filemode.Dir {
				return treeEntry{}, false, nil
			}
			t, path = e.hash, rest
			continue
		}
		if !isBlobMode(e.mode) {
			return treeEntry{}, false, nil
		}
		return e, true, nil
	}
}

// readObject returns the content of object h, which must be of type want:
// from the fast reader when it can, otherwise from go-git.
func (r *Repo) readObject(h plumbing.Hash, want int) ([]byte, error) {
	typ, data, err := r.readAny(h)
	if err != nil {
		return nil, err
	}
	if typ != want {
		return nil, fmt.Errorf("object %s is a %s, not a %s", h, typeNames[typ], typeNames[want])
	}
	return data, nil
}

// readAny returns the type and content of object h: from the fast reader
// when it can, otherwise from go-git. Either way the content hashes to h.
func (r *Repo) readAny(h plumbing.Hash) (int, []byte, error) {
	if r.fastObjs {
		if r.odb == nil {
			r.odb = newObjects(filepath.Join(r.commonDir, "objects"))
		}
		typ, data, err := r.odb.read(h)
		if err == nil {
			return typ, data, nil
		}
		// Whatever went wrong, go-git decides.
	}
	gg, err := r.git()
	if err != nil {
		return 0, nil, err
	}
	o, err := gg.EncodedObject(plumbing.AnyObject, h)
	if err != nil {
		return 0, nil, err
	}
	var typ int
	switch o.Type() {
	case plumbing.CommitObject:
		typ = objCommit
	case plumbing.TreeObject:
		typ = objTree
	case plumbing.BlobObject:
		typ = objBlob
	case plumbing.TagObject:
		typ = objTag
	default:
		return 0, nil, fmt.Errorf("object %s has unexpected type %s", h, o.Type())
	}
	rd, err := o.Reader()
	if err != nil {
		return 0, nil, err
	}
	defer rd.Close()
	data, err := io.ReadAll(rd)
	if err != nil {
		return 0, nil, err
	}
	// go-git does not check loose objects against their ids; a damaged
	// object must never pass for the one asked for.
	if objectID(typ, data) != h {
		return 0, nil, hinted(fmt.Errorf("object %s is damaged: its content does not hash to its id", h), "run: git fsck")
	}
	return typ, data, nil
}

func isBlobMode(m filemode.FileMode) bool {
	return m == filemode.Regular || m == filemode.Executable || m == filemode.Deprecated || m == filemode.Symlink
}

// cleanPath checks that path is a clean slash-separated relative path.
func cleanPath(path string) error {
	if path == "" || strings.HasPrefix(path, "/") || strings.Contains(path, "\\") ||
		path != filepath.ToSlash(filepath.Clean(filepath.FromSlash(path))) || strings.HasPrefix(path, "../") || path == ".." {
		return fmt.Errorf("path %q is not a clean slash-separated path relative to the repository root", path)
	}
	return nil
}

// hintError is an error with a hint: what the user can do about it,
// printed by the CLI as "agentgate: hint: ...". errors.Is and errors.As see
// through it.
type hintError struct {
	err  error
	hint string
}

func (e *hintError) Error() string { return e.err.Error() }
func (e *hintError) Unwrap() error { return e.err }

// Hints tells the user what to do about e.
func (e *hintError) Hints() []string { return []string{e.hint} }

// hinted returns err with hint.
func hinted(err error, hint string) error { return &hintError{err, hint} }
