package bridge

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentgate/agentgate/internal/testing/testenv"
	"github.com/agentgate/agentgate/mcp/auth"
	"github.com/agentgate/agentgate/mcp/config"
)

// client drives a bridge as guard does: lines in, lines out.
type client struct {
	t     *testing.T
	conn  *Conn
	lines chan string
	log   *testenv.SyncBuffer
}

func open(t *testing.T, r config.Resolved, opts Options) *client {
	t.Helper()
	c := &client{t: t, lines: make(chan string, 100), log: &testenv.SyncBuffer{}}
	opts.Log = c.log
	if opts.Timeout == 0 {
		opts.Timeout = 10 * time.Second
	}
	conn, err := Open(context.Background(), r, opts)
	if err != nil {
		t.Fatal(err)
	}
	c.conn = conn
	go func() {
		sc := bufio.NewScanner(conn.Out)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
		close(c.lines)
	}()
	t.Cleanup(func() {
		conn.In.Close()
		done := make(chan struct{})
		go func() { conn.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("the bridge did not end within 10 s of its In closing")
		}
	})
	return c
}

func (c *client) send(line string) {
	c.t.Helper()
	if _, err := io.WriteString(c.conn.In, line+"\n"); err != nil {
		c.t.Fatalf("write %s: %v", line, err)
	}
}

func (c *client) recv() string {
	c.t.Helper()
	select {
	case l, ok := <-c.lines:
		if !ok {
			c.t.Fatalf("Out ended; log:\n%s", c.log.String())
		}
		return l
	case <-time.After(10 * time.Second):
		c.t.Fatalf("no message within 10 s; log:\n%s", c.log.String())
	}
	return ""
}

// eof waits for Out to end.
func (c *client) eof() {
	c.t.Helper()
	for {
		select {
		case l, ok := <-c.lines:
			if !ok {
				return
			}
			c.t.Logf("after the end: %s", l)
		case <-time.After(10 * time.Second):
			c.t.Fatal("Out did not end within 10 s")
		}
	}
}

func remoteServer(url string, tr config.Transport) config.Resolved {
	return config.Resolved{Server: config.Server{Name: "remote", File: "test", Transport: tr, URL: url}}
}

const initReq = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// fakeStreamable is a streamable-HTTP server that records every request.
type fakeStreamable struct {
	mu       sync.Mutex
	requests []*http.Request
	bodies   []string
	deleted  chan struct{}
	get      chan string // events the GET stream sends
	handle   func(w http.ResponseWriter, r *http.Request, body map[string]any) bool
}

func newFakeStreamable(t *testing.T) (*fakeStreamable, *httptest.Server) {
	f := &fakeStreamable{deleted: make(chan struct{}, 1), get: make(chan string, 10)}
	srv := httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(srv.Close)
	return f, srv
}

func (f *fakeStreamable) serve(w http.ResponseWriter, r *http.Request) {
	data, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.requests = append(f.requests, r)
	f.bodies = append(f.bodies, string(data))
	f.mu.Unlock()
	switch r.Method {
	case http.MethodDelete:
		f.deleted <- struct{}{}
		return
	case http.MethodGet:
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		for {
			select {
			case ev := <-f.get:
				fmt.Fprint(w, ev)
				w.(http.Flusher).Flush()
			case <-r.Context().Done():
				return
			}
		}
	}
	var body map[string]any
	_ = json.Unmarshal(data, &body)
	if f.handle != nil && f.handle(w, r, body) {
		return
	}
	switch body["method"] {
	case "initialize":
		w.Header().Set("Mcp-Session-Id", "sess-1")
		w.Header().Set("Content-Type", "application/json")
		// Another version than the client asked for: the bridge must send
		// the one in the result.
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%v,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"f","version":"1"}}}`, body["id"])
	case nil:
		w.WriteHeader(http.StatusAccepted) // a response from the client
	default:
		if _, ok := body["id"]; !ok {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%v,"result":{"echo":%q}}`, body["id"], body["method"])
	}
}

func (f *fakeStreamable) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.requests)
}

func TestStreamableSessionHeadersAndDelete(t *testing.T) {
	f, srv := newFakeStreamable(t)
	r := remoteServer(srv.URL+"/mcp", config.StreamableHTTP)
	r.Headers = map[string]string{"X-Api-Key": "k-123456789"}
	c := open(t, r, Options{})
	c.send(initReq)
	if got := c.recv(); !strings.Contains(got, `"protocolVersion":"2025-06-18"`) || !strings.Contains(got, `"id":1`) {
		t.Fatalf("initialize answer: %s", got)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	c.send(`{"jsonrpc":"2.0","id":"a","method":"tools/list"}`)
	if got := c.recv(); got != `{"jsonrpc":"2.0","id":a,"result":{"echo":"tools/list"}}` && !strings.Contains(got, `"echo":"tools/list"`) {
		t.Fatalf("tools/list answer: %s", got)
	}
	// The GET stream carries what the server starts: a request to the
	// client, whose answer goes back as a POST.
	f.get <- "id: g1\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"s1\",\"method\":\"sampling/createMessage\",\"params\":{}}\n\n"
	if got := c.recv(); got != `{"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage","params":{}}` {
		t.Fatalf("server request: %s", got)
	}
	c.send(`{"jsonrpc":"2.0","id":"s1","result":{"content":{"type":"text","text":"ok"}}}`)
	deadline := time.Now().Add(5 * time.Second)
	for f.count() < 5 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	c.conn.In.Close()
	select {
	case <-f.deleted:
	case <-time.After(5 * time.Second):
		t.Fatal("no DELETE of the session after In closed")
	}
	c.eof()
	if err := c.conn.Wait(); err != nil {
		t.Errorf("Wait after the client left: %v", err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	var methods []string
	for i, req := range f.requests {
		methods = append(methods, req.Method)
		if req.Header.Get("X-Api-Key") != "k-123456789" {
			t.Errorf("%s #%d without the configured header", req.Method, i)
		}
		if i == 0 {
			if req.Header.Get("Mcp-Session-Id") != "" || req.Header.Get("MCP-Protocol-Version") != "" {
				t.Errorf("initialize carried session headers: %v", req.Header)
			}
			if req.Header.Get("Accept") != "application/json, text/event-stream" {
				t.Errorf("initialize Accept: %q", req.Header.Get("Accept"))
			}
			continue
		}
		if req.Header.Get("Mcp-Session-Id") != "sess-1" || req.Header.Get("MCP-Protocol-Version") != "2025-06-18" {
			t.Errorf("%s #%d: session headers %q %q", req.Method, i, req.Header.Get("Mcp-Session-Id"), req.Header.Get("MCP-Protocol-Version"))
		}
	}
	want := map[string]int{"POST": 4, "GET": 1, "DELETE": 1}
	got := map[string]int{}
	for _, m := range methods {
		got[m]++
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("requests %v, want %v", methods, want)
	}
	// The client's answer to the server's request went out unchanged.
	found := false
	for _, b := range f.bodies {
		found = found || b == `{"jsonrpc":"2.0","id":"s1","result":{"content":{"type":"text","text":"ok"}}}`
	}
	if !found {
		t.Errorf("the client's answer was not POSTed byte for byte: %q", f.bodies)
	}
}

func TestStreamableAnswerStreamAndPrettyJSON(t *testing.T) {
	f, srv := newFakeStreamable(t)
	f.handle = func(w http.ResponseWriter, r *http.Request, body map[string]any) bool {
		switch body["method"] {
		case "tools/call":
			// A progress notification, then the answer split over two
			// data lines, as an event stream.
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, ": comment\n\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progress\":1}}\n\n")
			fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%v,\r\ndata: \"result\":{\"text\":\"a b\"}}\r\n\r\n", body["id"])
			return true
		case "tools/list":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, "{\n  \"jsonrpc\": \"2.0\",\n  \"id\": %v,\r\n  \"result\": {\"tools\": [], \"s\": \"x  y\"}\n}\n", body["id"])
			return true
		}
		return false
	}
	c := open(t, remoteServer(srv.URL, config.StreamableHTTP), Options{})
	c.send(initReq)
	c.recv()
	c.send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x"}}`)
	if got := c.recv(); got != `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}` {
		t.Errorf("progress: %s", got)
	}
	if got := c.recv(); got != `{"jsonrpc":"2.0","id":7, "result":{"text":"a b"}}` {
		t.Errorf("answer: %s", got)
	}
	c.send(`{"jsonrpc":"2.0","id":8,"method":"tools/list"}`)
	// Line breaks dropped, every other byte kept.
	if got := c.recv(); got != `{  "jsonrpc": "2.0",  "id": 8,  "result": {"tools": [], "s": "x  y"}}` {
		t.Errorf("pretty JSON: %s", got)
	}
}

func TestStreamableResumesWithLastEventID(t *testing.T) {
	f, srv := newFakeStreamable(t)
	var lastEventID string
	f.handle = func(w http.ResponseWriter, r *http.Request, body map[string]any) bool {
		if body["method"] == "tools/call" {
			w.Header().Set("Content-Type", "text/event-stream")
			// Closed after an event id and before the answer.
			fmt.Fprint(w, "retry: 10\nid: ev-1\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n\n")
			return true
		}
		return false
	}
	resumed := make(chan struct{})
	inner := srv.Config.Handler
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.Header.Get("Last-Event-ID") != "" {
			lastEventID = r.Header.Get("Last-Event-ID")
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "id: ev-2\ndata: {\"jsonrpc\":\"2.0\",\"id\":9,\"result\":{}}\n\n")
			close(resumed)
			return
		}
		inner.ServeHTTP(w, r)
	})
	c := open(t, remoteServer(srv.URL, config.StreamableHTTP), Options{})
	c.send(initReq)
	c.recv()
	c.send(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{}}`)
	if got := c.recv(); !strings.Contains(got, "notifications/progress") {
		t.Fatalf("first event: %s", got)
	}
	if got := c.recv(); got != `{"jsonrpc":"2.0","id":9,"result":{}}` {
		t.Fatalf("resumed answer: %s", got)
	}
	<-resumed
	if lastEventID != "ev-1" {
		t.Errorf("Last-Event-ID %q, want ev-1", lastEventID)
	}
}

func TestStreamableErrors(t *testing.T) {
	f, srv := newFakeStreamable(t)
	f.handle = func(w http.ResponseWriter, r *http.Request, body map[string]any) bool {
		switch body["method"] {
		case "fail":
			http.Error(w, "boom", http.StatusInternalServerError)
			return true
		case "big":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%v,"result":{"x":%q}}`, body["id"], strings.Repeat("a", 5000))
			return true
		case "redirect":
			http.Redirect(w, r, "http://127.0.0.2:1/elsewhere?token=t", http.StatusTemporaryRedirect)
			return true
		case "gone":
			w.WriteHeader(http.StatusNotFound)
			return true
		}
		return false
	}
	c := open(t, remoteServer(srv.URL, config.StreamableHTTP), Options{MaxResponseBytes: 1000})
	c.send(initReq)
	c.recv()
	errorOf := func(line string) (id any, code float64, msg string) {
		var v struct {
			ID    any
			Error struct {
				Code    float64
				Message string
			}
		}
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		return v.ID, v.Error.Code, v.Error.Message
	}
	c.send(`{"jsonrpc":"2.0","id":2,"method":"fail"}`)
	if id, code, msg := errorOf(c.recv()); id != 2.0 || code != -32000 || !strings.Contains(msg, "HTTP 500 Internal Server Error from POST") {
		t.Errorf("HTTP 500: %v %v %q", id, code, msg)
	}
	c.send(`{"jsonrpc":"2.0","id":3,"method":"big"}`)
	if id, _, msg := errorOf(c.recv()); id != 3.0 || !strings.Contains(msg, "larger than 1000 bytes") {
		t.Errorf("too large: %v %q", id, msg)
	}
	c.send(`{"jsonrpc":"2.0","id":4,"method":"redirect"}`)
	if id, _, msg := errorOf(c.recv()); id != 4.0 || !strings.Contains(msg, "another origin, http://127.0.0.2:1") || strings.Contains(msg, "token=t") {
		t.Errorf("redirect: %v %q", id, msg)
	}
	// Still connected after those.
	c.send(`{"jsonrpc":"2.0","id":5,"method":"ping"}`)
	if got := c.recv(); !strings.Contains(got, `"id":5`) || strings.Contains(got, "error") {
		t.Errorf("ping: %s", got)
	}
	// A 404 to a request with the session id: the session is gone.
	c.send(`{"jsonrpc":"2.0","id":6,"method":"gone"}`)
	if id, _, msg := errorOf(c.recv()); id != 6.0 || !strings.Contains(msg, "ended the session") {
		t.Errorf("404: %v %q", id, msg)
	}
	c.eof()
	if err := c.conn.Wait(); err == nil || !strings.Contains(err.Error(), "ended the session") {
		t.Errorf("Wait: %v", err)
	}
}

func TestStreamableServerUnreachable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL + "/mcp?key=secret-value-123"
	srv.Close()
	c := open(t, remoteServer(url, config.StreamableHTTP), Options{})
	c.send(initReq)
	got := c.recv()
	if !strings.Contains(got, `"id":1`) || !strings.Contains(got, "cannot reach") || strings.Contains(got, "secret-value-123") {
		t.Errorf("answer: %s", got)
	}
	c.eof()
	err := c.conn.Wait()
	if err == nil || !strings.Contains(err.Error(), "cannot reach") || strings.Contains(err.Error()+c.log.String(), "secret-value-123") {
		t.Errorf("Wait: %v; log: %s", err, c.log.String())
	}
}

// sseStream is a legacy SSE server's stream: the endpoint event naming
// endpoint, then every event sent on events, until the request ends.
func sseStream(endpoint string, events <-chan string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "event: endpoint\ndata: %s\n\n", endpoint)
		w.(http.Flusher).Flush()
		for {
			select {
			case ev := <-events:
				fmt.Fprint(w, ev)
				w.(http.Flusher).Flush()
			case <-r.Context().Done():
				return
			}
		}
	}
}

// fakeSSE is a legacy HTTP+SSE server: GET /mcp names endpoint as the
// message URL, messages POSTed to /msg?session=s1 are answered on the
// stream.
func fakeSSE(t *testing.T, endpoint string) *httptest.Server {
	events := make(chan string, 10)
	mux := http.NewServeMux()
	mux.HandleFunc("POST /mcp", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusMethodNotAllowed) // no streamable HTTP here
	})
	mux.HandleFunc("GET /mcp", sseStream(endpoint, events))
	mux.HandleFunc("POST /msg", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("session") != "s1" {
			http.Error(w, "no session", http.StatusBadRequest)
			return
		}
		var body map[string]any
		data, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(data, &body)
		w.WriteHeader(http.StatusAccepted)
		if id, ok := body["id"]; ok && body["method"] != nil {
			events <- fmt.Sprintf("event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":%v,\"result\":{\"method\":%q}}\n\n", id, body["method"])
		}
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func TestLegacySSEAndFallback(t *testing.T) {
	for _, tc := range []struct {
		name     string
		tr       config.Transport
		fallback bool
	}{{"sse", config.SSE, false}, {"fallback", config.StreamableHTTP, true}} {
		t.Run(tc.name, func(t *testing.T) {
			// A server of its own: the fake's event channel is shared by
			// its streams, and the previous subtest's stream may not have
			// noticed its end yet (it would take this one's answers).
			srv := fakeSSE(t, "/msg?session=s1")
			r := remoteServer(srv.URL+"/mcp", tc.tr)
			r.FallbackSSE = tc.fallback
			c := open(t, r, Options{})
			c.send(initReq)
			if got := c.recv(); got != `{"jsonrpc":"2.0","id":1,"result":{"method":"initialize"}}` {
				t.Fatalf("initialize: %s", got)
			}
			c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
			if got := c.recv(); got != `{"jsonrpc":"2.0","id":2,"result":{"method":"tools/list"}}` {
				t.Fatalf("tools/list: %s", got)
			}
			if logged := strings.Contains(c.log.String(), "trying legacy SSE"); logged != tc.fallback {
				t.Errorf("fallback logged: %v; log: %s", logged, c.log.String())
			}
		})
	}
	t.Run("no fallback for http", func(t *testing.T) {
		srv := fakeSSE(t, "/msg?session=s1")
		c := open(t, remoteServer(srv.URL+"/mcp", config.StreamableHTTP), Options{})
		c.send(initReq)
		if got := c.recv(); !strings.Contains(got, "HTTP 405") {
			t.Fatalf("initialize: %s", got)
		}
		c.eof()
		if err := c.conn.Wait(); err == nil || !strings.Contains(err.Error(), "initialize failed") {
			t.Errorf("Wait: %v", err)
		}
	})
}

func TestLegacySSEEndpointOnAnotherOrigin(t *testing.T) {
	srv := fakeSSE(t, "http://127.0.0.2:9/msg?session=s1")
	c := open(t, remoteServer(srv.URL+"/mcp", config.SSE), Options{})
	c.send(initReq)
	if got := c.recv(); !strings.Contains(got, "another origin, http://127.0.0.2:9") {
		t.Fatalf("initialize: %s", got)
	}
	c.eof()
	if err := c.conn.Wait(); err == nil {
		t.Error("Wait: nil")
	}
}

func TestStoredOAuthToken(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Get("Authorization"))
		mu.Unlock()
		if r.Header.Get("Authorization") != "Bearer stored-token-1" {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+"http://"+r.Host+`/.well-known/oauth-protected-resource"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25"}}`)
	}))
	defer srv.Close()
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	t.Setenv(auth.StoreEnv, "file")
	store, err := auth.OpenStore(func(k string) string {
		return map[string]string{"XDG_CONFIG_HOME": dir, auth.StoreEnv: "file"}[k]
	})
	if err != nil {
		t.Fatal(err)
	}
	url := srv.URL + "/mcp"
	if _, err := store.Put(auth.Key(url, ""), &auth.Entry{ServerURL: url, AccessToken: "stored-token-1",
		Expiry: time.Now().Add(time.Hour), Updated: time.Now()}); err != nil {
		t.Fatal(err)
	}
	c := open(t, remoteServer(url, config.StreamableHTTP), Options{})
	c.send(initReq)
	if got := c.recv(); got != `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25"}}` {
		t.Fatalf("initialize: %s", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 1 || seen[0] != "Bearer stored-token-1" {
		t.Errorf("Authorization headers sent: %q", seen)
	}
}

// loginNeeded starts a server that answers every request 401 with
// OAuth's WWW-Authenticate, and an empty token store: a login is needed.
func loginNeeded(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="http://`+r.Host+`/.well-known/oauth-protected-resource"`)
		w.WriteHeader(http.StatusUnauthorized)
	}))
	t.Cleanup(srv.Close)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv(auth.StoreEnv, "file")
	return srv
}

func TestOAuthLoginNeeded(t *testing.T) {
	srv := loginNeeded(t)
	c := open(t, remoteServer(srv.URL+"/mcp", config.StreamableHTTP), Options{})
	c.send(initReq)
	if got := c.recv(); !strings.Contains(got, `"id":1`) || !strings.Contains(got, "agentgate auth login remote") {
		t.Errorf("initialize answer: %s", got)
	}
	c.eof()
	if err := c.conn.Wait(); err == nil || !strings.Contains(err.Error(), "initialize failed: OAuth: ") || !strings.Contains(err.Error(), "agentgate auth login remote") {
		t.Errorf("Wait: %v", err)
	}
}

func TestCancelEndsSessionWithDelete(t *testing.T) {
	f, srv := newFakeStreamable(t)
	ctx, cancel := context.WithCancel(context.Background())
	conn, err := Open(ctx, remoteServer(srv.URL, config.StreamableHTTP), Options{})
	if err != nil {
		t.Fatal(err)
	}
	out := bufio.NewReader(conn.Out)
	io.WriteString(conn.In, initReq+"\n")
	if _, err := out.ReadBytes('\n'); err != nil {
		t.Fatal(err)
	}
	cancel() // SIGTERM in agentgate-mcp
	select {
	case <-f.deleted:
	case <-time.After(5 * time.Second):
		t.Fatal("no DELETE of the session after the context ended")
	}
	if _, err := io.Copy(io.Discard, out); err != nil {
		t.Errorf("Out: %v", err)
	}
	if err := conn.Wait(); err != context.Canceled {
		t.Errorf("Wait: %v, want context.Canceled", err)
	}
}

// TestNobodyReadsOut: the client closes In and never reads Out again while
// the server is still sending; the bridge ends anyway.
func TestNobodyReadsOut(t *testing.T) {
	f, srv := newFakeStreamable(t)
	f.handle = func(w http.ResponseWriter, r *http.Request, body map[string]any) bool {
		if body["method"] == "flood" {
			w.Header().Set("Content-Type", "text/event-stream")
			for i := 0; r.Context().Err() == nil && i < 100000; i++ {
				fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"i\":%d}}\n\n", i)
			}
			return true
		}
		return false
	}
	conn, err := Open(context.Background(), remoteServer(srv.URL, config.StreamableHTTP), Options{})
	if err != nil {
		t.Fatal(err)
	}
	out := bufio.NewReader(conn.Out)
	io.WriteString(conn.In, initReq+"\n")
	if _, err := out.ReadBytes('\n'); err != nil {
		t.Fatal(err)
	}
	io.WriteString(conn.In, `{"jsonrpc":"2.0","id":2,"method":"flood"}`+"\n")
	if _, err := out.ReadBytes('\n'); err != nil {
		t.Fatal(err)
	}
	conn.In.Close()
	done := make(chan error, 1)
	go func() { done <- conn.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Wait: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the bridge did not end with Out unread")
	}
}
