package capture

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/agentgate/agentgate/mcp/config"
	"github.com/agentgate/agentgate/mcp/wire"
)

// pollingServer is a 2025-11-25 streamable-HTTP server that answers
// tools/list the way the conformance suite's sse-retry scenario answers
// tools/call: an event stream with only a priming event (an id and
// retry: retryMs), ended before the response; the response comes on the
// GET that resumes the stream with Last-Event-ID. never: no GET ever
// carries the response.
type pollingServer struct {
	retryMs int
	never   bool

	mu       sync.Mutex
	closedAt time.Time
	gets     []time.Time
	lastIDs  []string
	listID   json.RawMessage
}

func (p *pollingServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodPost:
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		body, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(body, &msg)
		switch msg.Method {
		case "initialize":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"polling","version":"1"}}}`, msg.ID)
		case "tools/list":
			p.mu.Lock()
			p.listID = msg.ID
			p.mu.Unlock()
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "id: ev-1\nretry: %d\ndata: \n\n", p.retryMs)
			w.(http.Flusher).Flush()
			p.mu.Lock()
			p.closedAt = time.Now()
			p.mu.Unlock()
		default:
			w.WriteHeader(http.StatusAccepted)
		}
	case http.MethodGet:
		p.mu.Lock()
		p.gets = append(p.gets, time.Now())
		p.lastIDs = append(p.lastIDs, r.Header.Get("Last-Event-ID"))
		id := p.listID
		p.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		if p.never || id == nil {
			fmt.Fprintf(w, "id: ev-2\nretry: %d\ndata: \n\n", p.retryMs)
			return
		}
		fmt.Fprintf(w, "id: ev-2\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"tools\":[{\"name\":\"resumed\",\"inputSchema\":{\"type\":\"object\"}}]}}\n\n", id)
	case http.MethodDelete:
		w.WriteHeader(http.StatusOK)
	}
}

// A server that ends the tools/list stream before answering is resumed
// with a GET carrying the last event id, no earlier than its retry, and
// the tools listed on the resumed stream are captured.
func TestResumeClosedStream(t *testing.T) {
	p := &pollingServer{retryMs: 300}
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	r := config.Resolved{Server: config.Server{Name: "polling", File: ".mcp.json", Transport: config.StreamableHTTP, URL: srv.URL + "/mcp"}}
	res := CaptureAll(context.Background(), []config.Resolved{r}, wire.Options{Timeout: 20 * time.Second})[0]
	if res.Err != nil {
		t.Fatalf("capture: %v", res.Err)
	}
	if len(res.Tools) != 1 || string(res.Tools[0]) != `{"name":"resumed","inputSchema":{"type":"object"}}` {
		t.Fatalf("tools = %q, want the one tool sent on the resumed stream", res.Tools)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.gets) != 1 || p.lastIDs[0] != "ev-1" {
		t.Fatalf("GETs %d with Last-Event-ID %q, want one resuming from ev-1", len(p.gets), p.lastIDs)
	}
	if wait := p.gets[0].Sub(p.closedAt); wait < 300*time.Millisecond {
		t.Errorf("resumed %v after the stream ended, before the server's retry of 300ms", wait)
	}
}

// A server that keeps ending the stream without ever answering is polled
// until the server's timeout, and the capture fails with a timeout.
func TestResumeGivesUpAtTimeout(t *testing.T) {
	p := &pollingServer{retryMs: 100, never: true}
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	r := config.Resolved{Server: config.Server{Name: "polling", File: ".mcp.json", Transport: config.StreamableHTTP, URL: srv.URL + "/mcp"}}
	res := CaptureAll(context.Background(), []config.Resolved{r}, wire.Options{Timeout: time.Second})[0]
	if !errors.Is(res.Err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want a timeout", res.Err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.gets) < 2 {
		t.Fatalf("%d GETs, want the stream resumed more than once before the timeout", len(p.gets))
	}
	for i, id := range p.lastIDs {
		want := "ev-1"
		if i > 0 {
			want = "ev-2"
		}
		if id != want {
			t.Fatalf("GET %d had Last-Event-ID %q, want %q", i, id, want)
		}
	}
}
