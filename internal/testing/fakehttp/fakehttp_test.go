package fakehttp

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agentgate/agentgate/internal/testing/fakeserver"
)

var tools = []json.RawMessage{json.RawMessage(`{"name":"a","description":"A"}`), json.RawMessage(`{"name":"b"}`)}

// recorder collects what OnMessage saw: method and one header.
type recorder struct {
	mu   sync.Mutex
	seen []string
}

func (r *recorder) on(method string, h map[string][]string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seen = append(r.seen, method+" "+http.Header(h).Get("X-Test"))
}

func post(t *testing.T, url, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Test", "t")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func readAll(t *testing.T, resp *http.Response) string {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestStreamable(t *testing.T) {
	rec := &recorder{}
	srv := httptest.NewServer(Handler(fakeserver.Options{Tools: tools, PageSize: 1, OnMessage: rec.on}))
	defer srv.Close()

	resp := post(t, srv.URL+"/mcp", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`)
	body := readAll(t, resp)
	if resp.StatusCode != 200 || resp.Header.Get("Mcp-Session-Id") != "fake-session-1" || resp.Header.Get("Content-Type") != "application/json" ||
		body != `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{"listChanged":false}},"serverInfo":{"name":"agentgate-fakeserver","version":"1"}}}` {
		t.Errorf("initialize: %d %v %q", resp.StatusCode, resp.Header, body)
	}
	resp = post(t, srv.URL+"/mcp", `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if body := readAll(t, resp); resp.StatusCode != http.StatusAccepted || body != "" {
		t.Errorf("notification: %d %q", resp.StatusCode, body)
	}
	resp = post(t, srv.URL+"/mcp", `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":"page-1"}}`)
	if body := readAll(t, resp); body != `{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"b"}]}}` {
		t.Errorf("tools/list page 2: %q", body)
	}
	resp = post(t, srv.URL+"/mcp", `not json`)
	if readAll(t, resp); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("not JSON: status %d, want 400", resp.StatusCode)
	}
	resp, err := http.Get(srv.URL + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	if readAll(t, resp); resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET /mcp: status %d, want 405", resp.StatusCode)
	}
	req, _ := http.NewRequest(http.MethodDelete, srv.URL+"/mcp", nil)
	req.Header.Set("X-Test", "d")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	readAll(t, resp)
	want := []string{"initialize t", "notifications/initialized t", "tools/list t", "DELETE d"}
	if rec.mu.Lock(); !slices.Equal(rec.seen, want) {
		t.Errorf("OnMessage saw %q, want %q", rec.seen, want)
	}
	rec.mu.Unlock()
}

// TestStreamableCrash: crash-list ends the connection without a reply.
func TestStreamableCrash(t *testing.T) {
	srv := httptest.NewServer(Handler(fakeserver.Options{Tools: tools, PageSize: 1, Misbehave: fakeserver.MisbehaveCrashList}))
	defer srv.Close()
	if body := readAll(t, post(t, srv.URL+"/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)); !strings.Contains(body, `"nextCursor":"page-1"`) {
		t.Errorf("page 1: %q", body)
	}
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":"page-1"}}`))
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
		t.Errorf("page 2: status %d, want the connection to end", resp.StatusCode)
	}
}

// TestSSE: the legacy transport's stream names the POST URL, and replies to
// POSTs arrive as message events.
func TestSSE(t *testing.T) {
	srv := httptest.NewServer(Handler(fakeserver.Options{Tools: tools}))
	defer srv.Close()
	stream, err := http.Get(srv.URL + "/sse")
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Body.Close()
	events := bufio.NewReader(stream.Body)
	event := func() string {
		t.Helper()
		var lines []string
		for {
			line, err := events.ReadString('\n')
			if err != nil {
				t.Fatalf("SSE stream: %v after %q", err, lines)
			}
			if line == "\n" {
				return strings.Join(lines, "")
			}
			lines = append(lines, line)
		}
	}
	if got := event(); got != "event: endpoint\ndata: /message?sessionId=s1\n" {
		t.Fatalf("first event: %q", got)
	}
	resp := post(t, srv.URL+"/message?sessionId=s1", `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`)
	if readAll(t, resp); resp.StatusCode != http.StatusAccepted {
		t.Errorf("POST /message: status %d, want 202", resp.StatusCode)
	}
	if got, want := event(), "event: message\ndata: "+`{"jsonrpc":"2.0","id":7,"result":{"tools":[{"name":"a","description":"A"},{"name":"b"}]}}`+"\n"; got != want {
		t.Errorf("reply event:\n got %q\nwant %q", got, want)
	}
	resp = post(t, srv.URL+"/message?sessionId=nope", `{"jsonrpc":"2.0","id":8,"method":"ping"}`)
	if readAll(t, resp); resp.StatusCode != http.StatusNotFound {
		t.Errorf("unknown session: status %d, want 404", resp.StatusCode)
	}
}
