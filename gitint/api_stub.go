package gitint

// THIS FILE IS A CONTRACT STUB: the package owner replaces the panics and
// keeps the exported names and signatures.

import "errors"

// ErrNotRepository is returned by Open outside any git repository.
var ErrNotRepository = errors.New("not a git repository")

// Repo is an open repository.
type Repo struct{}

// Open finds the repository containing dir (any subdirectory, or a linked
// worktree).
func Open(dir string) (*Repo, error) { panic("todo") }

// Root is the absolute path of the work tree's top directory.
func (r *Repo) Root() string { panic("todo") }

// HasCommits reports whether HEAD points at a commit.
func (r *Repo) HasCommits() (bool, error) { panic("todo") }

// FileAt returns the bytes of path (slash-separated, relative to Root) at
// revision rev ("HEAD", a branch, tag, or hash). ok is false when the file
// does not exist there, or when rev is "HEAD" and there are no commits.
func (r *Repo) FileAt(rev, path string) (data []byte, ok bool, err error) { panic("todo") }

// FileInIndex returns the staged bytes of path (honouring GIT_INDEX_FILE).
func (r *Repo) FileInIndex(path string) (data []byte, ok bool, err error) { panic("todo") }

// StagedChanges returns the paths among those matched by match whose index
// entry differs from HEAD (added, modified or deleted), sorted.
func (r *Repo) StagedChanges(match func(path string) bool) ([]string, error) { panic("todo") }
