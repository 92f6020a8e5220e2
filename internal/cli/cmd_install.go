package cli

// cmd_install.go: `agentgate install`, which writes the native git
// pre-commit hook (hooks/pre-commit.sh) into the repository's hooks
// directory.

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/agentgate/agentgate/hooks"
	"github.com/agentgate/agentgate/internal/safetext"
	"github.com/agentgate/agentgate/lock"
)

// selfExecutable is the agentgate binary that install writes into the hook
// and that demo runs as its MCP server. Tests point it at an agentgate built
// from this package (the test binary itself is not one).
var selfExecutable = os.Executable

func init() {
	register(&command{
		name:    "install",
		summary: "install the git pre-commit hook that runs 'agentgate hook'",
		usage: `Usage: agentgate install [--force] [--print] | --merge-driver

Writes a pre-commit hook that runs 'agentgate hook' before every commit
(see 'agentgate help hook'), into the directory git runs hooks from: the
repository's hooks directory, or core.hooksPath when set (relative to the
work tree's root); in a linked worktree, the main repository's, which all its
worktrees share. The hook runs this agentgate binary by its absolute path and
falls back to agentgate on PATH.

Running install again updates a hook agentgate wrote (recognised by its
marker line) and leaves an identical one untouched. It refuses to replace a
hook it did not write unless --force is given.

With --merge-driver it installs, instead of the hook, the merge driver for
the lockfile (see 'agentgate help merge-driver'): the line
"agentgate.lock merge=agentgate" in the .gitattributes at the repository's
root (commit it), and merge.agentgate.driver in the repository's git config
(each clone runs this once; without it git merges the file line by line).

Exit codes: 0 installed or already installed; 2 not in a git work tree, or a
hook agentgate did not write is in the way; 3 git failed or the hook could
not be written.

Examples:
  agentgate install
  agentgate install --print   # show the script, e.g. to merge into your own hook
  git agentgate install --force
  agentgate install --merge-driver`,
		flags: func(fs *flag.FlagSet) {
			fs.Bool("force", false, "replace a pre-commit hook that agentgate did not write")
			fs.Bool("print", false, "print the hook script on stdout instead of installing it")
			fs.Bool("merge-driver", false, "install the lockfile's git merge driver (.gitattributes and git config) instead of the hook")
		},
		run: runInstall,
	})
}

func runInstall(e *env, flags *flag.FlagSet, args []string) error {
	if len(args) > 0 {
		return invalid(fmt.Errorf("install takes no arguments, got %q", args[0]),
			"run 'agentgate install' inside the repository, or see 'agentgate install -h'")
	}
	if flagValue[bool](flags, "merge-driver") {
		return installMergeDriver(e)
	}
	force := flags.Lookup("force").Value.String() == "true"
	binary, note := hookBinary()
	script := hooks.PreCommit(binary)
	if flags.Lookup("print").Value.String() == "true" {
		_, err := e.stdout.Write(script)
		return err
	}
	dirs, err := gitHookDirs(e)
	if err != nil {
		return err
	}
	path := filepath.Join(dirs.hooks, "pre-commit")
	shown := shownPath(e, path)
	old, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		old = nil
	case err != nil:
		return unverified(fmt.Errorf("cannot read the existing hook %s: %v", shown, err))
	case bytes.Equal(old, script):
		if err := os.Chmod(path, 0o755); err != nil {
			return unverified(fmt.Errorf("cannot make %s executable: %v", shown, err))
		}
		fmt.Fprintf(e.stdout, "agentgate: the pre-commit hook at %s is already installed and up to date\n", safetext.VisibleLine(shown))
		return nil
	case !hooks.IsAgentgate(old) && !force:
		return invalid(fmt.Errorf("%s already exists and agentgate did not write it", shown),
			"run 'agentgate install --force' to replace it (copy it first if you need it)",
			"or keep your hook and add a line running 'agentgate hook' to it ('agentgate install --print' shows the script)")
	}
	if note != "" {
		fmt.Fprintf(e.stderr, "agentgate: %s\n", safetext.VisibleLine(note))
	}
	if err := os.MkdirAll(dirs.hooks, 0o755); err != nil {
		return unverified(fmt.Errorf("cannot create the hooks directory %s: %v", shownPath(e, dirs.hooks), err))
	}
	if err := writeExecutable(path, script); err != nil {
		return unverified(fmt.Errorf("cannot write the hook %s: %v", shown, err))
	}
	verb := "installed"
	switch {
	case old != nil && hooks.IsAgentgate(old):
		verb = "updated"
	case old != nil:
		verb = "replaced the existing hook with"
	}
	runs := "agentgate hook (from PATH)"
	if binary != "" {
		runs = binary + " hook"
	}
	fmt.Fprintf(e.stdout, "agentgate: %s the pre-commit hook at %s; before each commit it runs: %s\n", verb, safetext.VisibleLine(shown), safetext.VisibleLine(runs))
	if !within(dirs.hooks, dirs.common) && !within(dirs.hooks, dirs.top) {
		fmt.Fprintf(e.stdout, "agentgate: note: core.hooksPath points outside this repository, so every repository using %s runs this hook\n", safetext.VisibleLine(dirs.hooks))
	}
	if note := eolNote(e, dirs.top); note != "" {
		fmt.Fprintf(e.stdout, "agentgate: note: %s\n", note)
	}
	return nil
}

// gitattributesLine is the .gitattributes rule that keeps agentgate.lock
// LF in every checkout (agentgate compares lockfiles by content, so CRLF
// works too, but LF keeps the file byte-identical on every OS).
const gitattributesLine = lock.FileName + " text eol=lf"

// eolNote recommends gitattributesLine when git would not check
// agentgate.lock out with LF line ends in the work tree at top; "" when
// it would, or when git cannot tell.
func eolNote(e *env, top string) string {
	cmd := exec.CommandContext(e.ctx, "git", "check-attr", "eol", "--", lock.FileName)
	cmd.Dir = top
	out, err := cmd.Output()
	if err != nil || strings.HasSuffix(strings.TrimSpace(string(out)), ": eol: lf") {
		return ""
	}
	return "add '" + gitattributesLine + "' to .gitattributes so that every checkout has LF line ends (Git for Windows' core.autocrlf=true gives CRLF; agentgate accepts both, see docs/PLATFORMS.md)"
}

// hookBinary is the absolute path the hook runs, or "" (PATH only) with a
// note when this binary is a temporary build (go run) or unknown.
func hookBinary() (binary, note string) {
	exe, err := selfExecutable()
	if err != nil || !filepath.IsAbs(exe) {
		return "", "cannot tell where this agentgate binary is; the hook will run agentgate from PATH"
	}
	for _, part := range strings.Split(filepath.ToSlash(exe), "/") {
		if strings.HasPrefix(part, "go-build") {
			return "", "this agentgate is a temporary build (go run); the hook will run agentgate from PATH"
		}
	}
	return hooks.ShellPath(runtime.GOOS, exe), ""
}

// hookDirs are the absolute paths git reports for a work tree.
type hookDirs struct {
	top    string // the work tree's root
	common string // the git directory shared by all worktrees
	hooks  string // where git runs hooks from (core.hooksPath or <common>/hooks)
}

// gitHookDirs asks git where it runs hooks from for the work tree holding
// e.dir: git itself applies core.hooksPath (from any config level, relative
// to the work tree's root) and finds the common directory of linked
// worktrees. Its relative answers are relative to e.dir.
func gitHookDirs(e *env) (hookDirs, error) {
	cmd := exec.CommandContext(e.ctx, "git", "rev-parse", "--show-toplevel", "--git-common-dir", "--git-path", "hooks")
	cmd.Dir = e.dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	msg := strings.TrimSpace(stderr.String())
	var ee *exec.ExitError
	switch {
	case errors.Is(err, exec.ErrNotFound):
		return hookDirs{}, unverified(errors.New("git is not installed or not on PATH"),
			"install git: the hook is run by git, and install asks git where its hooks live")
	case errors.As(err, &ee) && strings.Contains(msg, "not a git repository"):
		return hookDirs{}, invalid(fmt.Errorf("%s is not in a git repository", e.dir),
			"run 'agentgate install' inside the repository's work tree (or 'git init' first)")
	case errors.As(err, &ee) && strings.Contains(msg, "work tree"):
		return hookDirs{}, invalid(fmt.Errorf("%s is not in a git work tree (a bare repository?)", e.dir),
			"run 'agentgate install' inside a work tree: commits, and so hooks, happen there")
	case err != nil:
		return hookDirs{}, unverified(fmt.Errorf("git rev-parse failed in %s: %v: %s", e.dir, err, msg))
	}
	lines := strings.Split(strings.TrimRight(stdout.String(), "\n"), "\n")
	if len(lines) != 3 {
		return hookDirs{}, unverified(fmt.Errorf("git rev-parse printed %d lines, want 3 (top, common dir, hooks): %q", len(lines), stdout.String()))
	}
	abs := func(p string) string {
		if !filepath.IsAbs(p) {
			p = filepath.Join(e.dir, p)
		}
		return filepath.Clean(p)
	}
	return hookDirs{top: abs(lines[0]), common: abs(lines[1]), hooks: abs(lines[2])}, nil
}

// shownPath is path relative to e.dir when below it, else absolute, for
// messages.
func shownPath(e *env, path string) string {
	if within(path, e.dir) {
		if rel, err := filepath.Rel(e.dir, path); err == nil {
			return filepath.ToSlash(rel)
		}
	}
	return path
}

// within reports whether path is dir or below it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// writeExecutable writes data to path with mode 0755 atomically: a temp
// file in the same directory, synced, then renamed over path. It is not
// atomicfile.WriteFile on purpose: that keeps the old file's permission
// bits (a hook must end executable) and writes through a symbolic link
// (a pre-commit hook linked to a shared script elsewhere must be replaced
// here, in this repository's hooks directory, not edited at its target).
func writeExecutable(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".pre-commit-*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // fails harmlessly after the rename
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(0o755); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
