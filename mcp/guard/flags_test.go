package guard

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/agentgate/agentgate/internal/safetext"
	"github.com/agentgate/agentgate/lock"
	"github.com/agentgate/agentgate/mcp/config"
)

// flags_test.go: agentgate-mcp guard (Serve) and the see-through that
// reads a wrapped client config (config.Load) read the same command
// lines alike: both accept or both refuse, with the same message, and
// what they accept runs the same server.

// errNotStarted is what the recording starters return: no server runs.
var errNotStarted = errors.New("test: not started")

// serveOutcome is what Serve did with one command line.
type serveOutcome struct {
	code    int
	stderr  string
	started *config.Resolved // the server it would have started or connected to
}

// refused reports whether Serve refused the command line itself: its
// flag errors, and only those, carry guard's usage hint.
func (o serveOutcome) refused() bool {
	return strings.Contains(o.stderr, "agentgate: hint: "+config.GuardUsage+"\n")
}

// runServe runs Serve's parsing and start-up with args, in the working
// directory (which the caller set up), starting nothing.
func runServe(args []string) serveOutcome {
	var o serveOutcome
	record := func(r config.Resolved, _ io.Writer) (Upstream, error) {
		o.started = &r
		return Upstream{}, errNotStarted
	}
	remote := func(_ context.Context, r config.Resolved, stderr io.Writer) (Upstream, error) {
		return record(r, stderr)
	}
	var stderr bytes.Buffer
	o.code = serve(context.Background(), args, strings.NewReader(""), io.Discard, &stderr, remote, record)
	o.stderr = stderr.String()
	return o
}

// seeThroughOutcome is what agentgate's config reading made of a
// .mcp.json entry running "agentgate guard" with args.
type seeThroughOutcome struct {
	server  *config.Server
	refused string // the see-through's refusal (guard's message), "" if none
	err     error  // any error of Load
}

func loadWrapped(t testing.TB, dir string, args []string) seeThroughOutcome {
	t.Helper()
	entry, err := json.Marshal(map[string]any{"mcpServers": map[string]any{"n": map[string]any{
		"command": "agentgate", "args": append([]string{"guard"}, args...)}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".mcp.json"), entry, 0o644); err != nil {
		t.Fatal(err)
	}
	var o seeThroughOutcome
	p, err := config.Load(dir)
	var ce *config.Error
	if errors.As(err, &ce) && strings.Contains(ce.Msg, "is not what agentgate wrap writes") {
		// Read as intended, then refused for the options it asks guard
		// for (config's checkWrappers): how it reads is what is compared.
		p, _ = config.Inspect(dir)
		err = nil
	}
	o.err = err
	const refusal = "agentgate guard would refuse it: "
	if errors.As(err, &ce) && ce.Server == "n" && ce.Field == "args" && strings.HasPrefix(ce.Msg, refusal) {
		o.refused = strings.TrimPrefix(ce.Msg, refusal)
	}
	if err == nil {
		if len(p.Servers) != 1 {
			t.Fatalf("%q: Load read %d servers", args, len(p.Servers))
		}
		o.server = &p.Servers[0]
	}
	return o
}

// guardDir is a directory holding agentgate.lock, which locks server "s"
// (testdata/tools.json), and is the working directory for the test.
func guardDir(t testing.TB, chdir func(string)) string {
	t.Helper()
	dir := t.TempDir()
	_, defs, err := lock.DecodeServer(lock.Version1, loadTools(t))
	if err != nil {
		t.Fatal(err)
	}
	srv, err := lock.BuildServer(lock.Version1, defs, lock.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	lf := lock.New(lock.Version1, map[string]lock.Server{"s": srv}, lock.Stamp{By: "test", At: time.Unix(0, 0)}, nil)
	if err := os.WriteFile(filepath.Join(dir, lock.FileName), lock.Format(lf), 0o644); err != nil {
		t.Fatal(err)
	}
	chdir(dir)
	return dir
}

// checkAgree feeds args to both and fails t where they disagree.
func checkAgree(t testing.TB, dir string, args []string) (accepted bool) {
	t.Helper()
	o := runServe(args)
	st := loadWrapped(t, dir, args)
	switch {
	case st.refused != "":
		// Refused by both, with the same message.
		if !o.refused() || o.code != ExitInvalid || o.started != nil ||
			!strings.HasPrefix(o.stderr, "agentgate: error: "+safetext.VisibleLine(st.refused)+"\n") {
			t.Errorf("%q: the see-through refuses it (%s); guard: exit %d, stderr:\n%s", args, st.refused, o.code, o.stderr)
		}
		return false
	case o.refused():
		t.Errorf("%q: guard refuses it (exit %d):\n%sthe see-through reads it (error %v)", args, o.code, o.stderr, st.err)
		return false
	case st.err != nil:
		// A later check (the URL, say) that is not about guard's flags:
		// guard must not start it either.
		if o.started != nil && o.started.URL == "" {
			t.Errorf("%q: the config does not load (%v), guard starts %q", args, st.err, o.started.Command)
		}
		return true
	}
	g := st.server.Guard
	if g == nil {
		t.Fatalf("%q: the see-through kept no Guard", args)
	}
	if !g.AllowUnlocked && (g.Server != "s" || g.Lockfile != "") {
		// Guard stops at the lockfile (none, or no entry): its flags
		// passed, it starts nothing.
		if o.started != nil || o.code != ExitInvalid || !strings.Contains(o.stderr, "lock") {
			t.Errorf("%q: server %q, lockfile %q: guard exit %d, started %v\n%s", args, g.Server, g.Lockfile, o.code, o.started, o.stderr)
		}
		return true
	}
	if st.server.Transport == config.Stdio {
		if o.started == nil || o.started.Command != st.server.Command || !slices.Equal(o.started.Args, st.server.Args) {
			t.Errorf("%q: the see-through reads %q %q; guard: exit %d, started %+v\n%s", args, st.server.Command, st.server.Args, o.code, o.started, o.stderr)
		}
		return true
	}
	// Remote: both resolve the server as capture does.
	r, err := (&config.Project{Root: dir}).Resolve(*st.server, func(string) (string, bool) { return "", false })
	if (err == nil) != (o.started != nil) {
		t.Errorf("%q: the see-through resolves it (%v); guard: exit %d, started %v\n%s", args, err, o.code, o.started, o.stderr)
		return true
	}
	if err == nil && (r.URL != o.started.URL || r.Transport != o.started.Transport || r.FallbackSSE != o.started.FallbackSSE ||
		!mapsEqual(r.Headers, o.started.Headers)) {
		t.Errorf("%q: the see-through reads %s %s %v %v; guard %s %s %v %v", args, r.URL, r.Transport, r.FallbackSSE, r.Headers,
			o.started.URL, o.started.Transport, o.started.FallbackSSE, o.started.Headers)
	}
	return true
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// guardArgvTable are command lines guard accepts (true) and refuses.
var guardArgvTable = []struct {
	args []string
	ok   bool
}{
	{[]string{"--server", "s", "--", "node", "srv.js"}, true},
	{[]string{"--server", "s", "--max-tools", "50", "--max-listing-bytes", "100000", "--ignore-member", "_meta", "--", "node"}, true},
	{[]string{"-server=s", "-max-tools=50", "--max-listing-bytes=1e3", "--", "node"}, false},
	{[]string{"--server=s", "--allow-unlocked=1", "--on-drift=warn", "--", "node"}, true},
	{[]string{"--server", "s", "--allow-unlocked", "true", "--", "node"}, true}, // "true" is the command
	{[]string{"--server", "s", "node", "--", "x"}, true},
	{[]string{"--server", "s", "--", "node", "--", "--url", "u"}, true},
	{[]string{"--server", "t", "--server", "s", "--", "node"}, true},
	{[]string{"--server", "s", "--lockfile", "other.lock", "--", "node"}, true},
	{[]string{"--server", "x", "--allow-unlocked", "--", "node"}, true},
	{[]string{"--server", "s", "--allow-unpinned-package", "--", "node"}, true},
	{[]string{"--server", "s", "--allow-unpinned-package=nope", "--", "node"}, false},
	{[]string{"--server", "s", "--url", "http://127.0.0.1:1/mcp", "--header", "A: 1", "--header", "B:2", "--transport", "http"}, true},
	{[]string{"--server", "s", "--url", "http://127.0.0.1:1/sse", "--transport=sse"}, true},
	{[]string{"--server", "s", "--url", "http://127.0.0.1:1/mcp"}, true},
	{[]string{"--server", "s", "--url", "not a url"}, true}, // flags pass; resolving fails in both
	{[]string{"--server", "s", "--header", "A: 1", "--", "node"}, false},
	{[]string{"--server", "s", "--transport", "sse", "--", "node"}, false},
	{[]string{"--server", "s", "--url", "http://h/", "--", "node"}, false},
	{[]string{"--server", "s", "--url", "http://h/", "--header", "A: 1", "--header", "a: 2"}, false},
	{[]string{"--server", "s", "--url", "http://h/", "--header", "nocolon"}, false},
	{[]string{"--server", "s", "--url", "http://h/", "--transport", "ws"}, false},
	{[]string{"--server", "s", "--allow-unlocked=yes", "--", "node"}, false},
	{[]string{"--server", "s", "--max-tools", "-3", "--", "node"}, false},
	{[]string{"--server", "s", "--ignore-member", ".x", "--", "node"}, false},
	{[]string{"--server", "s", "--on-drift", "ignore", "--", "node"}, false},
	{[]string{"--server", "s", "--bogus", "--", "node"}, false},
	{[]string{"---server", "s", "--", "node"}, false},
	{[]string{"--server", "s", "-h"}, false},
	{[]string{"--server", "s", "--help", "--", "node"}, false},
	{[]string{"--server", "s"}, false},
	{[]string{"--server", "s", "--"}, false},
	{[]string{"--server", "s", "", "node"}, false},
	{[]string{"--", "node"}, false},
	{[]string{"--server"}, false},
	{nil, false},
}

// TestFlagsAgreeWithSeeThrough: the table's command lines, accepted and
// refused, through Serve and through config.Load's see-through.
func TestFlagsAgreeWithSeeThrough(t *testing.T) {
	dir := guardDir(t, t.Chdir)
	for _, tt := range guardArgvTable {
		if got := checkAgree(t, dir, tt.args); got != tt.ok {
			t.Errorf("%q: accepted %v, want %v", tt.args, got, tt.ok)
		}
	}
	// The --on-drift modes the command line takes are guard's Modes.
	if want := []string{string(Withhold), string(Block), string(Warn)}; !slices.Equal(config.OnDriftModes, want) {
		t.Errorf("config.OnDriftModes = %q, guard's modes are %q", config.OnDriftModes, want)
	}
}

// FuzzFlagsAgreeWithSeeThrough: any command line (its arguments split at
// NUL) is read alike by Serve and by the see-through. Inputs with "$"
// (which the client expands before guard runs) or that are not UTF-8
// (which JSON cannot carry) are skipped.
func FuzzFlagsAgreeWithSeeThrough(f *testing.F) {
	// Not f.Chdir, which the fuzzing engine's workers do not survive:
	// each input changes into dir (t.Chdir, undone after it).
	dir := guardDir(f, func(string) {})
	for _, tt := range guardArgvTable {
		f.Add(strings.Join(tt.args, "\x00"))
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.Contains(s, "$") || !utf8.ValidString(s) {
			t.Skip()
		}
		t.Chdir(dir)
		var args []string
		if s != "" {
			args = strings.Split(s, "\x00")
		}
		checkAgree(t, dir, args)
	})
}
