// Package bridge presents a remote MCP server (streamable HTTP or legacy
// HTTP+SSE) as a stdio server does: two newline-delimited JSON-RPC byte
// streams, one to write the client's messages to and one to read the
// server's from, and a Wait that returns when the connection is over.
// agentgate guard reads a remote server through it (as its Upstream), and
// agentgate-mcp bridge runs it alone (see Serve).
//
// # Reaching the server
//
// Every request goes through the remote.Client capture uses too, so a bridged
// server is reached exactly as capture reaches it when locking: the
// configured headers on requests to the configured origin only, no
// Referer, at most 10 redirects and none to another origin unless the
// server allows it (agentgate.toml cross-origin-redirects), the stored
// OAuth token of the server's URL (refreshed when expired; unless a
// configured Authorization header takes its place), and a bound on each
// message (MaxResponseBytes: a JSON body, or one event-stream line or
// event). The messages themselves are not judged here: the bridge moves
// bytes, its reader (guard) decides what passes.
//
// # Streamable HTTP
//
// Each message from the client is POSTed to the URL (Accept:
// application/json, text/event-stream), in the order written: the next
// POST starts once the previous request is on the wire, without waiting
// for its answer, so a cancellation reaches the server while a call runs;
// after a notification or a response it waits for the server to accept
// it (at most Options.Timeout), so that notifications/initialized is
// taken in before the first request.
// A JSON answer is written out as one line (line breaks between tokens
// dropped, nothing else changed), an event-stream answer as one line per
// event, streamed as it comes (requests and notifications the server sends
// on the way included). The Mcp-Session-Id the server gives at initialize
// is sent with every later request, and so is MCP-Protocol-Version, read
// from the initialize result. Once the client has sent
// notifications/initialized, a GET opens the server's own event stream for
// messages it starts (a 405 means it has none); when that stream ends it
// is reopened with Last-Event-ID after the server's retry delay (1 s by
// default), giving up after 5 failed attempts in a row; when the last of
// them could not reach the server at all, the server is gone and the
// bridge ends as when it is lost (see Failures). An answer stream
// that ends before the answer, after the server gave event ids, is resumed
// the same way. When the client closes its side, the session is ended
// with a DELETE (a 405 is fine).
//
// Without an explicit transport (Server.FallbackSSE, as for a bare "url"
// in Cursor or VS Code), a 4xx other than 401 and 403 to the initialize
// POST makes the bridge retry the same URL as legacy SSE, as capture does.
//
// # Legacy SSE
//
// A GET opens the event stream; its first "endpoint" event names the URL
// (resolved against the stream's, and refused on another origin) that each
// client message is then POSTed to, in order (each POST once the previous
// one is answered, in the background: the client is read meanwhile);
// "message" events are the server's messages. The stream ending ends the connection.
//
// # Failures
//
// An HTTP error for one request, or an answer that is neither JSON nor an
// event stream (by its Content-Type: a web page, say), is answered to the
// client as a JSON-RPC error for that request id (code -32000, text
// naming the status or type and what to check; a notification's failure
// is logged), so the client never waits for an answer that will not come. Losing the server (connection refused,
// the session gone: 404 with a session id, the legacy stream closed, an
// initialize that fails) ends the bridge: Out reaches EOF and Wait returns
// the reason, already redacted. Messages go to Options.Log as
// "agentgate: NAME: ..." lines.
package bridge

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/agentgate/agentgate/internal/safetext"
	"github.com/agentgate/agentgate/mcp/auth"
	"github.com/agentgate/agentgate/mcp/config"
	"github.com/agentgate/agentgate/mcp/remote"
	"github.com/agentgate/agentgate/mcp/wire"
)

// Options bound one bridge.
type Options struct {
	// MaxResponseBytes bounds one message each way (a JSON body, an event,
	// a line from the client); 0 = wire.DefaultMaxResponseBytes.
	MaxResponseBytes int64
	// Timeout bounds connecting: the initialize POST's whole answer (its
	// headers, then the JSON body or the answer event; a stream kept open
	// after the answer is read on) and the legacy SSE endpoint event; also
	// each OAuth step. 0 = the server's Timeout, else
	// wire.DefaultTimeout.
	Timeout time.Duration
	// Interactive allows a browser login when the server asks for OAuth
	// and no stored token works.
	Interactive bool
	// Log receives one line per notable event (fallback, reconnect, a
	// failure); nil discards them.
	Log io.Writer
	// AuthHints, when set, is the fix for an OAuth failure, in place of
	// mcp/auth.Hints for the server's name (`agentgate auth login NAME`),
	// which is wrong for a name no client config holds (agentgate-mcp
	// bridge run without --server).
	AuthHints func(err error) []string
}

// Conn is a bridged server, shaped like a stdio server (and like guard's
// Upstream).
type Conn struct {
	// Out is the server's messages, one JSON-RPC message per line. It
	// reaches EOF when the connection ends.
	Out io.Reader
	// In takes the client's messages, one per line; Close means the client
	// went away (the session is ended, then Out ends).
	In io.WriteCloser
	// Wait returns once the connection is over and every goroutine of the
	// bridge has finished: nil when the client closed In, else why the
	// server was lost (redacted).
	Wait func() error
}

// errorCode is the JSON-RPC error code of the answers the bridge makes up
// for a request it could not deliver (implementation-defined server error
// range).
const errorCode = -32000

// transportClosed is how many failed reconnects in a row end a stream.
const maxReconnects = 5

// defaultRetry is the reconnect delay when the server gives none.
const defaultRetry = time.Second

// Open returns the bridge to r, a resolved http or sse server. Nothing is
// sent before the client's first message. The error is for a URL that is
// not http(s). ctx ending ends the bridge as a lost server does.
func Open(ctx context.Context, r config.Resolved, opts Options) (*Conn, error) {
	if opts.MaxResponseBytes <= 0 {
		opts.MaxResponseBytes = wire.DefaultMaxResponseBytes
	}
	if opts.Timeout <= 0 {
		opts.Timeout = wire.Options{}.ForServer(r.Server).Timeout
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	b := &bridge{r: r, opts: opts, parent: ctx, done: make(chan struct{}), jobs: make(chan func())}
	b.ctx, b.cancel = context.WithCancelCause(ctx)
	rm, err := remote.New(r, remote.Options{
		MaxResponseBytes: opts.MaxResponseBytes,
		Auth:             auth.ForServer(r, opts.Timeout, opts.Interactive, opts.Log),
		Refuse:           func(msg string) error { return &refusedError{msg} },
	})
	if err != nil {
		b.cancel(nil)
		return nil, errors.New(b.redact(err.Error()))
	}
	b.rm = rm
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	b.inR, b.out = inR, outW
	if r.Transport == config.SSE {
		b.t = newLegacy(b)
	} else {
		b.t = newStreamable(b)
	}
	go b.run()
	go func() {
		<-b.ctx.Done() // the caller's ctx, a lost server, or run's end
		inR.CloseWithError(errors.New("agentgate: the bridge is closed"))
	}()
	return &Conn{Out: outR, In: inW, Wait: b.wait}, nil
}

// transport is one of the two HTTP transports.
type transport interface {
	// send delivers one message from the client; it returns once the
	// next may be sent.
	send(m message)
	// close ends the session (the client went away).
	close()
}

type bridge struct {
	r    config.Resolved
	opts Options
	rm   *remote.Client
	t    transport

	parent  context.Context // Open's
	ctx     context.Context
	cancel  context.CancelCauseFunc
	inR     *io.PipeReader
	out     *io.PipeWriter
	outMu   sync.Mutex
	wg      sync.WaitGroup // goroutines that may write to out
	jobs    chan func()    // to an idle worker (goAsync)
	workers sync.WaitGroup
	done    chan struct{} // run has returned

	mu  sync.Mutex
	err error // why the server was lost; nil: still there, or the client left
}

// message is one line from the client, with what the bridge needs of its
// envelope.
type message struct {
	raw    []byte
	id     json.RawMessage // compact; nil for a notification or an unreadable line
	method string          // "" for a response
}

// request reports whether m expects an answer.
func (m message) request() bool { return m.id != nil && m.method != "" }

// parseMessage reads the envelope of one line; a line that is not a JSON
// object (a batch, garbage) is passed on with neither id nor method.
func parseMessage(line []byte) message {
	m := message{raw: line}
	var env struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(line, &env) == nil {
		m.method = env.Method
		if len(env.ID) > 0 && string(env.ID) != "null" {
			var c bytes.Buffer
			if json.Compact(&c, env.ID) == nil {
				m.id = c.Bytes()
			}
		}
	}
	return m
}

// run reads the client's lines and sends them, until In is closed or the
// server is lost.
func (b *bridge) run() {
	defer close(b.done)
	br := bufio.NewReaderSize(b.inR, 64<<10)
	for {
		line, err := readLine(br, b.opts.MaxResponseBytes)
		if len(bytes.TrimSpace(line)) > 0 && b.ctx.Err() == nil {
			b.t.send(parseMessage(line))
		}
		if err != nil {
			if errors.Is(err, errLineTooLong) {
				b.fail(fmt.Errorf("the client sent a message larger than %d bytes", b.opts.MaxResponseBytes))
			}
			break
		}
	}
	b.mu.Lock()
	lost := b.err != nil
	b.mu.Unlock()
	if !lost {
		b.t.close() // the client left, or Open's ctx ended (a signal)
	}
	b.cancel(nil)
	// What is in flight ends with the context; one blocked writing to Out
	// (nobody reads it any more) is released after closeTimeout.
	flushed := make(chan struct{})
	go func() { b.wg.Wait(); close(flushed) }()
	select {
	case <-flushed:
	case <-time.After(closeTimeout):
		b.out.CloseWithError(io.ErrClosedPipe)
		<-flushed
	}
	b.out.Close()
	b.workers.Wait()
}

// wait is Conn.Wait.
func (b *bridge) wait() error {
	<-b.done
	b.rm.CloseIdle()
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.err == nil && b.parent.Err() != nil {
		return b.parent.Err()
	}
	return b.err
}

// refusedError is a redirect the remote.Client refused.
type refusedError struct{ msg string }

func (e *refusedError) Error() string { return e.msg }

// fail ends the bridge because the server was lost: the first reason is
// kept (redacted) and logged, Out ends, and In refuses further writes.
func (b *bridge) fail(err error) {
	b.mu.Lock()
	first := b.err == nil && b.ctx.Err() == nil
	if first {
		b.err = errors.New(b.redact(err.Error()))
	}
	b.mu.Unlock()
	if !first {
		return
	}
	b.logf("%v", err)
	b.cancel(err)
	b.inR.CloseWithError(errors.New("agentgate: the remote server is gone"))
}

// emit writes one message (one line, no newline in it) to Out.
func (b *bridge) emit(msg []byte) {
	b.outMu.Lock()
	defer b.outMu.Unlock()
	buf := make([]byte, 0, len(msg)+1)
	buf = append(buf, msg...)
	_, _ = b.out.Write(append(buf, '\n'))
}

// copyBufs holds emitJSON's buffers.
var copyBufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// emitJSON streams a JSON body to Out as one line, dropping the line
// breaks between its tokens (JSON strings hold none) and the white space
// before its first token. A body that fails midway still ends its line,
// so the next message starts on its own; wrote reports whether anything
// but white space came.
func (b *bridge) emitJSON(body io.Reader) (wrote bool, err error) {
	b.outMu.Lock()
	defer b.outMu.Unlock()
	bp := copyBufs.Get().(*[]byte)
	defer copyBufs.Put(bp)
	buf := *bp
	for {
		n, rerr := body.Read(buf)
		chunk := buf[:n]
		if !wrote {
			chunk = bytes.TrimLeft(chunk, " \t\r\n")
		}
		out := chunk[:0]
		for _, c := range chunk {
			if c != '\n' && c != '\r' {
				out = append(out, c)
			}
		}
		if len(out) > 0 {
			wrote = true
			if _, werr := b.out.Write(out); werr != nil {
				return wrote, werr
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			err = rerr
			break
		}
	}
	if wrote {
		_, _ = b.out.Write([]byte{'\n'})
	}
	return wrote, err
}

// goAsync runs f on a goroutine of the bridge: an idle worker when one
// waits (its stack already grown by net/http), else a new one, which then
// waits up to workerIdle for more work. run waits for every f.
func (b *bridge) goAsync(f func()) {
	b.wg.Add(1)
	job := func() {
		defer b.wg.Done()
		f()
	}
	select {
	case b.jobs <- job:
	default:
		b.workers.Add(1)
		go b.worker(job)
	}
}

// workerIdle is how long a worker waits for more work before it ends.
const workerIdle = 10 * time.Second

func (b *bridge) worker(job func()) {
	defer b.workers.Done()
	t := time.NewTimer(workerIdle)
	defer t.Stop()
	for {
		job()
		t.Reset(workerIdle)
		select {
		case job = <-b.jobs:
		case <-t.C:
			return
		case <-b.ctx.Done():
			return
		}
	}
}

// answerError answers request m with a JSON-RPC error saying why it could
// not be delivered.
func (b *bridge) answerError(m message, text string) {
	if !m.request() {
		b.logf("%s: %s", m.describe(), text)
		return
	}
	msg, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0",
		"id":      m.id,
		"error":   map[string]any{"code": errorCode, "message": "agentgate: " + b.redact(text)},
	})
	b.logf("%s: %s", m.describe(), text)
	b.emit(msg)
}

// describe names m in a log line.
func (m message) describe() string {
	switch {
	case m.method != "":
		return safetext.VisibleLine(m.method)
	case m.id != nil:
		return "the response to request " + safetext.VisibleLine(string(m.id))
	}
	return "a message"
}

// logf writes one redacted "agentgate: NAME: ..." line to the log.
func (b *bridge) logf(format string, args ...any) {
	name := b.r.Name
	if v := safetext.VisibleLine(name); v != name {
		name = `"` + v + `"`
	}
	fmt.Fprintf(b.opts.Log, "agentgate: %s: %s\n", name, safetext.VisibleLine(b.redact(fmt.Sprintf(format, args...))))
}

// redact removes the server's secrets from text.
func (b *bridge) redact(text string) string {
	text = b.r.Redact(text)
	if b.r.URL != "" {
		text = strings.ReplaceAll(text, b.r.URL, config.StripURL(b.r.URL))
	}
	return text
}

var errLineTooLong = errors.New("line too long")

// readLine reads one line (without its newline) of at most max bytes;
// a longer line is errLineTooLong.
func readLine(br *bufio.Reader, max int64) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if int64(len(line)+len(chunk)) > max+1 {
			return nil, errLineTooLong
		}
		line = append(line, chunk...)
		if err == bufio.ErrBufferFull {
			continue
		}
		line = bytes.TrimSuffix(line, []byte("\n"))
		if int64(len(line)) > max { // the last line, without its newline
			return nil, errLineTooLong
		}
		return line, err
	}
}

// sleep waits d or until ctx ends; it reports whether ctx is still alive.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
