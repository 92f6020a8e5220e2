package bridge

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
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
	c := open(t, remote(srv.URL, config.StreamableHTTP), Options{Timeout: 2 * time.Second})
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
			c := open(t, remote(srv.URL, config.StreamableHTTP), Options{Timeout: 300 * time.Millisecond})
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
