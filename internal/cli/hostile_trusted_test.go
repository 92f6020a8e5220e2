package cli

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentgate/agentgate/internal/check"
)

// Untrusted repositories: with a trusted revision, a pull request cannot
// make agentgate start a command that revision does not define.

// trustedRepo is a repository whose main branch defines four servers, and
// a branch "pr" (checked out) that changes three of them and adds one.
// Every fake logs to logDir/<server>.log, so a test can tell which
// started.
func trustedRepo(t *testing.T) (r *testRepo, logDir string) {
	logDir = t.TempDir()
	logged := func(name string, args ...string) map[string]any {
		return fakeServer(append([]string{"-log", filepath.Join(logDir, name+".log"), "-tools", "notes.json"}, args...)...)
	}
	script := func(name string) map[string]any {
		return map[string]any{"command": "sh", "args": []string{"./server.sh", filepath.Join(logDir, name+".log")},
			"env": map[string]string{"AGENTGATE_FAKESERVER": "1"}}
	}
	r = newRepo(t, true, map[string]any{
		"same":   logged("same"),
		"args":   logged("args"),
		"script": script("script"),
		"other":  logged("other"),
	})
	r.write("server.sh", "exec \""+os.Args[0]+"\" -log \"$1\" -tools notes.json\n")
	r.mustRun(ExitOK, "lock")
	r.commitAll()
	r.git("checkout", "-q", "-b", "pr")
	r.writeConfig(map[string]any{
		"same":   logged("same"),
		"args":   logged("args", "-stderr", "pwned"),
		"script": script("script"),
		"other":  logged("other"),
		"added":  logged("added"),
	})
	r.write("server.sh", "echo pwned >&2\nexec \""+os.Args[0]+"\" -log \"$1\" -tools notes.json\n")
	r.commitAll()
	logs, _ := filepath.Glob(filepath.Join(logDir, "*.log")) // from the lock on main
	for _, l := range logs {
		os.Remove(l)
	}
	return r, logDir
}

// inProcessEnv is the env testRepo.agentgate gives a command.
func inProcessEnv(r *testRepo) *env {
	return &env{
		ctx: context.Background(), stdout: io.Discard, stderr: io.Discard, dir: r.dir,
		getenv: func(k string) string { return r.env[k] },
		lookup: func(k string) (string, bool) { v, ok := r.env[k]; return v, ok },
		now:    func() time.Time { return time.Date(2026, 8, 3, 12, 0, 0, 0, time.UTC) },
		isTTY:  func(io.Writer) bool { return false },
	}
}

func TestHostileTrustFilter(t *testing.T) {
	r, _ := trustedRepo(t)
	ws, err := openWorkspace(inProcessEnv(r), true, true, "", "ci")
	if err != nil {
		t.Fatal(err)
	}
	ok, refused, _, err := check.TrustFilter(inProcessEnv(r).engine(), ws, "main", ws.Project.Servers)
	if err != nil {
		t.Fatal(err)
	}
	var started []string
	for _, s := range ok {
		started = append(started, s.Name)
	}
	if strings.Join(started, " ") != "other same" {
		t.Errorf("trusted %q, want other and same", started)
	}
	want := map[string]string{
		"added":  `no enabled server "added" at main`,
		"args":   `its definition differs from the one at main (field "args")`,
		"script": "it uses server.sh, which differs from main",
	}
	if len(refused) != len(want) {
		t.Errorf("refused %+v", refused)
	}
	for _, f := range refused {
		if !strings.Contains(f.Msg, want[f.Server]) || f.Class != check.Unverified || !strings.HasPrefix(f.File, ".mcp.json:") || len(f.Hints) == 0 {
			t.Errorf("server %q: %+v, want a class-3 failure saying %q", f.Server, f, want[f.Server])
		}
	}

	// The same definitions at the same revision: everything is trusted.
	ok, refused, _, err = check.TrustFilter(inProcessEnv(r).engine(), ws, "pr", ws.Project.Servers)
	if err != nil || len(refused) != 0 || len(ok) != len(ws.Project.Servers) {
		t.Errorf("at its own revision: trusted %d of %d, refused %+v, err %v", len(ok), len(ws.Project.Servers), refused, err)
	}

	// A revision that does not resolve is a usage error.
	if _, _, _, err := check.TrustFilter(inProcessEnv(r).engine(), ws, "origin/nope", ws.Project.Servers); exitCode(err) != ExitInvalid || !strings.Contains(err.Error(), "origin/nope") {
		t.Errorf("unknown ref: %v (exit %d)", err, exitCode(err))
	}
}

// TestHostileTrustedRefCLI runs `agentgate ci --trusted-ref main` (and
// with AGENTGATE_TRUSTED_REF; and lock and diff) on the pull request's
// checkout: exit 3, every refused server named with the reason, none of
// them ever started, the trusted ones captured, the lockfile unchanged.
func TestHostileTrustedRefCLI(t *testing.T) {
	for _, args := range [][]string{{"ci", "--trusted-ref", "main"}, {"ci"}, {"lock", "--trusted-ref", "main"}, {"diff", "--trusted-ref", "main"}} {
		r, logDir := trustedRepo(t)
		if len(args) == 1 {
			r.env[check.TrustedRefEnv] = "main"
		}
		before := r.read("agentgate.lock")
		code, stdout, stderr := r.agentgate(args...)
		if code != ExitUnverified {
			t.Fatalf("%v: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", args, code, ExitUnverified, stdout, stderr)
		}
		for _, w := range []string{
			`server "added" (.mcp.json:`, `server "args" (.mcp.json:`, `server "script" (.mcp.json:`,
			"it uses server.sh, which differs from main", "--trusted-ref main starts only servers defined identically at main",
		} {
			if !strings.Contains(stderr, w) {
				t.Errorf("%v: stderr does not contain %q:\n%s", args, w, stderr)
			}
		}
		for _, name := range []string{"added", "args", "script"} {
			if _, err := os.Stat(filepath.Join(logDir, name+".log")); err == nil {
				t.Errorf("%v: server %q was started", args, name)
			}
		}
		t.Logf("%v: stderr:\n%s", args, stderr)
		if !bytes.Equal(r.read("agentgate.lock"), before) {
			t.Errorf("%v: agentgate.lock changed", args)
		}
		for _, name := range []string{"same", "other"} {
			if b, err := os.ReadFile(filepath.Join(logDir, name+".log")); err != nil || !bytes.Contains(b, []byte("method tools/list")) {
				t.Errorf("%v: trusted server %q was not captured: %v", args, name, err)
			}
		}
	}
}
