// Package gitint reads what agentgate needs from a git repository with
// go-git: the repository root, and a file's bytes at HEAD, at a revision and
// in the index.
//
// Everything here is read-only and reads as little as possible: opening a
// repository reads its config and HEAD; reading a file at a revision reads
// one commit, the trees on the file's path and one blob; the index is read
// once per Repo. Nothing walks history or loads every object, so the commit
// hook stays fast on large repositories.
//
// GIT_DIR is not consulted (the repository is found from the directory given
// to Open). GIT_INDEX_FILE is honoured by FileInIndex and StagedChanges,
// because git sets it for hooks run by "git commit -a" and "git commit
// <paths>", whose index is a temporary file.
package gitint

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// ErrNotRepository is returned (wrapped, with the directory) by Open outside
// any git repository.
var ErrNotRepository = errors.New("not a git repository")

// IndexFileEnv is the environment variable git uses to point at an index
// file other than .git/index.
const IndexFileEnv = "GIT_INDEX_FILE"

// Repo is an open repository. A Repo caches the index it read; it is not safe
// for concurrent use.
type Repo struct {
	repo *git.Repository
	root string

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
	r, err := git.PlainOpenWithOptions(abs, &git.PlainOpenOptions{
		DetectDotGit:          true,
		EnableDotGitCommonDir: true,
	})
	if errors.Is(err, git.ErrRepositoryNotExists) {
		return nil, fmt.Errorf("%s: %w (or any of its parent directories)\nhint: run agentgate inside a git work tree, or run: git init", abs, ErrNotRepository)
	}
	if err != nil {
		return nil, fmt.Errorf("open git repository at %s: %w", abs, err)
	}
	wt, err := r.Worktree()
	if errors.Is(err, git.ErrIsBareRepository) {
		return nil, fmt.Errorf("%s: bare repository has no work tree: %w", abs, ErrNotRepository)
	}
	if err != nil {
		return nil, fmt.Errorf("open git work tree at %s: %w", abs, err)
	}
	return &Repo{repo: r, root: filepath.Clean(wt.Filesystem.Root())}, nil
}

// Root is the absolute path of the work tree's top directory.
func (r *Repo) Root() string { return r.root }

// Git returns the underlying go-git repository, for callers that need more.
func (r *Repo) Git() *git.Repository { return r.repo }

// HasCommits reports whether HEAD points at a commit (false in a repository
// created by git init with nothing committed yet).
func (r *Repo) HasCommits() (bool, error) {
	_, err := r.repo.Head()
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("%s: read HEAD: %w", r.root, err)
	}
	return true, nil
}

// FileAt returns the bytes of path (slash-separated, relative to Root) at
// revision rev: "HEAD", a branch, a tag, a remote-tracking branch
// ("origin/main"), a full or abbreviated hash, or any of those with ~N or ^N.
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

// treeAt returns the root tree of the commit rev names; ok is false only
// for "HEAD" in a repository without commits.
func (r *Repo) treeAt(rev string) (*object.Tree, bool, error) {
	var hash plumbing.Hash
	if rev == "HEAD" {
		ref, err := r.repo.Head()
		if errors.Is(err, plumbing.ErrReferenceNotFound) {
			return nil, false, nil
		}
		if err != nil {
			return nil, false, fmt.Errorf("%s: read HEAD: %w", r.root, err)
		}
		hash = ref.Hash()
	} else {
		h, err := r.repo.ResolveRevision(plumbing.Revision(rev))
		if err != nil {
			return nil, false, fmt.Errorf("%s: unknown revision %q: %v\nhint: name a branch, tag or commit that exists, e.g. HEAD, main, origin/main, HEAD~1 (run: git fetch, if it is a remote branch)", r.root, rev, err)
		}
		hash = *h
	}
	c, err := r.repo.CommitObject(hash)
	if err != nil {
		return nil, false, fmt.Errorf("%s: read commit %s (%s): %w", r.root, hash, rev, err)
	}
	t, err := c.Tree()
	if err != nil {
		return nil, false, fmt.Errorf("%s: read tree of commit %s (%s): %w", r.root, hash, rev, err)
	}
	return t, true, nil
}

// readTreeFile reads the blob at path in t; ok is false when there is none.
func (r *Repo) readTreeFile(t *object.Tree, path string) ([]byte, bool, error) {
	e, err := t.FindEntry(path)
	if err != nil {
		if errors.Is(err, object.ErrEntryNotFound) || errors.Is(err, object.ErrDirectoryNotFound) {
			return nil, false, nil
		}
		return nil, false, err
	}
	if !isBlobMode(e.Mode) {
		return nil, false, nil
	}
	b, err := r.readBlob(e.Hash)
	if err != nil {
		return nil, false, err
	}
	return b, true, nil
}

func (r *Repo) readBlob(h plumbing.Hash) ([]byte, error) {
	o, err := r.repo.BlobObject(h)
	if err != nil {
		return nil, fmt.Errorf("read blob %s: %w", h, err)
	}
	rd, err := o.Reader()
	if err != nil {
		return nil, fmt.Errorf("read blob %s: %w", h, err)
	}
	defer rd.Close()
	return io.ReadAll(rd)
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
