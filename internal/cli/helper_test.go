package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/mcp/wire"
)

// Tests of the helper path: agentgate runs live captures in agentgate-mcp
// (mcp/wire). Elsewhere the helper is this test binary, which
// testscript.Main puts on PATH as agentgate-mcp (see TestMain).

// helperSecret is an env value of the server in these tests: a secret
// that must never be printed, even when the helper echoes it.
const helperSecret = "hunter2-helper-secret"

// helperRepo is a locked repository whose server has since changed its
// surface, so that a successful lock would rewrite agentgate.lock.
func helperRepo(t *testing.T) (*testRepo, []byte) {
	t.Helper()
	srv := fakeServer("-tools", "notes.json")
	srv["env"].(map[string]string)["API_TOKEN"] = helperSecret
	r := lockedRepo(t, map[string]any{"notes": srv})
	r.write("notes.json", strings.Replace(notesTools, "Create a note.", "Create a note. Changed.", 1))
	return r, r.read("agentgate.lock")
}

// helperScript writes an executable shell script standing in for
// agentgate-mcp and returns its path.
func helperScript(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "agentgate-mcp")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestHelperMissing: without agentgate-mcp, every live command is exit 3
// with the install hint, and nothing is written; the offline commands do
// not need it.
func TestHelperMissing(t *testing.T) {
	r, before := helperRepo(t)
	r.env["PATH"] = t.TempDir() // no agentgate-mcp; the test binary's directory has none either
	r.env["AGENTGATE_MCP"] = ""
	// The test binary is a devel build: the checkout's commands.
	const hint = "agentgate: hint: install agentgate and agentgate-mcp together, from one checkout, into one directory: go install ./cmd/... (or go build -o DIR/ ./cmd/..., DIR being agentgate's directory); for the latest release: go install github.com/agentgate/agentgate/cmd/...@latest\n"
	for _, args := range [][]string{{"lock"}, {"diff"}, {"ci"}} {
		code, stdout, stderr := r.agentgate(args...)
		if code != ExitUnverified {
			t.Errorf("%s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", args[0], code, ExitUnverified, stdout, stderr)
		}
		for _, w := range []string{"agentgate: error: agentgate-mcp not found (looked in ", hint,
			`server "notes" (.mcp.json:`, "could not verify: not captured: agentgate-mcp not found (looked in "} {
			if !strings.Contains(stderr, w) {
				t.Errorf("%s: stderr does not contain %q:\n%s", args[0], w, stderr)
			}
		}
		// once for the helper, once for the server (its entry stands alone)
		if strings.Count(stderr, hint) != 2 {
			t.Errorf("%s: the install hint is not printed twice:\n%s", args[0], stderr)
		}
	}
	if after := r.read("agentgate.lock"); !bytes.Equal(after, before) {
		t.Errorf("agentgate.lock changed:\n%s", after)
	}
	r.write("notes.json", notesTools)
	r.mustRun(ExitOK, "verify")
	r.mustRun(ExitOK, "version")
	r.mustRun(ExitOK, "hook") // nothing staged: the offline check

	r.env["AGENTGATE_MCP"] = filepath.Join(t.TempDir(), "agentgate-mcp")
	_, stderr := r.mustRun(ExitUnverified, "lock")
	for _, w := range []string{"AGENTGATE_MCP=" + r.env["AGENTGATE_MCP"] + ": stat ", hint, "agentgate: hint: AGENTGATE_MCP is set and names "} {
		if !strings.Contains(stderr, w) {
			t.Errorf("AGENTGATE_MCP missing: stderr does not contain %q:\n%s", w, stderr)
		}
	}
}

// TestDemoWithoutHelper: `go run ./cmd/agentgate demo` builds agentgate
// alone; the demo then stops before building anything, exit 3, saying how
// to build both.
func TestDemoWithoutHelper(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	r := newRepo(t, false, nil)
	r.env["PATH"] = t.TempDir()
	r.env["AGENTGATE_MCP"] = ""
	_, stderr := r.mustRun(ExitUnverified, "demo")
	for _, w := range []string{
		"agentgate demo: error: demo: agentgate-mcp not found (looked in ",
		"agentgate: hint: install agentgate and agentgate-mcp together, from one checkout, into one directory: go install ./cmd/... (or go build -o DIR/ ./cmd/..., DIR being agentgate's directory); for the latest release: go install github.com/agentgate/agentgate/cmd/...@latest\n",
		"agentgate: hint: from a checkout: go build -o bin/ ./cmd/... && bin/agentgate demo ('go run ./cmd/agentgate' builds agentgate alone)\n",
	} {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr does not contain %q:\n%s", w, stderr)
		}
	}
	if entries, _ := os.ReadDir(tmp); len(entries) > 0 {
		t.Errorf("the demo created %s", entries[0].Name())
	}
}

// TestHelperFailsAfterAnswering: agentgate uses a complete, valid answer
// as soon as it has read it (agentgate-mcp is then still stopping its
// servers); a helper that exits non-zero after that is reported as a
// warning once agentgate has waited for it, and the answer stands.
func TestHelperFailsAfterAnswering(t *testing.T) {
	r, _ := helperRepo(t)
	r.env["AGENTGATE_MCP"] = helperScript(t, "echo '{\"protocol\":"+strconv.Itoa(wire.ProtocolVersion)+",\"agentgate\":\"devel\"}'; head -n 1 >/dev/null; echo '{\"protocol\":"+strconv.Itoa(wire.ProtocolVersion)+",\"agentgate\":\"devel\",\"results\":[{\"toolSizes\":[]}]}'; sleep 0.2; exit 1")
	_, stderr := r.mustRun(ExitOK, "lock")
	if w := "agentgate: warning: agentgate-mcp (" + r.env["AGENTGATE_MCP"] + "): exit status 1 after answering\n"; !strings.Contains(stderr, w) {
		t.Errorf("stderr does not contain %q:\n%s", w, stderr)
	}
	if lf := r.read("agentgate.lock"); !bytes.Contains(lf, []byte(`"notes": {`)) || bytes.Contains(lf, []byte(`"create_note"`)) {
		t.Errorf("agentgate.lock does not hold the answer (notes, no tools):\n%s", lf)
	}
}

// TestHelperBroken: a helper that crashes, prints garbage, is another
// version or says nothing: exit 3 for every server, agentgate.lock
// untouched, the helper's stderr shown redacted, and a hint.
func TestHelperBroken(t *testing.T) {
	tests := []struct {
		name   string
		script string
		want   []string
	}{
		{"crash", "head -n 1 >/dev/null; echo \"panic: leaked " + helperSecret + "\" >&2; kill -SEGV $$",
			[]string{"signal: segmentation fault, and the response does not start with a JSON header: EOF",
				"agentgate:   agentgate-mcp stderr (last lines):\nagentgate:   | panic: leaked [redacted]\n",
				`could not verify: not captured: agentgate-mcp (`, "agentgate: hint: agentgate-mcp is agentgate's capture helper: if it was replaced or damaged, install agentgate and agentgate-mcp together, from one checkout, "}},
		{"garbage", "head -n 1 >/dev/null; echo 'Usage: something else'",
			[]string{"the response does not start with a JSON header: invalid character 'U'"}},
		{"silent", "exit 0", []string{"the response does not start with a JSON header: EOF"}},
		{"other version", "head -n 1 >/dev/null; echo '{\"protocol\":1,\"agentgate\":\"v0.0.1\",\"refused\":\"x\",\"results\":[]}'; exit 2",
			[]string{"agentgate devel (protocol " + strconv.Itoa(wire.ProtocolVersion) + ") and agentgate-mcp v0.0.1 (protocol 1) are different versions",
				"are different versions\nagentgate: hint: install agentgate and agentgate-mcp together, from one checkout, into one directory: go install ./cmd/... (or go build -o DIR/ ./cmd/..., DIR being agentgate's directory); for the latest release: go install github.com/agentgate/agentgate/cmd/...@latest\n"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, before := helperRepo(t)
			r.env["AGENTGATE_MCP"] = helperScript(t, tc.script)
			_, stderr := r.mustRun(ExitUnverified, "lock")
			for _, w := range append(tc.want, `agentgate: error: agentgate-mcp (`+r.env["AGENTGATE_MCP"]+`): `,
				"agentgate lock: error: agentgate.lock left unchanged: 1 of 1 server could not be captured: notes") {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr does not contain %q:\n%s", w, stderr)
				}
			}
			if strings.Contains(stderr, helperSecret) {
				t.Errorf("the secret is printed:\n%s", stderr)
			}
			if after := r.read("agentgate.lock"); !bytes.Equal(after, before) {
				t.Errorf("agentgate.lock changed:\n%s", after)
			}
		})
	}
}

// TestLeanInit keeps package initialisation of agentgate's own packages
// out of every start: `agentgate version` run with GODEBUG=inittrace=1
// must show no package of this module allocating more than 64 KB at
// init (a package-level regexp.MustCompile costs about 100 KB and 0.2 ms
// each; mcp/config's eager package-spec expressions once cost 242 KB and
// 1.5 ms, a third of `agentgate version`). Allocation counts do not depend
// on the machine's speed or load, so this is not a timing assertion.
// Expressions belong in lazyRegexp (mcp/config) or a sync.OnceValue.
func TestLeanInit(t *testing.T) {
	bin := buildAgentgate(t)
	cmd := exec.Command(bin, "version")
	cmd.Env = append(builtEnv(), "GODEBUG=inittrace=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("agentgate version: %v\n%s", err, stderr.String())
	}
	const limit = 64 << 10
	seen := 0
	for _, line := range strings.Split(stderr.String(), "\n") {
		// init github.com/agentgate/agentgate/mcp/config @4.1 ms, 1.5 ms clock, 242456 bytes, 2686 allocs
		f := strings.Fields(line)
		if len(f) < 9 || f[0] != "init" || f[8] != "bytes," {
			continue
		}
		seen++
		if !strings.HasPrefix(f[1], "github.com/agentgate/agentgate/") {
			continue
		}
		n, err := strconv.Atoi(f[7])
		if err != nil {
			t.Fatalf("inittrace line %q: %v", line, err)
		}
		if n > limit {
			t.Errorf("%s allocates %d bytes at init (limit %d): make its package-level values lazy\n%s", f[1], n, limit, line)
		}
	}
	if seen == 0 {
		t.Fatalf("no inittrace lines in agentgate version's stderr:\n%s", stderr.String())
	}
}
