package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/agentgate/agentgate/internal/testing/testenv"
	"github.com/agentgate/agentgate/mcp/config"
)

// preCommitHook is one entry of .pre-commit-hooks.yaml; absent keys that
// matter (stages, minimum_pre_commit_version) are caught by KnownFields.
type preCommitHook struct {
	ID            string `yaml:"id"`
	Name          string `yaml:"name"`
	Description   string `yaml:"description"`
	Entry         string `yaml:"entry"`
	Language      string `yaml:"language"`
	Files         string `yaml:"files"`
	AlwaysRun     bool   `yaml:"always_run"`
	PassFilenames *bool  `yaml:"pass_filenames"`
	RequireSerial bool   `yaml:"require_serial"`
}

func readPreCommitHooks(t *testing.T) map[string]preCommitHook {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), ".pre-commit-hooks.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true) // no stages, no minimum_pre_commit_version, no typo
	var list []preCommitHook
	if err := dec.Decode(&list); err != nil {
		t.Fatalf(".pre-commit-hooks.yaml: %v", err)
	}
	m := map[string]preCommitHook{}
	for _, h := range list {
		m[h.ID] = h
	}
	return m
}

// TestPreCommitHooksFile checks the hook definitions pre-commit 3.0.4
// accepts and that the docs promise.
func TestPreCommitHooksFile(t *testing.T) {
	hooks := readPreCommitHooks(t)
	if len(hooks) != 4 {
		t.Fatalf("hooks = %v, want agentgate, agentgate-verify and their -system twins", slices.Sorted(maps.Keys(hooks)))
	}
	for id, want := range map[string]struct {
		entry, language string
		alwaysRun       bool
		files           bool
	}{
		"agentgate":               {entry: "agentgate hook", language: "golang", files: true},
		"agentgate-verify":        {entry: "agentgate verify", language: "golang", alwaysRun: true},
		"agentgate-system":        {entry: "agentgate hook", language: "system", files: true},
		"agentgate-verify-system": {entry: "agentgate verify", language: "system", alwaysRun: true},
	} {
		h, ok := hooks[id]
		switch {
		case !ok:
			t.Errorf("no hook %q", id)
		case h.Entry != want.entry || h.Language != want.language || h.Name == "" || h.Description == "":
			t.Errorf("%s: entry %q, language %q, name %q; want entry %q, language %s, a name and a description", id, h.Entry, h.Language, h.Name, want.entry, want.language)
		case h.PassFilenames == nil || *h.PassFilenames || !h.RequireSerial:
			t.Errorf("%s: want pass_filenames: false and require_serial: true", id)
		case h.AlwaysRun != want.alwaysRun || (h.Files != "") != want.files:
			t.Errorf("%s: always_run %v, files %q", id, h.AlwaysRun, h.Files)
		}
	}
	// A -system hook is its twin but for the language.
	for _, id := range []string{"agentgate", "agentgate-verify"} {
		h, sys := hooks[id], hooks[id+"-system"]
		h.ID, h.Language, sys.ID, sys.Language = "", "", "", ""
		if !reflect.DeepEqual(h, sys) {
			t.Errorf("%s-system differs from %s beyond id and language:\n%+v\n%+v", id, id, sys, h)
		}
	}
}

// TestPreCommitFilesRegex checks that the live hook's files regex matches
// exactly the paths config.IsConfigPath accepts, plus agentgate.lock.
func TestPreCommitFilesRegex(t *testing.T) {
	files := readPreCommitHooks(t)["agentgate"].Files
	re, err := regexp.Compile(files) // pre-commit uses Python's re.search; the pattern is anchored and uses the common subset
	if err != nil {
		t.Fatalf("files %q: %v", files, err)
	}
	paths := []string{
		".mcp.json", ".cursor/mcp.json", ".vscode/mcp.json", ".codex/config.toml",
		".gemini/settings.json", ".qwen/settings.json", ".github/mcp.json", ".zed/settings.json", ".roo/mcp.json", ".kiro/settings/mcp.json",
		".amazonq/mcp.json", ".junie/mcp/mcp.json", "opencode.json", "opencode.jsonc",
		".continue/mcpServers/a.yaml", ".continue/mcpServers/b.yml", ".continue/mcpServers/c.json",
		".continue/mcpServers/.yaml", "agentgate.toml", "agentgate.lock",
		// near misses
		"mcp.json", "x.mcp.json", ".mcp.jsonc", ".mcp.json.bak", "sub/.mcp.json", "sub/agentgate.lock",
		".vscode/settings.json", ".vscode/mcp.jsonc", ".cursor/mcp.jsonc", ".codex/config.json",
		".gemini/mcp.json", ".github/settings.json", ".qwen/mcp.json", ".kiro/mcp.json", ".junie/mcp.json", "opencode.yaml", "opencode.jsonx",
		".continue/mcpServers/a.toml", ".continue/mcpServers/sub/a.yaml", ".continue/config.yaml",
		".continue/mcpServers", "agentgate.lock.tmp", "agentgate.tomlx", "docs/agentgate.toml",
		"agentgateXlock", ".mcpXjson", "README.md",
	}
	for _, g := range config.ConfigGlobs() {
		paths = append(paths, strings.ReplaceAll(g, "*", "server"))
	}
	for _, p := range paths {
		want := config.IsConfigPath(p) || p == "agentgate.lock"
		if got := re.MatchString(p); got != want {
			t.Errorf("files regex matches %q = %v, but config.IsConfigPath (or the lockfile) says %v", p, got, want)
		}
	}
}

// requirePreCommit returns the pre-commit executable, skipping the test
// when it is absent, except under CI=true, where its absence fails.
func requirePreCommit(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("pre-commit")
	if err == nil {
		return p
	}
	testenv.Missing(t, fmt.Sprintf("pre-commit is not installed (%v); install the pre-commit framework: sudo apt-get install -y pre-commit (scripts/test.sh does it)", err))
	return ""
}

// snapshotCheckout commits this checkout's working tree (tracked and
// untracked, not ignored files, but see skipInSnapshot) into a new repository and returns it, so
// that pre-commit builds exactly the code under test. try-repo on the
// checkout itself would build HEAD plus tracked changes only: its own
// snapshot of uncommitted work ("git add -u") leaves untracked files out.
func snapshotCheckout(t *testing.T) string {
	t.Helper()
	root := testenv.RepoRoot(t)
	list := routeGit(t, root, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	snap := routeNewRepo(t)
	for _, rel := range strings.Split(strings.TrimRight(list, "\x00"), "\x00") {
		if skipInSnapshot(rel) {
			continue
		}
		src := filepath.Join(root, filepath.FromSlash(rel))
		fi, err := os.Lstat(src)
		if errors.Is(err, os.ErrNotExist) {
			continue // deleted in the work tree
		}
		if err != nil {
			t.Fatal(err)
		}
		if !fi.Mode().IsRegular() {
			continue
		}
		dst := filepath.Join(snap, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := copyFile(src, dst, fi.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	routeGit(t, snap, "add", "-A")
	routeGit(t, snap, "commit", "-q", "--no-verify", "-m", "snapshot of the checkout under test")
	return snap
}

// skipInSnapshot reports whether the slash path rel plays no part in
// `go install ./...`: anything under a testdata or node_modules directory
// (the go command ignores testdata; npm trees can hold thousands of files).
func skipInSnapshot(rel string) bool {
	for _, part := range strings.Split(rel, "/") {
		if part == "testdata" || part == "node_modules" {
			return true
		}
	}
	return false
}

func copyFile(src, dst string, perm os.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// goEnv returns `go env NAME`.
func goEnv(t *testing.T, name string) string {
	t.Helper()
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		t.Fatalf("go env %s: %v", name, err)
	}
	return strings.TrimSpace(string(out))
}

// preCommitTryRepo returns a function running 'pre-commit try-repo SNAP
// ARGS...' in repo with env: its exit code and combined output.
func preCommitTryRepo(t *testing.T, precommit, snap, repo string, env []string) func(args ...string) (int, string) {
	return func(args ...string) (int, string) {
		t.Helper()
		cmd := exec.Command(precommit, append([]string{"try-repo", snap}, args...)...)
		cmd.Dir, cmd.Env = repo, env
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		switch {
		case errors.As(err, &ee):
			return ee.ExitCode(), string(out)
		case err != nil:
			t.Fatalf("pre-commit try-repo: %v\n%s", err, out)
		}
		return 0, string(out)
	}
}

// routeLockDemo configures the demo server (agentgate demo-server of bin)
// in repo's .mcp.json, locks it and commits both files.
func routeLockDemo(t *testing.T, repo, bin string) {
	t.Helper()
	routeWrite(t, repo, ".mcp.json", routeDemoConfig(bin, ""))
	if code, stdout, stderr := routeRun(t, repo, "lock"); code != ExitOK {
		t.Fatalf("lock: exit %d\n%s%s", code, stdout, stderr)
	}
	routeGit(t, repo, "add", ".mcp.json", "agentgate.lock")
	routeGit(t, repo, "commit", "-q", "-m", "pin the notes server")
}

// TestPreCommitFramework runs both hooks with the real pre-commit
// framework (`pre-commit try-repo`), which builds agentgate from a snapshot
// of this checkout with `go install ./...` and runs it in a test
// repository whose server is agentgate's demo server.
func TestPreCommitFramework(t *testing.T) {
	precommit := requirePreCommit(t)
	routeIsolateGit(t)
	bin := routeAgentgate(t)
	snap := snapshotCheckout(t)

	home, tmp := t.TempDir(), t.TempDir()
	// pre-commit builds with the machine's module and build caches, offline,
	// with the local toolchain; try-repo's store lives in TMPDIR.
	env := append(os.Environ(),
		"PRE_COMMIT_HOME="+home, "TMPDIR="+tmp,
		"GOMODCACHE="+goEnv(t, "GOMODCACHE"), "GOCACHE="+goEnv(t, "GOCACHE"),
		"GOFLAGS=-mod=mod", "GOTOOLCHAIN=local", "GOPROXY=off", "GOSUMDB=off",
		"PRE_COMMIT_COLOR=never", "NO_COLOR=1",
	)
	repo := routeNewRepo(t)
	tryRepo := preCommitTryRepo(t, precommit, snap, repo, env)

	routeLockDemo(t, repo, bin)
	locked := routeGit(t, repo, "show", "HEAD:agentgate.lock")

	// 1. In sync: both hooks pass on every file.
	code, out := tryRepo("--all-files")
	if code != 0 || !regexp.MustCompile(`agentgate \(MCP tool surface\)\.+Passed`).MatchString(out) ||
		!regexp.MustCompile(`agentgate verify \(offline\)\.+Passed`).MatchString(out) {
		t.Fatalf("in sync: exit %d, want 0 with both hooks Passed:\n%s", code, out)
	}

	// 2. A staged config change that rewords a tool: the live hook fails,
	// shows the new description, and writes the regenerated lockfile.
	rugpull := filepath.Join(t.TempDir(), "rugpull")
	if err := os.WriteFile(rugpull, []byte("on\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	routeWrite(t, repo, ".mcp.json", routeDemoConfig(bin, rugpull))
	routeGit(t, repo, "add", ".mcp.json")
	code, out = tryRepo("agentgate")
	if code != 1 || !regexp.MustCompile(`agentgate \(MCP tool surface\)\.+Failed`).MatchString(out) ||
		!strings.Contains(out, "exit code: 1") || !strings.Contains(out, "search_notes") ||
		!strings.Contains(out, "read ~/.ssh/id_rsa") || !strings.Contains(out, "git add agentgate.lock") {
		t.Fatalf("surface changed: exit %d, want 1 with the live hook Failed (exit code 1), the new description and what to stage:\n%s", code, out)
	}
	regenerated, err := os.ReadFile(filepath.Join(repo, "agentgate.lock"))
	if err != nil {
		t.Fatal(err)
	}
	if string(regenerated) == locked {
		t.Fatalf("the live hook did not write a regenerated lockfile:\n%s", out)
	}
	routeGit(t, repo, "add", "agentgate.lock")

	// 3. With the regenerated lockfile staged: passes.
	code, out = tryRepo("agentgate")
	if code != 0 || !regexp.MustCompile(`agentgate \(MCP tool surface\)\.+Passed`).MatchString(out) {
		t.Fatalf("regenerated lockfile staged: exit %d, want 0 with the live hook Passed:\n%s", code, out)
	}
	routeGit(t, repo, "commit", "-q", "--no-verify", "-m", "update the notes server")

	// 4. A server added to the config but not locked: the offline hook fails
	// and names it, without starting anything.
	routeWrite(t, repo, ".mcp.json", `{"mcpServers": {"notes": {"command": `+routeQuote(bin)+
		`, "args": ["demo-server", "--rugpull-file", `+routeQuote(rugpull)+`]}, "unlocked": {"command": "/nonexistent/server"}}}`)
	routeGit(t, repo, "add", ".mcp.json")
	code, out = tryRepo("agentgate-verify")
	if code != 1 || !regexp.MustCompile(`agentgate verify \(offline\)\.+Failed`).MatchString(out) ||
		!strings.Contains(out, "unlocked") {
		t.Fatalf("unlocked server: exit %d, want 1 with the verify hook Failed naming the server:\n%s", code, out)
	}

	// 5. The live hook starts only what the commit changes (issue #18): the
	// new server, which cannot start (exit 3), not the unchanged notes.
	starts := func(step string) {
		t.Helper()
		code, out := tryRepo("agentgate")
		if code != 1 || !strings.Contains(out, "agentgate: captured unlocked (new)") ||
			!strings.Contains(out, "agentgate: not started: notes (unchanged;") || !strings.Contains(out, "exit code: 3") {
			t.Fatalf("%s: exit %d, want 1 (the hook exits 3) with only the new server started:\n%s", step, code, out)
		}
	}
	starts("a server added")

	// 6. The same with the work tree's copy reverted (issue #17 item 12):
	// the staged config is what the commit records, as with the native hook.
	routeWrite(t, repo, ".mcp.json", routeGit(t, repo, "show", "HEAD:.mcp.json"))
	starts("a server added, work tree reverted")
}

// TestPreCommitInstallKeepsNativeHook: `pre-commit install` in a
// repository where `agentgate install` wrote the native hook moves that
// hook to pre-commit.legacy and runs it as well (its "migration mode"),
// as docs/ROUTES.md says; `pre-commit install -f` would replace it.
func TestPreCommitInstallKeepsNativeHook(t *testing.T) {
	precommit := requirePreCommit(t)
	routeIsolateGit(t)
	routeAgentgate(t)
	repo := routeNewRepo(t)
	if code, stdout, stderr := routeRun(t, repo, "install"); code != ExitOK {
		t.Fatalf("install: exit %d\n%s%s", code, stdout, stderr)
	}
	hooks := filepath.Join(repo, ".git", "hooks")
	native, err := os.ReadFile(filepath.Join(hooks, "pre-commit"))
	if err != nil || !strings.Contains(string(native), "agentgate hook") {
		t.Fatalf("native hook: %v\n%s", err, native)
	}
	routeWrite(t, repo, ".pre-commit-config.yaml", "repos: []\n")
	cmd := exec.Command(precommit, "install")
	cmd.Dir, cmd.Env = repo, append(os.Environ(), "PRE_COMMIT_HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "migration mode") {
		t.Fatalf("pre-commit install: %v\n%s", err, out)
	}
	legacy, err := os.ReadFile(filepath.Join(hooks, "pre-commit.legacy"))
	if err != nil || string(legacy) != string(native) {
		t.Fatalf("pre-commit.legacy is not agentgate's hook (%v):\n%s", err, legacy)
	}
	// A commit runs both: agentgate's hook refuses a server nobody locked.
	routeWrite(t, repo, ".mcp.json", `{"mcpServers": {"gone": {"command": "/nonexistent/server"}}}`)
	routeGit(t, repo, "add", ".mcp.json", ".pre-commit-config.yaml")
	commit := exec.Command("git", "commit", "-q", "-m", "add a server")
	commit.Dir, commit.Env = repo, cmd.Env
	out, err = commit.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "agentgate") || !strings.Contains(string(out), "gone") {
		t.Errorf("the commit did not run agentgate's legacy hook (%v):\n%s", err, out)
	}
}

// TestPreCommitSystemHooks runs the language: system hooks with the real
// pre-commit framework, with a PATH that holds agentgate and agentgate-mcp
// (this test binary under those names), git and pre-commit, but no Go: a
// user with a release binary. The live hook catches a rug pull and the
// offline hook an unlocked server.
func TestPreCommitSystemHooks(t *testing.T) {
	precommit := requirePreCommit(t)
	routeIsolateGit(t)
	bin := routeAgentgate(t)
	// A system hook builds nothing: a repository holding only this
	// checkout's .pre-commit-hooks.yaml is all pre-commit needs.
	snap := routeNewRepo(t)
	hooks, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), ".pre-commit-hooks.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	routeWrite(t, snap, ".pre-commit-hooks.yaml", string(hooks))
	routeGit(t, snap, "add", ".pre-commit-hooks.yaml")
	routeGit(t, snap, "commit", "-q", "--no-verify", "-m", "hooks")
	git, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	// pre-commit's own interpreter is on its shebang line; PATH needs only
	// agentgate's directory and git's.
	path := filepath.Dir(bin) + string(os.PathListSeparator) + filepath.Dir(git)
	for _, dir := range filepath.SplitList(path) {
		if _, err := os.Stat(filepath.Join(dir, "go")); err == nil {
			t.Fatalf("go is in %s, which the hooks' PATH needs: the test cannot show they run without Go", dir)
		}
	}
	home, tmp := t.TempDir(), t.TempDir()
	env := append(os.Environ(), "PATH="+path, "PRE_COMMIT_HOME="+home, "TMPDIR="+tmp, "PRE_COMMIT_COLOR=never", "NO_COLOR=1")
	repo := routeNewRepo(t)
	tryRepo := preCommitTryRepo(t, precommit, snap, repo, env)
	routeLockDemo(t, repo, bin)

	code, out := tryRepo("agentgate-system", "--all-files")
	if code != 0 || !regexp.MustCompile(`agentgate \(MCP tool surface\)\.+Passed`).MatchString(out) {
		t.Fatalf("in sync: exit %d, want 0 with agentgate-system Passed:\n%s", code, out)
	}
	code, out = tryRepo("agentgate-verify-system", "--all-files")
	if code != 0 || !regexp.MustCompile(`agentgate verify \(offline\)\.+Passed`).MatchString(out) {
		t.Fatalf("in sync: exit %d, want 0 with agentgate-verify-system Passed:\n%s", code, out)
	}

	rugpull := filepath.Join(t.TempDir(), "rugpull")
	if err := os.WriteFile(rugpull, []byte("on\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	routeWrite(t, repo, ".mcp.json", routeDemoConfig(bin, rugpull))
	routeGit(t, repo, "add", ".mcp.json")
	code, out = tryRepo("agentgate-system")
	if code != 1 || !strings.Contains(out, "exit code: 1") || !strings.Contains(out, "read ~/.ssh/id_rsa") {
		t.Fatalf("rug pull: exit %d, want 1 with the new description:\n%s", code, out)
	}
	routeGit(t, repo, "checkout", "--", "agentgate.lock")
	routeWrite(t, repo, ".mcp.json", `{"mcpServers": {"notes": {"command": `+routeQuote(bin)+`, "args": ["demo-server"]}, "unlocked": {"command": "/nonexistent/server"}}}`)
	routeGit(t, repo, "add", ".mcp.json")
	code, out = tryRepo("agentgate-verify-system")
	if code != 1 || !strings.Contains(out, "unlocked") {
		t.Fatalf("unlocked server: exit %d, want 1 naming it:\n%s", code, out)
	}
}
