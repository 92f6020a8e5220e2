// Package reporoot is the one walk to a git repository's root, shared by
// gitint (which then reads what the .git entry names) and mcp/config
// (which only needs the directory). It imports nothing of ours.
package reporoot

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// ErrNone is Find's error when neither dir nor any parent holds a .git
// entry.
var ErrNone = errors.New("no .git in the directory or any parent")

// Find returns the nearest directory, dir itself or a parent, holding an
// entry named ".git", and that entry's os.Stat information: the rule of
// git's own discovery. The entry may be a directory (a repository) or a
// file (a linked worktree or a submodule: "gitdir: DIR", which Find does
// not read); a symbolic link counts as what it leads to, and one leading
// nowhere counts as no entry. A Stat error other than "does not exist"
// ends the walk and is returned; ErrNone when the walk reaches the top of
// the file system. dir is taken as a directory, made clean; the root
// returned is dir or a parent, as clean (absolute if dir is).
func Find(dir string) (root string, dotGit fs.FileInfo, err error) {
	dir = filepath.Clean(dir)
	for {
		fi, err := os.Stat(filepath.Join(dir, ".git"))
		if err == nil {
			return dir, fi, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", nil, err
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", nil, ErrNone
		}
		dir = parent
	}
}
