package cli

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"
)

// Progress: when stderr is a terminal, lock (and every command that starts
// servers) writes a line per server and state, with the elapsed time, to
// stderr; otherwise (a pipe, a file, CI logs) it writes none.

// agentgateTTY runs agentgate in-process in r.dir like r.agentgate, with
// isTTY deciding which writers count as terminals.
func (r *testRepo) agentgateTTY(isTTY func(stdout, stderr, w io.Writer) bool, args ...string) (int, string, string) {
	r.t.Helper()
	var stdout, stderr bytes.Buffer
	lookup := func(k string) (string, bool) {
		if v, ok := r.env[k]; ok {
			return v, true
		}
		switch k {
		case "GITHUB_ACTIONS", "SOURCE_DATE_EPOCH", "AGENTGATE_TIMEOUT":
			return "", false
		case "NO_COLOR":
			return "1", true // colour is not what this test is about
		}
		return os.LookupEnv(k)
	}
	e := &env{
		ctx: context.Background(), stdout: &stdout, stderr: &stderr, dir: r.dir,
		getenv: func(k string) string { v, _ := lookup(k); return v },
		lookup: lookup,
		now:    func() time.Time { return time.Date(2026, 8, 3, 12, 0, 0, 0, time.UTC) },
		isTTY:  func(w io.Writer) bool { return isTTY(&stdout, &stderr, w) },
	}
	code := run(e, args)
	return code, stdout.String(), stderr.String()
}

// progressLine matches any progress line (see mcp/capture's progress).
var progressLine = regexp.MustCompile(`(?m)^agentgate: [^ ]+: (starting|initializing|listing tools|done|failed)\b.*\(\d+\.\ds\)$`)

func TestProgressOnTerminalOnly(t *testing.T) {
	servers := map[string]any{"notes": fakeServer("-tools", "notes.json"), "down": downServer()}
	tests := []struct {
		name  string
		isTTY func(stdout, stderr, w io.Writer) bool
		want  []string // regexps stderr must match; none means no progress at all
	}{
		{name: "stderr a terminal", isTTY: func(_, stderr, w io.Writer) bool { return w == stderr }, want: []string{
			`(?m)^agentgate: notes: starting \(0\.0s\)$`,
			`(?m)^agentgate: notes: initializing \(\d+\.\ds\)$`,
			`(?m)^agentgate: notes: listing tools \(protocol 2025-11-25\) \(\d+\.\ds\)$`,
			`(?m)^agentgate: notes: done: 2 tools \(\d+\.\ds\)$`,
			`(?m)^agentgate: down: starting \(0\.0s\)$`,
			`(?m)^agentgate: down: failed \(\d+\.\ds\)$`,
		}},
		{name: "nothing a terminal", isTTY: func(_, _, _ io.Writer) bool { return false }},
		{name: "only stdout a terminal", isTTY: func(stdout, _, w io.Writer) bool { return w == stdout }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := newRepo(t, true, servers)
			code, stdout, stderr := r.agentgateTTY(tc.isTTY, "lock", "--timeout", "30s")
			// down cannot start: lock fails either way, and says so the same way.
			if code != ExitUnverified {
				t.Fatalf("exit %d, want %d\n%s", code, ExitUnverified, stderr)
			}
			if !regexp.MustCompile(`(?m)^agentgate: error: server "down" \(\.mcp\.json:\d+\): could not verify: start: `).MatchString(stderr) {
				t.Errorf("stderr lacks the failure of down:\n%s", stderr)
			}
			if progressLine.MatchString(stdout) {
				t.Errorf("progress on stdout:\n%s", stdout)
			}
			if len(tc.want) == 0 {
				if m := progressLine.FindString(stderr); m != "" {
					t.Errorf("progress %q although stderr is not a terminal:\n%s", m, stderr)
				}
				return
			}
			for _, w := range tc.want {
				if !regexp.MustCompile(w).MatchString(stderr) {
					t.Errorf("stderr does not match %s:\n%s", w, stderr)
				}
			}
		})
	}
}

// TestIsTerminal: the real decision Main uses. A pipe and a regular file
// are not terminals; the master side of a pseudo-terminal is.
func TestIsTerminal(t *testing.T) {
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var buf bytes.Buffer
	for name, w := range map[string]io.Writer{"pipe": pw, "file": f, "buffer": &buf} {
		if isTerminal(w) {
			t.Errorf("isTerminal(%s) = true", name)
		}
	}
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal to test the positive case: %v", err)
	}
	defer ptmx.Close()
	if !isTerminal(ptmx) {
		t.Error("isTerminal(/dev/ptmx) = false")
	}
}

// TestWaitingLines (issue #26 item 3): a server that stays in one state
// past the wait threshold is named on stderr with what it waits for, off
// a terminal too (CI logs); a launcher that fetches packages is named. The
// threshold is injected (1 ms) against servers that take 2 s to answer
// initialize, so nothing here depends on how fast the machine is.
func TestWaitingLines(t *testing.T) {
	r := newRepo(t, true, nil)
	bin := filepath.Join(r.dir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	npx := filepath.Join(bin, "npx")
	if err := os.WriteFile(npx, []byte("#!/bin/sh\nexec "+strconv.Quote(os.Args[0])+" \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	slow := fakeServer("-tools", "notes.json", "-init-delay", "2s")
	viaNpx := fakeServer("-tools", "notes.json", "-init-delay", "2s")
	viaNpx["command"] = npx
	// a server name with a terminal escape is shown escaped (docs/SECURITY.md)
	r.writeConfig(map[string]any{"slow": slow, "pkg": viaNpx, "e\x1b[2Jvil": fakeServer("-tools", "notes.json", "-init-delay", "2s")})
	r.waitAfter = time.Millisecond
	// Version 1: version 2 would resolve the fake "npx" package.
	_, stderr := r.mustRun(ExitOK, "lock", "--lockfile-version", "1")
	for _, w := range []string{
		`(?m)^agentgate: waiting for slow: the answer to initialize \(\d+ s\)$`,
		`(?m)^agentgate: waiting for pkg: npx is downloading or starting the package \(\d+ s\)$`,
		`(?m)^agentgate: waiting for "e\\x1b\[2Jvil": the answer to initialize \(\d+ s\)$`,
	} {
		if !regexp.MustCompile(w).MatchString(stderr) {
			t.Errorf("stderr does not match %s:\n%s", w, stderr)
		}
	}
	assertSafeText(t, "lock stderr", stderr)
	if progressLine.MatchString(stderr) {
		t.Errorf("off a terminal, state lines appeared:\n%s", stderr)
	}
}
