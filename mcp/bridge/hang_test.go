package bridge

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentgate/agentgate/mcp/config"
)

// TestInitializeStreamKeptOpen: a server may keep the answer stream of
// initialize open after the answer (the spec says SHOULD close). The
// bridge must go on reading the client's messages once the answer is out,
// not wait for the stream's end: the client's next request is answered,
// and its leaving still ends the session.
func TestInitializeStreamKeptOpen(t *testing.T) {
	f, srv := newFakeStreamable(t)
	f.handle = func(w http.ResponseWriter, r *http.Request, body map[string]any) bool {
		if body["method"] != "initialize" {
			return false
		}
		w.Header().Set("Mcp-Session-Id", "sess-open")
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":%v,\"result\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"serverInfo\":{\"name\":\"f\",\"version\":\"1\"}}}\n\n", body["id"])
		w.(http.Flusher).Flush()
		<-r.Context().Done() // never closes the stream itself
		return true
	}
	c := open(t, remoteServer(srv.URL, config.StreamableHTTP), Options{Timeout: 2 * time.Second})
	c.send(initReq)
	if got := c.recv(); !strings.Contains(got, `"protocolVersion":"2025-06-18"`) {
		t.Fatalf("initialize answer: %s", got)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if got := c.recv(); got != `{"jsonrpc":"2.0","id":2,"result":{"echo":"tools/list"}}` {
		t.Errorf("tools/list answer: %s", got)
	}
	c.conn.In.Close()
	select {
	case <-f.deleted:
	case <-time.After(10 * time.Second):
		t.Error("no DELETE after the client left")
	}
	if err := c.conn.Wait(); err != nil {
		t.Errorf("Wait: %v", err)
	}
}

// TestInitializeAnswerHangs: the headers of initialize's answer come but
// its body does not (a JSON body, or an event stream without the
// answer). Options.Timeout bounds the whole answer: the client gets an
// error for its initialize, the bridge ends (Out EOF, Wait gives why),
// and nothing waits for the server for ever.
func TestInitializeAnswerHangs(t *testing.T) {
	for _, ct := range []string{"application/json", "text/event-stream"} {
		t.Run(ct, func(t *testing.T) {
			f, srv := newFakeStreamable(t)
			f.handle = func(w http.ResponseWriter, r *http.Request, body map[string]any) bool {
				w.Header().Set("Content-Type", ct)
				fmt.Fprint(w, `{"jsonrpc":`)
				if ct == "text/event-stream" {
					fmt.Fprint(w, ": a comment, then nothing\n\n")
				}
				w.(http.Flusher).Flush()
				<-r.Context().Done()
				return true
			}
			c := open(t, remoteServer(srv.URL, config.StreamableHTTP), Options{Timeout: 300 * time.Millisecond})
			start := time.Now()
			c.send(initReq)
			var v struct {
				ID    any
				Error struct{ Message string }
			}
			line := c.recv()
			if err := json.Unmarshal([]byte(line), &v); err != nil || v.ID != 1.0 || !strings.Contains(v.Error.Message, "did not answer initialize within 300ms") {
				t.Errorf("answer to initialize: %s", line)
			}
			c.eof()
			if err := c.conn.Wait(); err == nil || !strings.Contains(err.Error(), "did not answer initialize within 300ms") {
				t.Errorf("Wait: %v", err)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("took %s", d)
			}
		})
	}
}

// TestAnswerNotJSON: a 200 answer that is a web page (a proxy's login
// page, a wrong url) is answered to the client as an error for its
// request instead of being passed on as a line it cannot read (its
// request would then wait for ever); for initialize the bridge ends.
func TestAnswerNotJSON(t *testing.T) {
	page := func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, "<html>\n<body>Please log in</body>\n</html>\n")
	}
	f, srv := newFakeStreamable(t)
	f.handle = func(w http.ResponseWriter, r *http.Request, body map[string]any) bool {
		switch body["method"] {
		case "page", "initialize":
			if body["method"] == "initialize" && r.URL.Path != "/login" {
				return false
			}
			page(w)
			return true
		case "json-ish":
			w.Header().Set("Content-Type", "application/vnd.api+json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%v,"result":{}}`, body["id"])
			return true
		}
		return false
	}
	errorOf := func(line string) (any, string) {
		var v struct {
			ID    any
			Error struct{ Message string }
		}
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatalf("not JSON: %s", line)
		}
		return v.ID, v.Error.Message
	}
	c := open(t, remoteServer(srv.URL, config.StreamableHTTP), Options{})
	c.send(initReq)
	c.recv()
	c.send(`{"jsonrpc":"2.0","id":2,"method":"page"}`)
	if id, msg := errorOf(c.recv()); id != 2.0 || !strings.Contains(msg, `page with Content-Type "text/html; charset=utf-8", not JSON`) {
		t.Errorf("web page: %v %q", id, msg)
	}
	c.send(`{"jsonrpc":"2.0","id":3,"method":"json-ish"}`)
	if got := c.recv(); got != `{"jsonrpc":"2.0","id":3,"result":{}}` {
		t.Errorf("a +json answer: %s", got)
	}

	login := open(t, remoteServer(srv.URL+"/login", config.StreamableHTTP), Options{})
	login.send(initReq)
	if id, msg := errorOf(login.recv()); id != 1.0 || !strings.Contains(msg, "not JSON") {
		t.Errorf("initialize: %v %q", id, msg)
	}
	login.eof()
	if err := login.conn.Wait(); err == nil || !strings.Contains(err.Error(), "not JSON") {
		t.Errorf("Wait: %v", err)
	}
}

// TestLegacyPostHeld: a legacy SSE server may answer a POST only once it
// has handled the message, or never. The server still sees the messages
// in order (each POST waits for the previous one's answer), but the
// bridge goes on reading the client meanwhile, so that a client that
// leaves ends the session at once.
func TestLegacyPostHeld(t *testing.T) {
	events := make(chan string, 10)
	var mu sync.Mutex
	var order []string
	mux := http.NewServeMux()
	mux.HandleFunc("GET /sse", sseStream("/msg", events))
	mux.HandleFunc("POST /msg", func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		mu.Lock()
		order = append(order, fmt.Sprint(body["method"]))
		mu.Unlock()
		if id, ok := body["id"]; ok {
			events <- fmt.Sprintf("event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":%v,\"result\":{\"method\":%q}}\n\n", id, body["method"])
		}
		if body["method"] == "hold" {
			<-r.Context().Done() // never answered
			return
		}
		time.Sleep(50 * time.Millisecond) // answered once "handled"
		w.WriteHeader(http.StatusAccepted)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	c := open(t, remoteServer(srv.URL+"/sse", config.SSE), Options{})
	c.send(initReq)
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	c.send(`{"jsonrpc":"2.0","id":3,"method":"hold"}`)
	c.send(`{"jsonrpc":"2.0","id":4,"method":"after"}`)
	for _, want := range []string{`"id":1,"result":{"method":"initialize"}`, `"id":2,"result":{"method":"tools/list"}`, `"id":3,"result":{"method":"hold"}`} {
		if got := c.recv(); !strings.Contains(got, want) {
			t.Fatalf("got %s, want %s", got, want)
		}
	}
	mu.Lock()
	got := strings.Join(order, " ")
	mu.Unlock()
	if got != "initialize notifications/initialized tools/list hold" {
		t.Errorf("the server got %q, want the client's order up to the held POST", got)
	}
	c.conn.In.Close()
	done := make(chan error, 1)
	go func() { done <- c.conn.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Wait: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the bridge did not end after the client left")
	}
}

// TestEventStreamMixedCase: media types are case-insensitive, so an
// answer stream sent as "Text/Event-Stream" is bounded per event, like
// any other stream, not as one body: 20 events of about 100 bytes pass a
// limit of 1,000 bytes per message.
func TestEventStreamMixedCase(t *testing.T) {
	f, srv := newFakeStreamable(t)
	f.handle = func(w http.ResponseWriter, r *http.Request, body map[string]any) bool {
		if body["method"] != "tools/call" {
			return false
		}
		w.Header().Set("Content-Type", "Text/Event-Stream; charset=utf-8")
		for i := range 20 {
			fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progress\":%d,\"pad\":%q}}\n\n", i, strings.Repeat("p", 40))
		}
		fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%v,\"result\":{}}\n\n", body["id"])
		return true
	}
	c := open(t, remoteServer(srv.URL, config.StreamableHTTP), Options{MaxResponseBytes: 1000})
	c.send(initReq)
	c.recv()
	c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x"}}`)
	for i := range 20 {
		if got := c.recv(); !strings.Contains(got, fmt.Sprintf(`"progress":%d,`, i)) {
			t.Fatalf("event %d: %s", i, got)
		}
	}
	if got := c.recv(); got != `{"jsonrpc":"2.0","id":2,"result":{}}` {
		t.Errorf("answer: %s", got)
	}
}

// TestNotificationBeforeNextRequest: a request that follows a
// notification reaches the server after the server has accepted the
// notification: a server whose handler takes a moment to take in
// notifications/initialized must not see tools/list first.
func TestNotificationBeforeNextRequest(t *testing.T) {
	f, srv := newFakeStreamable(t)
	var mu sync.Mutex
	initialized := false
	f.handle = func(w http.ResponseWriter, r *http.Request, body map[string]any) bool {
		switch body["method"] {
		case "notifications/initialized":
			time.Sleep(100 * time.Millisecond)
			mu.Lock()
			initialized = true
			mu.Unlock()
			w.WriteHeader(http.StatusAccepted)
			return true
		case "tools/list":
			mu.Lock()
			ok := initialized
			mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%v,"result":{"initialized":%v}}`, body["id"], ok)
			return true
		}
		return false
	}
	c := open(t, remoteServer(srv.URL, config.StreamableHTTP), Options{})
	c.send(initReq)
	c.recv()
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if got := c.recv(); got != `{"jsonrpc":"2.0","id":2,"result":{"initialized":true}}` {
		t.Errorf("tools/list reached the server before notifications/initialized was taken in: %s", got)
	}
}
