package cli

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/internal/testing/fakehttp"
	"github.com/agentgate/agentgate/internal/testing/fakeserver"
)

// TestNoSecretInOutput: secrets configured in env values, header values,
// URL userinfo and query strings never reach stdout, stderr or the
// lockfile of lock, diff and ci (text and json), on success and failure.
func TestNoSecretInOutput(t *testing.T) {
	secrets := map[string]string{
		"AG_SECRET_ENV":    "env-s3cret-4711",
		"AG_SECRET_HEADER": "hdr-s3cret-0815",
		"AG_SECRET_STDERR": "stderr-s3cret-1234",
	}
	const (
		userinfo = "urluser-s3cret:urlpass-s3cret"
		query    = "qry-s3cret-9999"
	)
	all := []string{userinfo, "urluser-s3cret", "urlpass-s3cret", query}
	for _, v := range secrets {
		all = append(all, v)
	}

	var gotAuth []string
	srv := httptest.NewServer(fakehttp.Handler(fakeserver.Options{
		Tools: loadTools(t, notesTools),
		OnMessage: func(_ string, h map[string][]string) {
			gotAuth = append(gotAuth, http.Header(h).Get("Authorization"))
		},
	}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	httpURL := "http://" + userinfo + "@" + u.Host + "/mcp?token=" + query
	// a closed port: the connection is refused, and the error names the URL
	closed := httptest.NewServer(http.NotFoundHandler())
	deadURL := "http://" + userinfo + "@" + strings.TrimPrefix(closed.URL, "http://") + "/mcp?token=" + query
	closed.Close()

	stdio := map[string]any{
		"command": os.Args[0], "args": []string{"-tools", "notes.json"},
		"env": map[string]string{"AGENTGATE_FAKESERVER": "1", "API_KEY": "${AG_SECRET_ENV}"},
	}
	remote := map[string]any{"type": "http", "url": httpURL,
		"headers": map[string]string{"Authorization": "Bearer ${AG_SECRET_HEADER}", "X-Api-Key": "${AG_SECRET_ENV}"}}
	failing := map[string]any{
		"command": os.Args[0], "args": []string{"-misbehave", "exit", "-stderr", "${AG_SECRET_STDERR} ${AG_SECRET_ENV}"},
		"env": map[string]string{"AGENTGATE_FAKESERVER": "1", "API_KEY": "${AG_SECRET_ENV}"},
	}
	deadRemote := map[string]any{"type": "http", "url": deadURL,
		"headers": map[string]string{"Authorization": "Bearer ${AG_SECRET_HEADER}"}}

	r := newRepo(t, true, map[string]any{"local": stdio, "remote": remote})
	for k, v := range secrets {
		r.env[k] = v
	}
	var outputs []string
	runs := func(want int, args ...string) {
		t.Helper()
		stdout, stderr := r.mustRun(want, args...)
		outputs = append(outputs, strings.Join(args, " ")+"\n"+stdout+stderr)
	}
	runs(ExitOK, "lock")
	r.commitAll()
	runs(ExitOK, "diff")
	runs(ExitOK, "ci")
	runs(ExitOK, "ci", "--format", "json")
	runs(ExitOK, "hook", "--live")

	// failure paths: a server printing secrets on stderr, an unreachable URL
	r.writeConfig(map[string]any{"local": failing, "remote": deadRemote})
	r.commitAll()
	runs(ExitUnverified, "lock")
	runs(ExitUnverified, "diff")
	runs(ExitUnverified, "ci")
	runs(ExitUnverified, "ci", "--format", "json")
	runs(ExitUnverified, "hook", "--live")
	// drift plus failure
	r.writeConfig(map[string]any{"local": failing, "remote": remote, "extra": stdio})
	runs(ExitDrift, "diff")
	runs(ExitDrift, "ci", "--format", "json")

	if len(gotAuth) == 0 || gotAuth[0] != "Bearer "+secrets["AG_SECRET_HEADER"] {
		t.Fatalf("the HTTP server did not receive the configured header (got %q): the test would prove nothing", gotAuth)
	}
	// the failing server really printed the secret: it must be redacted
	if !strings.Contains(strings.Join(outputs, ""), "[redacted]") {
		t.Errorf("no [redacted] in any output: the failing server's stderr was not shown")
	}
	lockfile := string(r.read("agentgate.lock"))
	for _, s := range all {
		for _, out := range outputs {
			if strings.Contains(out, s) {
				t.Errorf("secret %q printed by agentgate %s", s, out)
			}
		}
		if strings.Contains(lockfile, s) {
			t.Errorf("secret %q in the lockfile", s)
		}
	}
}

func loadTools(t *testing.T, s string) []json.RawMessage {
	var tools []json.RawMessage
	if err := json.Unmarshal([]byte(s), &tools); err != nil {
		t.Fatal(err)
	}
	return tools
}
