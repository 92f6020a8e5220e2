// Package fakehttp serves internal/demo's fake MCP server (through
// internal/testing/fakeserver) over HTTP: streamable HTTP and the legacy
// HTTP+SSE transport. It is a package of its own so that the server links
// no package net (agentgate's demo-server runs it; agentgate must stay a
// static binary, issue #5). Test support only.
package fakehttp

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sync"

	"github.com/agentgate/agentgate/internal/testing/fakeserver"
)

// Main is fakeserver.Main that also serves -http ADDR: it listens on ADDR,
// prints "listening on http://HOST:PORT" on stdout and serves Handler until
// the listener fails (status 1; 2 when ADDR cannot be listened on). See
// fakeserver's package doc for the flags and the other exit statuses.
func Main(args []string) int { return fakeserver.Run(args, serve) }

func serve(addr string, opts fakeserver.Options) int {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakeserver:", err)
		return 2
	}
	fmt.Printf("listening on http://%s\n", ln.Addr())
	err = http.Serve(ln, Handler(opts))
	fmt.Fprintln(os.Stderr, "fakeserver:", err)
	return 1
}

// Handler serves the fake over HTTP: streamable HTTP at /mcp (POST one
// message, reply application/json; initialize sets Mcp-Session-Id; DELETE
// ends the session; GET is 405) and legacy HTTP+SSE at /sse (the event
// stream, whose first event names the POST URL) and /message. All
// connections share one server state (for example the tools/list count
// that crash-list and hang-list use). OnMessage sees every request's
// headers, and "DELETE" for a session DELETE.
func Handler(opts fakeserver.Options) http.Handler {
	h := &httpServer{s: fakeserver.NewServer(opts), onMessage: opts.OnMessage, sessions: map[string]chan []byte{}}
	mux := http.NewServeMux()
	mux.HandleFunc("/mcp", h.streamable)
	mux.HandleFunc("GET /sse", h.sseStream)
	mux.HandleFunc("POST /message", h.ssePost)
	return mux
}

type httpServer struct {
	s         *fakeserver.Server
	onMessage func(method string, header map[string][]string)
	mu        sync.Mutex
	next      int
	sessions  map[string]chan []byte
}

// read decodes one message from an HTTP request body and reports it.
func (h *httpServer) read(w http.ResponseWriter, r *http.Request) (fakeserver.Message, bool) {
	var m fakeserver.Message
	body, err := io.ReadAll(r.Body)
	if err == nil {
		err = json.Unmarshal(body, &m)
	}
	if err != nil {
		http.Error(w, "bad JSON-RPC message", http.StatusBadRequest)
		return m, false
	}
	if h.onMessage != nil {
		h.onMessage(m.Method, r.Header.Clone())
	}
	return m, true
}

func (h *httpServer) streamable(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodDelete:
		if h.onMessage != nil {
			h.onMessage("DELETE", r.Header.Clone())
		}
		return
	case http.MethodPost:
	default:
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	m, ok := h.read(w, r)
	if !ok {
		return
	}
	rep := h.s.Answer(m)
	switch {
	case rep.Hang:
		<-r.Context().Done()
		return
	case rep.End != nil && rep.Line == nil:
		panic(http.ErrAbortHandler) // a crash: the connection just ends
	case rep.Line == nil:
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if m.Method == "initialize" {
		w.Header().Set("Mcp-Session-Id", "fake-session-1")
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(rep.Line)
}

func (h *httpServer) sseStream(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	h.mu.Lock()
	h.next++
	id := fmt.Sprintf("s%d", h.next)
	out := make(chan []byte, 16)
	h.sessions[id] = out
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		delete(h.sessions, id)
		h.mu.Unlock()
	}()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	fmt.Fprintf(w, "event: endpoint\ndata: /message?sessionId=%s\n\n", id)
	fl.Flush()
	for {
		select {
		case <-r.Context().Done():
			return
		case line, ok := <-out:
			if !ok {
				return // crash: end the stream
			}
			fmt.Fprintf(w, "event: message\ndata: %s\n\n", line)
			fl.Flush()
		}
	}
}

func (h *httpServer) ssePost(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	out, ok := h.sessions[r.URL.Query().Get("sessionId")]
	h.mu.Unlock()
	if !ok {
		http.Error(w, "unknown session", http.StatusNotFound)
		return
	}
	m, ok := h.read(w, r)
	if !ok {
		return
	}
	w.WriteHeader(http.StatusAccepted)
	rep := h.s.Answer(m)
	if rep.Hang {
		return
	}
	sid := r.URL.Query().Get("sessionId")
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, live := h.sessions[sid]; !live {
		return
	}
	if rep.Line != nil {
		select {
		case out <- rep.Line:
		case <-r.Context().Done():
		}
	}
	if rep.End != nil {
		delete(h.sessions, sid)
		close(out) // a crash: the stream ends
	}
}
