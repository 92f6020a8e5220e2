package bridge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentgate/agentgate/mcp/auth"
	"github.com/agentgate/agentgate/mcp/config"
	"github.com/agentgate/agentgate/mcp/remote"
)

// streamable is the streamable-HTTP transport (see the package doc).
type streamable struct {
	b *bridge

	mu        sync.Mutex
	session   string          // Mcp-Session-Id, once given
	protocol  string          // MCP-Protocol-Version, once negotiated
	initID    json.RawMessage // the pending initialize request's id
	initDone  chan struct{}   // closed once the answer to initID is written out
	listening bool

	fallback transport // the legacy SSE transport, after a fallback
}

func newStreamable(b *bridge) *streamable { return &streamable{b: b} }

func (s *streamable) send(m message) {
	if s.fallback != nil {
		s.fallback.send(m)
		return
	}
	if m.method == "initialize" && m.request() {
		s.initialize(m)
		return
	}
	s.post(m)
	if m.method == "notifications/initialized" {
		s.mu.Lock()
		start := !s.listening
		s.listening = true
		s.mu.Unlock()
		if start {
			s.b.wg.Add(1)
			go func() {
				defer s.b.wg.Done()
				s.listen()
			}()
		}
	}
}

// request builds a request to the URL with the session's headers.
func (s *streamable) request(ctx context.Context, method string, body []byte) *http.Request {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, s.b.r.URL, rd)
	if err != nil { // the URL parsed in Open
		panic(err)
	}
	switch method {
	case http.MethodPost:
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
	case http.MethodGet:
		req.Header.Set("Accept", "text/event-stream")
	}
	s.mu.Lock()
	if s.session != "" {
		req.Header.Set("Mcp-Session-Id", s.session)
	}
	if s.protocol != "" {
		req.Header.Set("MCP-Protocol-Version", s.protocol)
	}
	s.mu.Unlock()
	return req
}

// initialize POSTs the client's initialize and returns once its answer
// is written out, so that the session id and the protocol version are
// known before the next message is sent: the answer's headers come with
// the session id, and a fallback to legacy SSE is decided on them. The
// whole answer (headers, then the JSON body or the answer event) must
// come within Options.Timeout, else m is answered with an error and the
// bridge ends; an answer stream the server keeps open after the answer is
// read on in the background, like any other.
func (s *streamable) initialize(m message) {
	b := s.b
	done := make(chan struct{})
	s.mu.Lock()
	s.initID, s.initDone = m.id, done
	s.mu.Unlock()
	deadline := time.Now().Add(b.opts.Timeout)
	tooLate := fmt.Errorf("the server did not answer initialize within %s (raise the timeout for this server in agentgate.toml if it starts slowly)", b.opts.Timeout)
	ctx, cancel := context.WithCancel(b.ctx)
	var timedOut atomic.Bool
	timer := time.AfterFunc(b.opts.Timeout, func() { timedOut.Store(true); cancel() })
	resp, err := b.rm.HTTP.Do(s.request(ctx, http.MethodPost, m.raw))
	timer.Stop()
	if err != nil {
		cancel()
		if timedOut.Load() {
			err = tooLate
		}
		s.lost(m, err)
		return
	}
	if b.r.FallbackSSE && resp.StatusCode >= 400 && resp.StatusCode < 500 &&
		resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden {
		drain(resp.Body)
		cancel()
		b.logf("streamable HTTP: %s; trying legacy SSE at the same URL", statusText(resp))
		s.fallback = newLegacy(b)
		s.fallback.send(m)
		return
	}
	handled := make(chan bool, 1)
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		defer cancel()
		handled <- s.handle(m, resp)
	}()
	late := time.NewTimer(time.Until(deadline))
	defer late.Stop()
	select {
	case <-done:
	case ok := <-handled:
		if !ok {
			b.fail(fmt.Errorf("initialize failed: %s", b.failureText(resp)))
		}
	case <-late.C:
		s.lost(m, tooLate) // ends the bridge, and with it the request
	}
}

// post POSTs m and returns once the request is on the wire (or failed),
// its answer handled in the background: a request's answer may take as
// long as the call does, and the client's next messages (a cancellation)
// must not wait for it. A notification or a response is different: the
// server accepts it at once (202), and what follows may depend on it
// (notifications/initialized before the first request), so post waits
// for its answer's headers, at most Options.Timeout.
func (s *streamable) post(m message) {
	b := s.b
	written, accepted := make(chan struct{}), make(chan struct{})
	var once sync.Once
	wrote := func() { once.Do(func() { close(written) }) }
	ctx := httptrace.WithClientTrace(b.ctx, &httptrace.ClientTrace{
		WroteRequest: func(httptrace.WroteRequestInfo) { wrote() },
	})
	req := s.request(ctx, http.MethodPost, m.raw)
	b.goAsync(func() {
		resp, err := b.rm.HTTP.Do(req)
		wrote()
		close(accepted)
		if err != nil {
			s.lost(m, err)
			return
		}
		s.handle(m, resp)
	})
	wait := written
	if !m.request() {
		wait = accepted
	}
	late := time.NewTimer(b.opts.Timeout)
	defer late.Stop()
	select {
	case <-wait:
	case <-b.ctx.Done():
	case <-late.C: // a server that holds it: go on, in the client's order still
	}
}

// lost handles a request that could not reach the server: unless the
// bridge is closing, m is answered with an error and the bridge ends
// (except for a refused redirect of a request after initialize: that
// request alone fails).
func (s *streamable) lost(m message, err error) {
	if s.b.ctx.Err() != nil {
		return
	}
	text := s.b.reachText(err)
	s.b.answerError(m, text)
	var re *refusedError
	if !errors.As(err, &re) || m.method == "initialize" {
		s.b.fail(errors.New(text))
	}
}

// handle writes out the answer to m's POST; it reports whether the status
// was a success.
func (s *streamable) handle(m message, resp *http.Response) bool {
	b := s.b
	defer resp.Body.Close()
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" && m.method == "initialize" {
		s.mu.Lock()
		s.session = sid
		s.mu.Unlock()
	}
	switch {
	case resp.StatusCode == http.StatusNotFound && s.sessionID() != "":
		text := "the server ended the session (HTTP 404 to a request with its Mcp-Session-Id); restart the client to start a new one"
		b.answerError(m, text)
		b.fail(errors.New(text))
		return false
	case resp.StatusCode >= 400:
		b.answerError(m, b.failureText(resp))
		return false
	case resp.StatusCode == http.StatusAccepted || resp.StatusCode == http.StatusNoContent:
		return true
	case isEventStream(resp):
		s.answerStream(m, resp.Body)
		return true
	case !isJSON(resp):
		// A web page (a proxy's login page, the wrong url) is no answer:
		// passed on, it would be a line the client cannot read, and the
		// request would wait for ever.
		text := fmt.Sprintf("the server answered %s with Content-Type %q, not JSON (check the url: is it the MCP endpoint, not a web page or a proxy's login page?)",
			m.describe(), resp.Header.Get("Content-Type"))
		drain(resp.Body)
		b.answerError(m, text)
		if m.method == "initialize" {
			b.fail(errors.New(text))
		}
		return true
	}
	if m.method == "initialize" {
		data, err := io.ReadAll(resp.Body)
		if err != nil {
			s.readFailed(m, err)
			return true
		}
		data = bytes.Map(dropNewline, bytes.TrimSpace(data))
		if len(data) > 0 {
			s.deliver(data)
		}
		return true
	}
	wrote, err := b.emitJSON(resp.Body)
	if err != nil && b.ctx.Err() == nil {
		s.readFailed(m, err)
	} else if !wrote && m.request() {
		b.answerError(m, fmt.Sprintf("the server answered %s with an empty body", m.describe()))
	}
	return true
}

// readFailed answers m when its answer could not be read whole.
func (s *streamable) readFailed(m message, err error) {
	b := s.b
	if b.ctx.Err() != nil {
		return
	}
	if errors.Is(err, remote.ErrResponseTooLarge) || errors.Is(err, errEventTooLarge) {
		b.answerError(m, fmt.Sprintf("the answer to %s is larger than %d bytes, the limit per message", m.describe(), b.opts.MaxResponseBytes))
		return
	}
	b.answerError(m, fmt.Sprintf("reading the answer to %s failed: %v", m.describe(), err))
}

// answerStream writes out the events of m's answer stream; when the
// stream ends before the answer, it resumes it (GET with Last-Event-ID)
// if the server gave event ids, else answers m with an error.
func (s *streamable) answerStream(m message, body io.Reader) {
	b := s.b
	sr := newSSEReader(body, b.opts.MaxResponseBytes)
	answered, err := s.pump(sr, m)
	if answered || !m.request() || b.ctx.Err() != nil {
		return
	}
	if errors.Is(err, errEventTooLarge) || errors.Is(err, remote.ErrResponseTooLarge) {
		s.readFailed(m, err)
		return
	}
	if !sr.hasID {
		b.answerError(m, fmt.Sprintf("the server closed the answer stream of %s before answering", m.describe()))
		return
	}
	if answered, _ := s.resume(sr, m); !answered && b.ctx.Err() == nil {
		b.answerError(m, fmt.Sprintf("the answer stream of %s ended before the answer and could not be resumed", m.describe()))
	}
}

// pump writes out every message event of sr; with a request m, it
// reports whether m's answer was among them.
func (s *streamable) pump(sr *sseReader, m message) (answered bool, err error) {
	for {
		ev, err := sr.next()
		if err != nil {
			return answered, err
		}
		if ev.typ != "" && ev.typ != "message" {
			continue
		}
		if m.request() && !answered {
			answered = answers(ev.data, m.id)
		}
		s.deliver(ev.data)
	}
}

// resume reopens a stream that ended with GET and Last-Event-ID, after the
// server's retry delay, until m's answer arrives (m zero: until the bridge
// ends), giving up after maxReconnects failed attempts in a row. It
// reports whether m was answered, and, when it gave up because the last
// attempt could not reach the server at all (connection refused, say),
// that attempt's error.
func (s *streamable) resume(sr *sseReader, m message) (bool, error) {
	b := s.b
	failures := 0
	var unreachable error
	for failures < maxReconnects {
		if !sleep(b.ctx, cmpDuration(sr.retry, defaultRetry)) {
			return false, nil
		}
		req := s.request(b.ctx, http.MethodGet, nil)
		if sr.hasID {
			req.Header.Set("Last-Event-ID", sr.lastID)
		}
		resp, err := b.rm.HTTP.Do(req)
		if err != nil {
			failures++
			unreachable = err
			continue
		}
		unreachable = nil
		if resp.StatusCode == http.StatusMethodNotAllowed || !isEventStream(resp) || resp.StatusCode != http.StatusOK {
			drain(resp.Body)
			if resp.StatusCode == http.StatusNotFound && s.sessionID() != "" {
				b.fail(errors.New("the server ended the session (HTTP 404 to a request with its Mcp-Session-Id); restart the client to start a new one"))
			} else if resp.StatusCode != http.StatusMethodNotAllowed {
				b.logf("reopening the event stream: %s", statusText(resp))
			}
			return false, nil
		}
		next := newSSEReader(resp.Body, b.opts.MaxResponseBytes)
		next.lastID, next.hasID, next.retry = sr.lastID, sr.hasID, sr.retry
		answered, _ := s.pump(next, m)
		resp.Body.Close()
		if next.lastID != sr.lastID {
			failures = 0 // progress
		} else {
			failures++
		}
		sr = next
		if answered {
			return true, nil
		}
	}
	return false, unreachable
}

// listen keeps the server's own event stream (GET) open until the bridge
// ends: opened once the client is initialized, reopened when it ends.
func (s *streamable) listen() {
	b := s.b
	req := s.request(b.ctx, http.MethodGet, nil)
	resp, err := b.rm.HTTP.Do(req)
	if err != nil {
		if b.ctx.Err() == nil {
			b.logf("opening the event stream: %s", b.reachText(err))
			s.reopen(&sseReader{}) // the server may have gone just now
		}
		return
	}
	if resp.StatusCode != http.StatusOK || !isEventStream(resp) {
		drain(resp.Body)
		if resp.StatusCode != http.StatusMethodNotAllowed {
			b.logf("opening the event stream: %s (the server's own messages will not arrive)", statusText(resp))
		}
		return
	}
	sr := newSSEReader(resp.Body, b.opts.MaxResponseBytes)
	_, err = s.pump(sr, message{})
	resp.Body.Close()
	if b.ctx.Err() != nil {
		return
	}
	if errors.Is(err, errEventTooLarge) || errors.Is(err, remote.ErrResponseTooLarge) {
		b.logf("the server sent an event larger than %d bytes, the limit per message; dropped", b.opts.MaxResponseBytes)
	}
	s.reopen(sr)
}

// reopen reopens the server's event stream that ended (or could not be
// opened) and keeps it open as listen does. A server that cannot be
// reached any more is gone (killed, crashed, restarted elsewhere): the
// bridge ends, as a stdio server's exit ends guard, rather than wait for
// the client's next request to find out.
func (s *streamable) reopen(sr *sseReader) {
	b := s.b
	if _, err := s.resume(sr, message{}); err != nil && b.ctx.Err() == nil {
		b.fail(fmt.Errorf("the server's event stream ended and could not be reopened: %s", b.reachText(err)))
	}
}

// deliver writes out one message from the server, reading the
// negotiated protocol version from it first when it is the answer to the
// pending initialize (whose wait then ends).
func (s *streamable) deliver(data []byte) {
	done := s.observe(data)
	s.b.emit(data)
	if done != nil {
		close(done)
	}
}

// observe reads the negotiated protocol version from the answer to the
// pending initialize; when data is that answer it returns the channel to
// close once it is written out.
func (s *streamable) observe(data []byte) chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.initID == nil {
		return nil
	}
	var env struct {
		ID     json.RawMessage `json:"id"`
		Method *string         `json:"method"`
		Result *struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"result"`
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(data, &env) != nil || env.Method != nil || !sameID(env.ID, s.initID) {
		return nil // not the answer: a request of the server's may use the same id
	}
	done := s.initDone
	s.initID, s.initDone = nil, nil
	if env.Result != nil && env.Result.ProtocolVersion != "" {
		s.protocol = env.Result.ProtocolVersion
	}
	return done
}

func (s *streamable) sessionID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.session
}

// close ends the session with a DELETE (at most closeTimeout), also when
// the bridge's context has ended.
func (s *streamable) close() {
	if s.fallback != nil {
		s.fallback.close()
		return
	}
	if s.sessionID() == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(s.b.ctx), closeTimeout)
	defer cancel()
	resp, err := s.b.rm.HTTP.Do(s.request(ctx, http.MethodDelete, nil))
	if err == nil {
		drain(resp.Body)
	}
}

// closeTimeout bounds the DELETE that ends a session.
const closeTimeout = 2 * time.Second

// answers reports whether data is a response to id.
func answers(data []byte, id json.RawMessage) bool {
	var env struct {
		ID     json.RawMessage `json:"id"`
		Method *string         `json:"method"`
	}
	return json.Unmarshal(data, &env) == nil && env.Method == nil && sameID(env.ID, id)
}

// sameID compares two JSON-RPC ids as values (compact id against raw).
func sameID(raw, compact json.RawMessage) bool {
	var c bytes.Buffer
	return len(raw) > 0 && json.Compact(&c, raw) == nil && bytes.Equal(c.Bytes(), compact)
}

func isEventStream(resp *http.Response) bool { return remote.IsEventStream(resp.Header) }

// isJSON reports whether resp's Content-Type is JSON (application/json or
// a +json type), or absent: a server that names none is given the benefit
// of the doubt.
func isJSON(resp *http.Response) bool {
	ct := resp.Header.Get("Content-Type")
	if ct == "" {
		return true
	}
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json"))
}

// drain reads a little of body (so the connection can be reused) and
// closes it.
func drain(body io.ReadCloser) {
	_, _ = io.Copy(io.Discard, io.LimitReader(body, 64<<10))
	body.Close()
}

func dropNewline(r rune) rune {
	if r == '\n' || r == '\r' {
		return -1
	}
	return r
}

func cmpDuration(a, b time.Duration) time.Duration {
	if a > 0 {
		return a
	}
	return b
}

// statusText names an HTTP status and the request it answered.
func statusText(resp *http.Response) string {
	return fmt.Sprintf("HTTP %d %s from %s %s", resp.StatusCode, http.StatusText(resp.StatusCode),
		resp.Request.Method, config.StripURL(resp.Request.URL.String()))
}

// failureText says why a request failed with resp's status, with what to
// check (capture's words).
func (b *bridge) failureText(resp *http.Response) string {
	if resp.StatusCode == http.StatusUnauthorized {
		if aerr := b.rm.AuthFailure(); aerr != nil {
			text := "OAuth: " + aerr.Error()
			hints := auth.Hints(aerr, b.r.Name)
			if b.opts.AuthHints != nil {
				hints = b.opts.AuthHints(aerr)
			}
			if len(hints) > 0 {
				text += " (" + strings.Join(hints, "; ") + ")"
			}
			return text
		}
	}
	return remote.FailureText(resp.StatusCode, resp.Request.Method, resp.Request.URL.String(), b.rm.Origin())
}

// reachText says why the server could not be reached.
func (b *bridge) reachText(err error) string {
	var re *refusedError
	if errors.As(err, &re) {
		return re.msg
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return fmt.Sprintf("cannot reach %s: %v (is the server running? check the url)", config.StripURL(ue.URL), remote.ReachCause(ue))
	}
	return err.Error()
}
