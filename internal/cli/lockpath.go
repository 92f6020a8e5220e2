package cli

// lockpath.go keeps the lockfile inside the work tree: a committed
// agentgate.toml or symbolic link must not make agentgate write (or read)
// a file outside the repository or inside a .git directory.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentgate/agentgate/internal/check"
	"github.com/agentgate/agentgate/internal/safetext"
)

// checkLockPath refuses (exit class 2) a lockfile path that, with every
// symbolic link resolved (the file itself, when it is a link, and each
// existing directory above it), is outside the work tree ws.Root or has a
// component named .git (in any case: case-insensitive file systems), and
// a path holding a control or other hidden character. It applies when
// the command writes the lockfile (lock, hook) whatever named it, and to
// every command when the repository named it (agentgate.toml's lockfile,
// or the default agentgate.lock, which may be a committed link); a
// --lockfile PATH given to a command that only reads is the user's
// choice. Outside a git repository only the .git rule applies.
func checkLockPath(ws *check.Workspace, writes bool) error {
	if !writes && ws.LockFromFlag {
		return nil
	}
	shown := ws.LockRel
	for _, r := range ws.LockPath {
		if r == '\n' || safetext.Kind(r) != "" {
			return invalid(fmt.Errorf("lockfile path %q holds a control or invisible character", shown),
				"name the lockfile with visible characters (agentgate.toml: lockfile, or --lockfile)")
		}
	}
	real, err := resolveExisting(ws.LockPath)
	if err != nil {
		return invalid(fmt.Errorf("lockfile %s: %v", shown, err))
	}
	hint := "keep the lockfile inside the repository and outside .git (agentgate.toml: lockfile, default agentgate.lock)"
	if hasGitComponent(ws.LockPath) || hasGitComponent(real) {
		return invalid(fmt.Errorf("lockfile %s is inside a .git directory (resolved: %s); agentgate never writes there", shown, real), hint)
	}
	if ws.Repo == nil {
		return nil
	}
	root, err := filepath.EvalSymlinks(ws.Root)
	if err != nil {
		root = ws.Root
	}
	rel, err := filepath.Rel(root, real)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return invalid(fmt.Errorf("lockfile %s resolves to %s, outside the repository %s", shown, real, ws.Root), hint)
	}
	return nil
}

// resolveExisting returns p with the symbolic links of its existing part
// resolved: the whole path when it exists (a link is followed to its
// target), else the deepest existing directory above it resolved and the
// rest appended.
func resolveExisting(p string) (string, error) {
	p = filepath.Clean(p)
	if real, err := filepath.EvalSymlinks(p); err == nil {
		return real, nil
	}
	if fi, err := os.Lstat(p); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		return "", errors.New("is a symbolic link to a missing file")
	}
	dir, rest := filepath.Dir(p), filepath.Base(p)
	for {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(real, rest), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return p, nil
		}
		rest = filepath.Join(filepath.Base(dir), rest)
		dir = parent
	}
}

// hasGitComponent reports whether a component of p is .git, in any case.
func hasGitComponent(p string) bool {
	for _, c := range strings.Split(filepath.ToSlash(p), "/") {
		if strings.EqualFold(c, ".git") {
			return true
		}
	}
	return false
}
