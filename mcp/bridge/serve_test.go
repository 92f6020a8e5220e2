package bridge

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentgate/agentgate/mcp/config"
)

// TestMain runs this test binary as "agentgate-mcp bridge ..." when it is
// started under that name (the Inspector tests start it so).
func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) == "agentgate-mcp" && len(os.Args) > 1 && os.Args[1] == "bridge" {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		code := Serve(ctx, os.Args[2:], os.Stdin, os.Stdout, os.Stderr, os.LookupEnv)
		stop()
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// helperBin returns the path of this test binary under the name
// agentgate-mcp.
func helperBin(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "agentgate-mcp")
	if err := os.Symlink(exe, p); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestFlagsResolve(t *testing.T) {
	env := map[string]string{"TOKEN": "tok-abcdef123", "HOST": "127.0.0.1:9"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	f := Flags{URL: "http://${HOST}/mcp", Headers: []string{"Authorization: Bearer ${TOKEN}", "X-Team:${TEAM:-core}"}}
	r, err := f.Resolve("remote", t.TempDir(), lookup)
	if err != nil {
		t.Fatal(err)
	}
	if r.URL != "http://127.0.0.1:9/mcp" || r.Headers["Authorization"] != "Bearer tok-abcdef123" || r.Headers["X-Team"] != "core" {
		t.Errorf("resolved %q %v", r.URL, r.Headers)
	}
	if r.Transport != config.StreamableHTTP || !r.FallbackSSE {
		t.Errorf("no --transport: %q fallback %v, want http with the SSE fallback", r.Transport, r.FallbackSSE)
	}
	if got := redacted(r, "sent Bearer tok-abcdef123"); strings.Contains(got, "tok-abcdef123") {
		t.Errorf("the header value is not redacted: %s", got)
	}
	for tr, want := range map[string]config.Transport{"http": config.StreamableHTTP, "sse": config.SSE} {
		f := Flags{URL: "http://h/", Transport: tr}
		r, err := f.Resolve("x", t.TempDir(), lookup)
		if err != nil || r.Transport != want || r.FallbackSSE {
			t.Errorf("--transport %s: %q %v %v", tr, r.Transport, r.FallbackSSE, err)
		}
	}
	var ce *config.Error
	_, err = (&Flags{URL: "http://h/${MISSING}"}).Resolve("x", t.TempDir(), lookup)
	if !errors.As(err, &ce) || !ce.Unverifiable || !strings.Contains(err.Error(), "MISSING") {
		t.Errorf("missing variable: %v", err)
	}
	for _, f := range []Flags{{URL: "http://h/", Transport: "ws"}, {URL: "http://h/", Headers: []string{"no colon"}}, {}, {URL: "ftp://h/"},
		{URL: "http://h/", Headers: []string{"X-Key: a", "x-key: b"}}} {
		_, err := f.Resolve("x", t.TempDir(), lookup)
		if !errors.As(err, &ce) || ce.Unverifiable {
			t.Errorf("%+v: %v, want an invalid-input error", f, err)
		}
	}
}

func redacted(r config.Resolved, text string) string {
	b := &bridge{r: r}
	return b.redact(text)
}

func TestServeExitCodes(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--url", "http://h/", "--transport", "ws"}, 2, "unknown transport"},
		{[]string{"--nope"}, 2, "flag provided but not defined"},
		{[]string{"--url", "http://h/", "extra"}, 2, "unexpected argument"},
		{[]string{"--url", "http://h/${AGENTGATE_TEST_UNSET_VAR}"}, 3, "agentgate: hint: set AGENTGATE_TEST_UNSET_VAR"},
	} {
		var out, errb bytes.Buffer
		code := Serve(context.Background(), tc.args, strings.NewReader(""), &out, &errb, func(string) (string, bool) { return "", false })
		if code != tc.code || !strings.Contains(errb.String(), tc.want) || out.Len() != 0 {
			t.Errorf("%q: exit %d, want %d; stdout %q; stderr %s", tc.args, code, tc.code, out.String(), errb.String())
		}
	}
}

func TestFlagsResolveSettings(t *testing.T) {
	root := t.TempDir()
	toml := "[servers.remote]\ntimeout = \"7s\"\ncross-origin-redirects = true\n\n[servers.remote.oauth]\nclient-id = \"cid-1\"\n"
	if err := os.WriteFile(filepath.Join(root, config.SettingsFile), []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	none := func(string) (string, bool) { return "", false }
	r, err := (&Flags{URL: "http://h/"}).Resolve("remote", root, none)
	if err != nil {
		t.Fatal(err)
	}
	if r.Timeout != 7*time.Second || !r.CrossOriginRedirects || r.OAuth == nil || r.OAuth.ClientID != "cid-1" {
		t.Errorf("settings not applied: timeout %v, cross-origin %v, oauth %+v", r.Timeout, r.CrossOriginRedirects, r.OAuth)
	}
	// From a subdirectory of a work tree: the agentgate.toml at its root.
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if r, err := (&Flags{URL: "http://h/"}).Resolve("remote", sub, none); err != nil || r.Timeout != 7*time.Second {
		t.Errorf("from a subdirectory: timeout %v, %v", r.Timeout, err)
	}
	other, err := (&Flags{URL: "http://h/"}).Resolve("other", root, none)
	if err != nil || other.Timeout != 0 || other.CrossOriginRedirects || other.OAuth != nil {
		t.Errorf("another server got remote's settings: %+v %v", other, err)
	}
	if err := os.WriteFile(filepath.Join(root, config.SettingsFile), []byte("[servers.remote]\nbogus = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var ce *config.Error
	if _, err := (&Flags{URL: "http://h/"}).Resolve("remote", root, none); !errors.As(err, &ce) || ce.Unverifiable {
		t.Errorf("damaged agentgate.toml: %v", err)
	}
}

// TestWriteErrorEachWithItsHints: an agentgate.toml with several errors
// prints each on its own error line, followed by its own hint (before,
// one line with the errors joined by an escaped "\n", then every hint).
func TestWriteErrorEachWithItsHints(t *testing.T) {
	root := t.TempDir()
	toml := "timeout = \"soon\"\n[servers.remote]\nbogus = 1\n"
	if err := os.WriteFile(filepath.Join(root, config.SettingsFile), []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := (&Flags{URL: "http://h/"}).Resolve("remote", root, func(string) (string, bool) { return "", false })
	var ces config.Errors
	if !errors.As(err, &ces) || len(ces) != 2 {
		t.Fatalf("want two config errors, got %v", err)
	}
	var b bytes.Buffer
	WriteError(&b, "agentgate", err)
	var want strings.Builder
	for _, ce := range ces {
		want.WriteString("agentgate: error: " + ce.Error() + "\n")
		for _, h := range ce.Hints() {
			want.WriteString("agentgate: hint: " + h + "\n")
		}
	}
	if b.String() != want.String() || strings.Count(b.String(), "agentgate: hint: ") != 2 {
		t.Errorf("got:\n%s\nwant (two errors, each with its hint):\n%s", b.String(), want.String())
	}
	b.Reset()
	WriteError(&b, "agentgate-mcp bridge", &config.Error{File: CommandLine, Msg: "bad \x1b[2J", Hint: "fix \x1b[2J"})
	if got := b.String(); got != "agentgate-mcp bridge: error: the command line: bad \\x1b[2J\nagentgate: hint: fix \\x1b[2J\n" {
		t.Errorf("escapes: %q", got)
	}
}

// TestServeUsage: agentgate-mcp bridge run with bad usage names itself,
// says what is wrong and gives its usage as the hint (exit 2); -h is the
// usage on stdout (exit 0).
func TestServeUsage(t *testing.T) {
	const hint = "agentgate: hint: usage: agentgate-mcp bridge --url URL [--server NAME] [--header 'Name: value' ...] [--transport http|sse] (to check the server against agentgate.lock: agentgate guard --server NAME --url URL)\n"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "agentgate-mcp bridge: error: --url is required: the remote server's URL\n" + hint},
		{[]string{"--nope"}, "agentgate-mcp bridge: error: flag provided but not defined: -nope\n" + hint},
		{[]string{"--url"}, "agentgate-mcp bridge: error: flag needs an argument: -url\n" + hint},
		{[]string{"--url", "http://h/", "extra"}, "agentgate-mcp bridge: error: unexpected argument \"extra\"\n" + hint},
		{[]string{"--server", "linear"}, "agentgate-mcp bridge: error: --url is required: the remote server's URL\n" + hint},
	} {
		var out, errb bytes.Buffer
		code := Serve(context.Background(), tc.args, strings.NewReader(""), &out, &errb, func(string) (string, bool) { return "", false })
		if code != 2 || errb.String() != tc.want || out.Len() != 0 {
			t.Errorf("%q: exit %d, want 2; stdout %q; stderr:\n%s\nwant:\n%s", tc.args, code, out.String(), errb.String(), tc.want)
		}
	}
	var out, errb bytes.Buffer
	if code := Serve(context.Background(), []string{"-h"}, strings.NewReader(""), &out, &errb, nil); code != 0 ||
		!strings.HasPrefix(out.String(), "Usage: agentgate-mcp bridge --url URL [--server NAME]") || errb.Len() != 0 {
		t.Errorf("-h: exit %d; stdout %q; stderr %q", code, out.String(), errb.String())
	}
}

// TestServeLoginHint: a server that needs an OAuth login, reached by
// agentgate-mcp bridge: without --server no client config has a server
// called "bridge", so the hint says how to log in and pass --server, not
// 'agentgate auth login bridge'; with --server NAME it is 'agentgate auth
// login NAME'.
func TestServeLoginHint(t *testing.T) {
	srv := loginNeeded(t)
	t.Chdir(t.TempDir()) // no agentgate.toml
	for _, tc := range []struct {
		args        []string
		want, never string
	}{
		{[]string{"--url", srv.URL + "/mcp"},
			"log in once, in a terminal in the repository whose client config has this server: agentgate auth login NAME; then run agentgate-mcp bridge --server NAME --url URL there, which uses the stored token; or give a token: --header 'Authorization: Bearer TOKEN'",
			"agentgate auth login bridge"},
		{[]string{"--server", "linear", "--url", srv.URL + "/mcp"}, "(agentgate auth login linear)", "NAME"},
	} {
		var out, errb bytes.Buffer
		code := Serve(context.Background(), tc.args, strings.NewReader(initReq+"\n"), &out, &errb, func(string) (string, bool) { return "", false })
		both := out.String() + errb.String()
		if code != 3 || !strings.Contains(out.String(), `"id":1`) || !strings.Contains(out.String(), tc.want) || !strings.Contains(errb.String(), tc.want) || strings.Contains(both, tc.never) {
			t.Errorf("%q: exit %d, want 3; stdout:\n%s\nstderr:\n%s\nwant %q in both, never %q", tc.args, code, out.String(), errb.String(), tc.want, tc.never)
		}
	}
}
