package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/hooks"
	"github.com/agentgate/agentgate/internal/demo"
)

// TestInstallHooksDir installs the hook where git runs hooks from: the
// repository's hooks directory, core.hooksPath (relative to the work tree's
// root, whatever the working directory), and the main repository's hooks
// directory from a linked worktree.
func TestInstallHooksDir(t *testing.T) {
	routeIsolateGit(t)
	bin := routeAgentgate(t)
	outside, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		// setup prepares repo and returns the directory to run install in
		setup    func(t *testing.T, repo string) string
		wantHook func(repo string) string
		wantNote bool // core.hooksPath outside the repository
	}{
		{
			name:     "root",
			setup:    func(t *testing.T, repo string) string { return repo },
			wantHook: func(repo string) string { return filepath.Join(repo, ".git", "hooks", "pre-commit") },
		},
		{
			name: "subdirectory",
			setup: func(t *testing.T, repo string) string {
				routeWrite(t, repo, "a/b/keep", "")
				return filepath.Join(repo, "a", "b")
			},
			wantHook: func(repo string) string { return filepath.Join(repo, ".git", "hooks", "pre-commit") },
		},
		{
			name: "relative core.hooksPath from a subdirectory",
			setup: func(t *testing.T, repo string) string {
				routeGit(t, repo, "config", "core.hooksPath", ".githooks")
				routeWrite(t, repo, "a/b/keep", "")
				return filepath.Join(repo, "a", "b")
			},
			wantHook: func(repo string) string { return filepath.Join(repo, ".githooks", "pre-commit") },
		},
		{
			name: "absolute core.hooksPath outside the repository",
			setup: func(t *testing.T, repo string) string {
				routeGit(t, repo, "config", "core.hooksPath", filepath.Join(outside, "shared-hooks"))
				return repo
			},
			wantHook: func(string) string { return filepath.Join(outside, "shared-hooks", "pre-commit") },
			wantNote: true,
		},
		{
			name: "linked worktree",
			setup: func(t *testing.T, repo string) string {
				routeGit(t, repo, "commit", "-q", "--allow-empty", "-m", "first")
				wt := filepath.Join(outside, "worktree")
				routeGit(t, repo, "worktree", "add", "-q", wt)
				routeWrite(t, wt, "sub/keep", "")
				return filepath.Join(wt, "sub")
			},
			wantHook: func(repo string) string { return filepath.Join(repo, ".git", "hooks", "pre-commit") },
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			repo := routeNewRepo(t)
			dir := tc.setup(t, repo)
			code, stdout, stderr := routeRun(t, dir, "install")
			if code != ExitOK {
				t.Fatalf("install: exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
			}
			hook := tc.wantHook(repo)
			got, err := os.ReadFile(hook)
			if err != nil {
				t.Fatalf("hook not written where git runs it: %v\nstdout: %s", err, stdout)
			}
			if want := hooks.PreCommit(bin); !bytes.Equal(got, want) {
				t.Errorf("hook content:\n%s\nwant:\n%s", got, want)
			}
			if fi, err := os.Stat(hook); err != nil || fi.Mode().Perm()&0o111 == 0 {
				t.Errorf("hook %s is not executable (%v, %v)", hook, fi.Mode(), err)
			}
			// git itself agrees: the same path, asked from the same directory.
			if gitPath := strings.TrimSpace(routeGit(t, dir, "rev-parse", "--path-format=absolute", "--git-path", "hooks/pre-commit")); gitPath != hook {
				t.Errorf("git runs %s, want %s", gitPath, hook)
			}
			if !strings.Contains(stdout, "installed the pre-commit hook at ") || !strings.Contains(stdout, bin+" hook") {
				t.Errorf("stdout %q does not say where the hook is and what it runs", stdout)
			}
			if hasNote := strings.Contains(stdout, "core.hooksPath points outside this repository"); hasNote != tc.wantNote {
				t.Errorf("outside-repository note = %v, want %v; stdout: %s", hasNote, tc.wantNote, stdout)
			}
		})
	}
}

// TestInstallExisting covers an existing hook (ours or someone else's),
// --force, --print, and the usage errors, with exact exit codes.
func TestInstallExisting(t *testing.T) {
	routeIsolateGit(t)
	bin := routeAgentgate(t)
	repo := routeNewRepo(t)
	hook := filepath.Join(repo, ".git", "hooks", "pre-commit")
	foreign := "#!/bin/sh\nexec lefthook run pre-commit\n"
	ours := string(hooks.PreCommit(bin))
	outdated := string(hooks.PreCommit("/old/place/agentgate"))

	steps := []struct {
		name       string
		before     *string // hook content to put in place first; nil keeps it
		args       []string
		wantCode   int
		wantHook   string // "" means no hook file
		wantStdout string // substring
		wantStderr string // substring
	}{
		{name: "print writes nothing", args: []string{"install", "--print"}, wantCode: 0, wantStdout: ours},
		{name: "foreign hook is kept", before: &foreign, args: []string{"install"}, wantCode: ExitInvalid, wantHook: foreign,
			wantStderr: "agentgate install: error: .git/hooks/pre-commit already exists and agentgate did not write it\nagentgate: hint: run 'agentgate install --force'"},
		{name: "force replaces it", args: []string{"install", "--force"}, wantCode: 0, wantHook: ours, wantStdout: "replaced the existing hook with the pre-commit hook"},
		{name: "again is idempotent", args: []string{"install"}, wantCode: 0, wantHook: ours, wantStdout: "already installed and up to date"},
		{name: "outdated hook of ours is updated", before: &outdated, args: []string{"install"}, wantCode: 0, wantHook: ours, wantStdout: "updated the pre-commit hook"},
		{name: "argument", args: []string{"install", "now"}, wantCode: ExitInvalid, wantHook: ours, wantStderr: "install takes no arguments"},
		{name: "unknown flag", args: []string{"install", "--overwrite"}, wantCode: ExitInvalid, wantHook: ours, wantStderr: "unknown flag --overwrite"},
	}
	for _, st := range steps {
		if st.before != nil {
			routeWrite(t, repo, ".git/hooks/pre-commit", *st.before)
		}
		code, stdout, stderr := routeRun(t, repo, st.args...)
		if code != st.wantCode || !strings.Contains(stdout, st.wantStdout) || !strings.Contains(stderr, st.wantStderr) {
			t.Fatalf("%s: %v: exit %d, stdout %q, stderr %q\nwant exit %d, stdout containing %q, stderr containing %q",
				st.name, st.args, code, stdout, stderr, st.wantCode, st.wantStdout, st.wantStderr)
		}
		got, err := os.ReadFile(hook)
		if st.wantHook == "" {
			if err == nil {
				t.Fatalf("%s: a hook was written:\n%s", st.name, got)
			}
			continue
		}
		if string(got) != st.wantHook {
			t.Fatalf("%s: hook is\n%s\nwant\n%s", st.name, got, st.wantHook)
		}
	}
}

// TestInstallForceSymlinkedHook replaces a pre-commit hook that is a
// symbolic link to a shared script elsewhere: the link becomes our
// executable hook and the shared script is left exactly as it was.
func TestInstallForceSymlinkedHook(t *testing.T) {
	routeIsolateGit(t)
	bin := routeAgentgate(t)
	repo := routeNewRepo(t)
	shared := filepath.Join(t.TempDir(), "shared-pre-commit")
	const foreign = "#!/bin/sh\nexec lefthook run pre-commit\n"
	if err := os.WriteFile(shared, []byte(foreign), 0o644); err != nil {
		t.Fatal(err)
	}
	hook := filepath.Join(repo, ".git", "hooks", "pre-commit")
	if err := os.MkdirAll(filepath.Dir(hook), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(shared, hook); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	if code, stdout, stderr := routeRun(t, repo, "install", "--force"); code != 0 {
		t.Fatalf("install --force: exit %d\n%s%s", code, stdout, stderr)
	}
	if got, _ := os.ReadFile(shared); string(got) != foreign {
		t.Fatalf("the shared script was changed:\n%s", got)
	}
	fi, err := os.Lstat(hook)
	if err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("the hook is not a regular file: %v %v", fi, err)
	}
	if fi.Mode().Perm()&0o100 == 0 && os.PathSeparator == '/' {
		t.Fatalf("the hook is not executable: %v", fi.Mode())
	}
	if got, _ := os.ReadFile(hook); string(got) != string(hooks.PreCommit(bin)) {
		t.Fatalf("hook is\n%s", got)
	}
}

func TestInstallOutsideRepository(t *testing.T) {
	routeIsolateGit(t)
	routeAgentgate(t)
	dir := t.TempDir()
	t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(dir))
	code, stdout, stderr := routeRun(t, dir, "install")
	if code != ExitInvalid || stdout != "" || !strings.Contains(stderr, "is not in a git repository") ||
		!strings.Contains(stderr, "agentgate: hint: run 'agentgate install' inside the repository's work tree") {
		t.Fatalf("exit %d, stdout %q, stderr %q; want exit 2 and a hint", code, stdout, stderr)
	}
}

// TestInstallBlocksCommit is the native route end to end, with real git
// running the installed hook, which runs the real agentgate: a commit that
// changes a server's surface is blocked (the hook writes the regenerated
// lockfile) until that lockfile is staged, and then lands in the same
// commit.
func TestInstallBlocksCommit(t *testing.T) {
	routeIsolateGit(t)
	bin := routeAgentgate(t)
	repo := routeNewRepo(t)
	rugpull := filepath.Join(t.TempDir(), "rugpull")
	if err := os.WriteFile(rugpull, []byte("on\n"), 0o644); err != nil { // exists: the server serves the rug pull when told to look
		t.Fatal(err)
	}

	routeWrite(t, repo, ".mcp.json", routeDemoConfig(bin, ""))
	if code, stdout, stderr := routeRun(t, repo, "lock"); code != ExitOK {
		t.Fatalf("lock: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, stdout, stderr := routeRun(t, repo, "install"); code != ExitOK {
		t.Fatalf("install: exit %d\n%s%s", code, stdout, stderr)
	}
	routeGit(t, repo, "add", ".mcp.json", "agentgate.lock")
	if out, errOut, err := routeGitTry(repo, "commit", "-q", "-m", "pin the notes server"); err != nil {
		t.Fatalf("first commit, lockfile up to date, was blocked: %v\n%s%s", err, out, errOut)
	}
	first := strings.TrimSpace(routeGit(t, repo, "rev-parse", "HEAD"))
	lockedBefore, err := os.ReadFile(filepath.Join(repo, "agentgate.lock"))
	if err != nil {
		t.Fatal(err)
	}

	// The config change makes the server serve a reworded description.
	routeWrite(t, repo, ".mcp.json", routeDemoConfig(bin, rugpull))
	routeGit(t, repo, "add", ".mcp.json")
	out, errOut, err := routeGitTry(repo, "commit", "-q", "-m", "update the notes server")
	if err == nil {
		t.Fatalf("the commit that changes the surface was not blocked\n%s%s", out, errOut)
	}
	if head := strings.TrimSpace(routeGit(t, repo, "rev-parse", "HEAD")); head != first {
		t.Fatalf("HEAD moved to %s although the hook failed", head)
	}
	if all := out + errOut; !strings.Contains(all, "search_notes") || !strings.Contains(all, "read ~/.ssh/id_rsa") {
		t.Errorf("the blocked commit does not show the changed tool and its new description:\n%s", all)
	}
	lockedAfter, err := os.ReadFile(filepath.Join(repo, "agentgate.lock"))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(lockedAfter, lockedBefore) {
		t.Fatal("the hook did not write the regenerated lockfile into the work tree")
	}
	if all := out + errOut; !strings.Contains(all, "git add agentgate.lock") {
		t.Errorf("the blocked commit does not say to stage the lockfile:\n%s", all)
	}

	// Committing again without staging it is blocked again.
	if out, errOut, err := routeGitTry(repo, "commit", "-q", "-m", "update the notes server"); err == nil {
		t.Fatalf("the commit was not blocked although the regenerated lockfile is not staged\n%s%s", out, errOut)
	}
	if head := strings.TrimSpace(routeGit(t, repo, "rev-parse", "HEAD")); head != first {
		t.Fatalf("HEAD moved to %s although the hook failed", head)
	}

	// The reviewer stages it and commits again: it lands with the config change.
	routeGit(t, repo, "add", "agentgate.lock")
	if out, errOut, err := routeGitTry(repo, "commit", "-q", "-m", "update the notes server"); err != nil {
		t.Fatalf("the commit with the regenerated lockfile staged was blocked: %v\n%s%s", err, out, errOut)
	}
	files := strings.Fields(routeGit(t, repo, "show", "--name-only", "--format=", "HEAD"))
	if strings.Join(files, " ") != ".mcp.json agentgate.lock" {
		t.Errorf("the commit holds %q, want the config change and the lockfile together", files)
	}
	// The committed lockfile pins the new description (sha256 of its text).
	if committed := routeGit(t, repo, "show", "HEAD:agentgate.lock"); !strings.Contains(committed, `"descriptionHash": "`+sha256Hex(demo.RugpullText)+`"`) {
		t.Errorf("the committed lockfile does not pin the new description of search_notes:\n%s", committed)
	}
	if status := routeGit(t, repo, "status", "--porcelain"); status != "" {
		t.Errorf("work tree not clean after the commit: %q", status)
	}
}
