package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentgate/agentgate/internal/testing/fakehttp"
	"github.com/agentgate/agentgate/internal/testing/fakeserver"
)

// No secret printed: secrets sit in a stdio server's env (and, through an
// argument, in what the server prints on stderr), in an HTTP server's
// header, URL userinfo and query string. Every command runs in its
// success, drift and failure paths; no secret (as written, URL-escaped,
// JSON-escaped, or as its SHA-256) may appear in stdout, stderr or the
// lockfile.

var hostileSecrets = map[string]string{
	"HOSTILE_ENV_SECRET":    "env-secret-9c2e1f",
	"HOSTILE_HEADER_SECRET": "header<secret>4d7a0b", // JSON-escaped by Go as \u003c
	"HOSTILE_USER_PASS":     "userinfo-pass-3e8c5d",
	"HOSTILE_QUERY_SECRET":  "query-secret.6f1b2a",
}

// secretForms are the ways a secret could leak.
func secretForms() map[string]string {
	forms := map[string]string{}
	for k, v := range hostileSecrets {
		j, _ := json.Marshal(v)
		sum := sha256.Sum256([]byte(v))
		for _, f := range []string{v, url.QueryEscape(v), url.PathEscape(v), string(j[1 : len(j)-1]), hex.EncodeToString(sum[:])} {
			forms[f] = k
		}
	}
	return forms
}

func assertNoSecret(t *testing.T, what, text string) {
	t.Helper()
	for f, k := range secretForms() {
		if strings.Contains(text, f) {
			t.Errorf("%s shows %s (as %q):\n%s", what, k, f, text)
		}
	}
}

// secretHTTPServer is the fake over streamable HTTP, checking the
// credentials; when failing is set it answers 401 with a body and a header
// that echo every credential it received.
func secretHTTPServer(t *testing.T, failing *atomic.Bool) string {
	fake := fakehttp.Handler(fakeserver.Options{Tools: []json.RawMessage{
		json.RawMessage(`{"name":"fetch","description":"Fetch a URL.","inputSchema":{"type":"object"}}`)}})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, pass, _ := r.BasicAuth()
		echo := fmt.Sprintf("auth=%q user=%q pass=%q url=%q", r.Header.Get("Authorization"), user, pass, r.URL.String())
		if failing.Load() {
			io.Copy(io.Discard, r.Body)
			w.Header().Set("WWW-Authenticate", "Bearer realm="+r.URL.RawQuery)
			http.Error(w, "denied: "+echo, http.StatusUnauthorized)
			return
		}
		if r.Header.Get("X-Api-Key") != hostileSecrets["HOSTILE_HEADER_SECRET"] ||
			r.URL.Query().Get("token") != hostileSecrets["HOSTILE_QUERY_SECRET"] {
			http.Error(w, "bad credentials: "+echo, http.StatusForbidden)
			return
		}
		fake.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL)
	return "http://mcpuser:${HOSTILE_USER_PASS}@" + u.Host + "/mcp?token=${HOSTILE_QUERY_SECRET}"
}

func TestHostileNoSecretPrinted(t *testing.T) {
	var failing atomic.Bool
	remoteURL := secretHTTPServer(t, &failing)
	servers := func(stdioArgs ...string) map[string]any {
		local := fakeServer(append([]string{"-tools", "notes.json", "-rugpull-file", "rugpull", "-rugpull-tool", "search_notes"}, stdioArgs...)...)
		local["env"].(map[string]string)["API_KEY"] = "${HOSTILE_ENV_SECRET}"
		return map[string]any{
			"local":  local,
			"remote": map[string]any{"type": "http", "url": remoteURL, "headers": map[string]string{"X-Api-Key": "${HOSTILE_HEADER_SECRET}"}},
		}
	}
	r := newRepo(t, true, servers())
	for k, v := range hostileSecrets {
		r.env[k] = v
	}
	run := func(want int, args ...string) {
		t.Helper()
		code, stdout, stderr := r.agentgate(args...)
		if code != want {
			t.Errorf("agentgate %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, want, stdout, stderr)
		}
		assertNoSecret(t, "agentgate "+strings.Join(args, " ")+" stdout", stdout)
		assertNoSecret(t, "agentgate "+strings.Join(args, " ")+" stderr", stderr)
		assertNoSecret(t, "agentgate.lock after "+strings.Join(args, " "), string(r.read("agentgate.lock")))
	}

	// Success.
	run(ExitOK, "lock")
	run(ExitOK, "verify")
	r.git("add", "-A")
	run(ExitOK, "hook")
	r.git("commit", "-q", "-m", "lock")
	run(ExitOK, "hook")
	run(ExitOK, "diff")
	run(ExitOK, "ci")
	run(ExitOK, "ci", "--format", "json")

	// Drift.
	r.write("rugpull", "")
	run(ExitDrift, "diff")
	run(ExitDrift, "ci")
	run(ExitDrift, "ci", "--format", "json")
	run(ExitDrift, "hook", "--live")
	r.git("reset", "-q")
	r.git("checkout", "--", "agentgate.lock") // hook --live wrote the drifted surface
	r.git("clean", "-fq", "rugpull")

	// Failure: the HTTP server refuses and echoes every credential; the
	// stdio server prints its secret argument to stderr and exits.
	failing.Store(true)
	r.writeConfig(servers("-stderr", "leaking ${HOSTILE_ENV_SECRET} on stderr", "-misbehave", "exit"))
	run(ExitUnverified, "lock")
	run(ExitUnverified, "diff")
	r.git("add", ".mcp.json")
	run(ExitUnverified, "hook")
	r.git("commit", "-q", "-m", "broken servers")
	run(ExitUnverified, "ci")
	run(ExitUnverified, "ci", "--format", "json")
	run(ExitOK, "verify")

	// A missing variable names the variable, never another's value.
	delete(r.env, "HOSTILE_HEADER_SECRET")
	failing.Store(false)
	run(ExitUnverified, "lock")
	code, _, stderr := r.agentgate("lock")
	if code != ExitUnverified || !strings.Contains(stderr, "HOSTILE_HEADER_SECRET") {
		t.Errorf("missing variable: exit %d, stderr does not name HOSTILE_HEADER_SECRET:\n%s", code, stderr)
	}
}
