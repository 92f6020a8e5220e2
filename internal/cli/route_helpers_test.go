package cli

// Helpers for the route tests (route_*_test.go): real git, and the real
// agentgate binary that script_test.go's TestMain puts on PATH.

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// routeAgentgate is the agentgate command testscript.Main installed on PATH
// (a copy of this test binary that runs cli.Main). It points
// selfExecutable at it for the test, so that install and demo write its
// path, not the test binary's.
func routeAgentgate(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("agentgate")
	if err != nil {
		t.Fatalf("agentgate is not on PATH: %v (script_test.go's TestMain registers it with testscript.Main)", err)
	}
	old := selfExecutable
	selfExecutable = func() (string, error) { return bin, nil }
	t.Cleanup(func() { selfExecutable = old })
	return bin
}

// routeIsolateGit makes git ignore the machine's configuration (a global
// core.hooksPath would move the hooks) and gives commits an identity.
func routeIsolateGit(t *testing.T) {
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	for _, k := range []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR"} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
	t.Setenv("GIT_AUTHOR_NAME", "Route Test")
	t.Setenv("GIT_AUTHOR_EMAIL", "route@example.invalid")
	t.Setenv("GIT_COMMITTER_NAME", "Route Test")
	t.Setenv("GIT_COMMITTER_EMAIL", "route@example.invalid")
}

// routeGit runs git in dir and returns its stdout; it fails the test on a
// non-zero exit.
func routeGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, errOut, err := routeGitTry(dir, args...)
	if err != nil {
		t.Fatalf("git %s in %s: %v\n%s%s", strings.Join(args, " "), dir, err, out, errOut)
	}
	return out
}

// routeGitTry runs git in dir and returns stdout, stderr and the error.
func routeGitTry(dir string, args ...string) (string, string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return stdout.String(), stderr.String(), err
}

// routeNewRepo creates an empty repository in a new temporary directory and
// returns its path with symlinks resolved (git reports resolved paths).
func routeNewRepo(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	routeGit(t, dir, "init", "-q", "-b", "main")
	return dir
}

// routeWrite writes data to dir/rel, creating directories.
func routeWrite(t *testing.T, dir, rel, data string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// routeDemoConfig is a .mcp.json whose server "notes" is bin's demo-server,
// rug-pulled while rugpull exists ("" for never).
func routeDemoConfig(bin, rugpull string) string {
	args := `["demo-server"]`
	if rugpull != "" {
		args = `["demo-server", "--rugpull-file", ` + routeQuote(rugpull) + `]`
	}
	return `{"mcpServers": {"notes": {"command": ` + routeQuote(bin) + `, "args": ` + args + `}}}` + "\n"
}

func routeQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// routeRun runs agentgate in-process in dir and returns its exit code, stdout
// and stderr.
func routeRun(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	e := &env{
		ctx: context.Background(), stdout: &stdout, stderr: &stderr, dir: dir,
		getenv: os.Getenv, lookup: os.LookupEnv,
		now:   func() time.Time { return time.Date(2026, 8, 3, 12, 0, 0, 0, time.UTC) },
		isTTY: func(io.Writer) bool { return false },
	}
	code := run(e, args)
	return code, stdout.String(), stderr.String()
}
