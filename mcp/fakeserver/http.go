package fakeserver

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
)

// Handler serves the fake over HTTP: streamable HTTP at /mcp (POST one
// message, reply application/json; initialize sets Mcp-Session-Id; DELETE
// ends the session; GET is 405) and legacy HTTP+SSE at /sse (the event
// stream, whose first event names the POST URL) and /message. All
// connections share one server state (for example the tools/list count
// that crash-list and hang-list use). OnMessage sees every request's
// headers, and "DELETE" for a session DELETE.
func Handler(opts Options) http.Handler {
	h := &httpServer{s: newServer(opts), sessions: map[string]chan []byte{}}
	mux := http.NewServeMux()
	mux.HandleFunc("/mcp", h.streamable)
	mux.HandleFunc("GET /sse", h.sseStream)
	mux.HandleFunc("POST /message", h.ssePost)
	return mux
}

type httpServer struct {
	s        *server
	mu       sync.Mutex
	next     int
	sessions map[string]chan []byte
}

// read decodes one message from an HTTP request body and reports it.
func (h *httpServer) read(w http.ResponseWriter, r *http.Request) (message, bool) {
	var m message
	body, err := io.ReadAll(r.Body)
	if err == nil {
		err = json.Unmarshal(body, &m)
	}
	if err != nil {
		http.Error(w, "bad JSON-RPC message", http.StatusBadRequest)
		return m, false
	}
	if h.s.opts.OnMessage != nil {
		h.s.opts.OnMessage(m.Method, r.Header.Clone())
	}
	return m, true
}

func (h *httpServer) streamable(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodDelete:
		if h.s.opts.OnMessage != nil {
			h.s.opts.OnMessage("DELETE", r.Header.Clone())
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
	rep := h.s.answer(m)
	switch {
	case rep.hang:
		<-r.Context().Done()
		return
	case rep.err != nil && rep.line == nil:
		panic(http.ErrAbortHandler) // a crash: the connection just ends
	case rep.line == nil:
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if m.Method == "initialize" {
		w.Header().Set("Mcp-Session-Id", "fake-session-1")
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(rep.line)
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
	rep := h.s.answer(m)
	if rep.hang {
		return
	}
	sid := r.URL.Query().Get("sessionId")
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, live := h.sessions[sid]; !live {
		return
	}
	if rep.line != nil {
		select {
		case out <- rep.line:
		case <-r.Context().Done():
		}
	}
	if rep.err != nil {
		delete(h.sessions, sid)
		close(out) // a crash: the stream ends
	}
}
