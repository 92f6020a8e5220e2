package cli

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/agentgate/agentgate/internal/testing/fakeserver"
	"github.com/agentgate/agentgate/internal/testing/testenv"
	"github.com/agentgate/agentgate/render"
)

// Misbehaving servers, at the CLI: `agentgate lock` against each must exit
// exactly 3, name the server and what happened, leave agentgate.lock byte
// for byte as it was, and leave no process running. Every stdio server is
// this test binary as the fake MCP server; every HTTP server is an
// httptest server in this process.

// hostileSecret is a header value that must never be printed.
const hostileSecret = "hostile-header-secret-5b1d"

// hostileToolsFile writes content as a tools file and returns its path.
func hostileToolsFile(t *testing.T, content string) string {
	p := filepath.Join(t.TempDir(), "tools.json")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// fakeLogPIDs returns the pids (server and children) a fake wrote to its
// -log file.
func fakeLogPIDs(t *testing.T, path string) []int {
	t.Helper()
	_, pids, err := fakeserver.ReadLog(path)
	if err != nil {
		t.Fatalf("the fake never started (no log %s): %v", path, err)
	}
	return pids
}

// httpServerEntry is a .mcp.json entry for a streamable-HTTP server whose
// Authorization header carries ${HOSTILE_TOKEN}.
func httpServerEntry(url string) map[string]any {
	return map[string]any{"type": "http", "url": url, "headers": map[string]string{"Authorization": "Bearer ${HOSTILE_TOKEN}"}}
}

// headerLog records the Authorization headers an HTTP server received.
type headerLog struct {
	mu   sync.Mutex
	auth []string
}

func (h *headerLog) add(r *http.Request) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.auth = append(h.auth, r.Header.Get("Authorization"))
}

func (h *headerLog) get() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.auth...)
}

func statusServer(t *testing.T, code int) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		http.Error(w, http.StatusText(code)+"\x1b[31m secret-looking body "+hostileSecret, code)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

type hostileCase struct {
	name string
	// server returns the .mcp.json entry of the server "notes"; log is a
	// file path for a stdio fake's -log.
	server func(t *testing.T, log string) map[string]any
	want   []string // substrings of stderr, besides `server "notes"`
	// stdio: the fake's -log must name at least one process, all gone.
	stdio bool
	procs int // stdio: how many processes the fake must have logged (default 1)
	check func(t *testing.T)
}

// timeout is the --timeout for the case: 2s where the case is about a
// server that never answers (its message names the 2s), and a generous 60s
// otherwise, so that a loaded machine (the cases run in parallel, one sends
// 100 MB) cannot turn an expected error into a timeout. Those other cases
// fail as soon as the server misbehaves and never wait that long.
func (tc hostileCase) timeout() string {
	for _, w := range tc.want {
		if strings.Contains(w, "within 2s") {
			return "2s"
		}
	}
	return "60s"
}

func fakeArgs(log string, args ...string) map[string]any {
	return fakeServer(append([]string{"-log", log}, args...)...)
}

func hostileCases() []hostileCase {
	notes := func(extra ...string) func(*testing.T, string) map[string]any {
		return func(t *testing.T, log string) map[string]any {
			return fakeArgs(log, append([]string{"-tools", "notes.json"}, extra...)...)
		}
	}
	toolsServer := func(tools string) func(*testing.T, string) map[string]any {
		return func(t *testing.T, log string) map[string]any {
			return fakeArgs(log, "-tools", hostileToolsFile(t, tools))
		}
	}
	redirected := &headerLog{}
	return []hostileCase{
		{name: "hangs before initialize", stdio: true, server: notes("-misbehave", "hang-init"),
			want: []string{"initialize", "did not answer within 2s"}},
		{name: "hangs mid-listing", stdio: true, server: notes("-misbehave", "hang-list", "-page-size", "1"),
			want: []string{"tools/list", "did not answer within 2s"}},
		{name: "exits at once", stdio: true, server: notes("-misbehave", "exit"),
			want: []string{"exited", "status 1"}},
		{name: "crashes mid-listing", stdio: true, server: notes("-misbehave", "crash-list", "-page-size", "1"),
			want: []string{"tools/list", "exit", "status 2", "fakeserver crashed mid-listing"}},
		{name: "non-JSON on stdout", stdio: true, server: notes("-misbehave", "garbage"),
			want: []string{"initialize", "not JSON", "did not answer within 2s"}},
		{name: "partial JSON then exit", stdio: true, server: notes("-misbehave", "partial-json"),
			want: []string{"initialize", "exit"}},
		{name: "JSON-RPC error", stdio: true, server: notes("-misbehave", "list-error"),
			want: []string{"tools/list", "JSON-RPC error -32603", "tool registry unavailable"}},
		{name: "endless fresh cursors", stdio: true, server: notes("-misbehave", "endless"),
			want: []string{"tools/list", "stopped after 1000 pages"}},
		{name: "repeated cursor", stdio: true, server: notes("-misbehave", "repeat-cursor", "-page-size", "1"),
			want: []string{"tools/list", "repeated the cursor"}},
		{name: "list result repeats tools", stdio: true, server: notes("-misbehave", "repeat-tools"),
			want: []string{"tools/list", `names the member "tools" twice`}},
		{name: "list result has tools and Tools", stdio: true, server: notes("-misbehave", "shadow-tools"),
			want: []string{"tools/list", `has both "tools" and "Tools"`}},
		{name: "list reply has result and RESULT", stdio: true, server: notes("-misbehave", "shadow-result"),
			want: []string{"tools/list", `has both "result" and "RESULT"`}},
		{name: "answers tools/list twice, the second adding a tool", stdio: true, server: notes("-misbehave", "answer-twice"),
			want: []string{"tools/list", "the server broke JSON-RPC", `answered the request with id "agentgate-tools-list-1" (tools/list) a second time`}},
		{name: "answers an id never sent", stdio: true, server: notes("-misbehave", "unsolicited"),
			want: []string{"tools/list", "the server broke JSON-RPC", "sent an answer with id 9999, which agentgate never sent"}},
		{name: "answers tools/list with the wrong id", stdio: true, server: notes("-misbehave", "wrong-id"),
			want: []string{"tools/list", "the server broke JSON-RPC", "sent an answer with id 4242, which agentgate never sent"}},
		{name: "tool without a name", stdio: true, server: toolsServer(`[{"description": "nameless"}]`),
			want: []string{"invalid tools/list reply", "tools[0]", "name"}},
		{name: "tool name not a string", stdio: true, server: toolsServer(`[{"name": 42}]`),
			want: []string{"invalid tools/list reply", "tools[0]", "name"}},
		{name: "duplicate tool name", stdio: true, server: toolsServer(`[{"name": "a"}, {"name": "a", "description": "shadow"}]`),
			want: []string{"invalid tools/list reply", `"a"`}},
		{name: "invalid UTF-8", stdio: true, server: toolsServer("[{\"name\": \"a\", \"description\": \"bad \xff\xfe byte\"}]"),
			want: []string{"invalid tools/list reply", "tools[0]", "UTF-8"}},
		{name: "100 MB description", stdio: true, server: notes("-huge-description", strconv.Itoa(100<<20)),
			want: []string{"larger than 67108864 bytes"}},
		{name: "forks a child and ignores SIGTERM", stdio: true, procs: 2,
			server: notes("-misbehave", "hang-init", "-fork-child", "-ignore-sigterm"),
			want:   []string{"initialize", "did not answer within 2s"}},
		{name: "HTTP 401", server: func(t *testing.T, _ string) map[string]any { return httpServerEntry(statusServer(t, 401)) },
			want: []string{"401"}},
		{name: "HTTP 403", server: func(t *testing.T, _ string) map[string]any { return httpServerEntry(statusServer(t, 403)) },
			want: []string{"403"}},
		{name: "HTTP 404", server: func(t *testing.T, _ string) map[string]any { return httpServerEntry(statusServer(t, 404)) },
			want: []string{"404"}},
		{name: "HTTP 500", server: func(t *testing.T, _ string) map[string]any { return httpServerEntry(statusServer(t, 500)) },
			want: []string{"500"}},
		{name: "redirect to another host", server: func(t *testing.T, _ string) map[string]any {
			other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				redirected.add(r)
				http.Error(w, "who are you", http.StatusUnauthorized)
			}))
			t.Cleanup(other.Close)
			first := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				// Another origin: localhost instead of 127.0.0.1, another port.
				http.Redirect(w, r, strings.Replace(other.URL, "127.0.0.1", "localhost", 1)+"/mcp", http.StatusTemporaryRedirect)
			}))
			t.Cleanup(first.Close)
			return httpServerEntry(first.URL + "/mcp")
		}, want: []string{"redirected to another origin, http://localhost:", "cross-origin-redirects = true"}, check: func(t *testing.T) {
			if got := redirected.get(); len(got) != 0 {
				t.Errorf("the redirect was followed: the other host saw %d requests", len(got))
			}
		}},
		{name: "slow drip of bytes", server: func(t *testing.T, _ string) map[string]any {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusOK)
				for _, b := range []byte(`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"drip","version":"1"}}}`) {
					select {
					case <-r.Context().Done():
						return
					case <-time.After(200 * time.Millisecond):
					}
					w.Write([]byte{b})
					w.(http.Flusher).Flush()
				}
			}))
			t.Cleanup(srv.Close)
			return httpServerEntry(srv.URL + "/mcp")
		}, want: []string{"initialize", "did not answer within 2s"}},
	}
}

// TestHostileServersLock runs `agentgate lock` against each misbehaving
// server after a good lock of the same server name.
func TestHostileServersLock(t *testing.T) {
	for _, tc := range hostileCases() {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := lockedRepo(t, notesServer)
			before := r.read("agentgate.lock")
			log := filepath.Join(t.TempDir(), "fake.log")
			r.writeConfig(map[string]any{"notes": tc.server(t, log)})
			r.env["HOSTILE_TOKEN"] = hostileSecret
			timeout := tc.timeout()
			code, stdout, stderr := r.agentgate("lock", "--timeout", timeout)
			if code != ExitUnverified {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, ExitUnverified, stdout, stderr)
			}
			for _, w := range append([]string{`agentgate: error: server "notes" (.mcp.json:`, "agentgate: hint: ", "agentgate.lock left unchanged"}, tc.want...) {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr does not contain %q:\n%s", w, stderr)
				}
			}
			if after := r.read("agentgate.lock"); !bytes.Equal(after, before) {
				t.Errorf("agentgate.lock changed:\n%s", after)
			}
			if strings.Contains(stdout+stderr, hostileSecret) {
				t.Errorf("output shows the secret header value:\n%s\n%s", stdout, stderr)
			}
			if out := stdout + stderr; strings.Contains(out, "\x1b") || !utf8.ValidString(out) {
				t.Errorf("output carries a raw escape or invalid UTF-8: %q", out)
			}
			if len(stderr) > 64<<10 {
				t.Errorf("stderr is %d bytes: a hostile server flooded the terminal", len(stderr))
			}
			if tc.stdio {
				assertAllGone(t, log, "lock", max(tc.procs, 1))
			}
			if tc.check != nil {
				tc.check(t)
			}

			// The read-only gate says "unverified", never "in-sync".
			r.commitAll()
			code, stdout, stderr = r.agentgate("ci", "--format", "json", "--timeout", timeout)
			var rep render.CIReport
			if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
				t.Fatalf("ci --format json: stdout is not one JSON report: %v\n%s", err, stdout)
			}
			if code != ExitUnverified || rep.ExitCode != ExitUnverified || rep.Result != "unverified" ||
				len(rep.Servers) != 1 || rep.Servers[0].Status != "unverified" || rep.Servers[0].Error == nil {
				t.Errorf("ci: exit %d, report %+v", code, rep)
			}
			if strings.Contains(stdout+stderr, hostileSecret) {
				t.Errorf("ci output shows the secret header value")
			}
			if after := r.read("agentgate.lock"); !bytes.Equal(after, before) {
				t.Errorf("agentgate.lock changed by ci")
			}
			if tc.stdio {
				assertAllGone(t, log, "ci", 2*max(tc.procs, 1))
			}
		})
	}
}

// assertAllGone checks that the fake logged want processes to log (servers
// and the children they forked), and that every one has exited.
func assertAllGone(t *testing.T, log, after string, want int) {
	t.Helper()
	pids := fakeLogPIDs(t, log)
	if len(pids) != want {
		t.Fatalf("the fake logged %d processes %v, want %d", len(pids), pids, want)
	}
	for _, pid := range pids {
		if testenv.Alive(pid) {
			t.Errorf("process %d is still running after agentgate %s returned", pid, after)
		}
	}
}
