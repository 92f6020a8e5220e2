// Package guard is agentgate's stdio proxy between an MCP client and one
// MCP server: it forwards every message both ways and checks what the
// client receives against the server's entry in agentgate.lock, for the
// whole session.
//
// # What is checked
//
// Every tools/list result (every page, every time: also after
// notifications/tools/list_changed) is compared, tool by tool, with the
// server's pinned tools, by the lockfile's own hashes (package lock): a
// version 1 lockfile pins each tool's name, description and inputSchema
// hashes, a version 2 lockfile also its definition hash. With a version 2
// lockfile, prompts/list and resources/templates/list results are
// compared the same way (by definition hash), resources/list results too
// when the lockfile pins resources (by uri; otherwise they pass
// unchecked, logged once), and the initialize result's instructions with
// the pinned instructions hash.
//
// A listed definition that matches its pin passes; if every definition of
// a result passes, the result is forwarded byte for byte. A definition
// that differs from its pin, or that the lockfile does not pin, is
// handled by the Mode:
//
//   - Withhold (the default): it is removed from the result (the other
//     elements keep their bytes), and a later tools/call (prompts/get,
//     resources/read of the uri) for its name is answered by guard with a
//     JSON-RPC error saying it is not in agentgate.lock; the call never
//     reaches the server. Drifted
//     instructions are stripped from the initialize result (the member is
//     removed; everything else is kept).
//   - Block: the whole result is replaced by a JSON-RPC error (for
//     initialize: the session fails), and calls to such names are refused
//     as with Withhold.
//   - Warn: everything is forwarded; each difference is logged.
//
// A tools/call for a name the lockfile does not pin is refused in the
// Withhold and Block modes even when no listing showed it. A call for a
// pinned name that no listing since the last list_changed showed is
// decided by a listing guard sends the server itself (own.go).
//
// # What is refused
//
// A message from the server that is not JSON, is JSON that repeats a
// member name (or has two names differing only in case where clients read
// them differently: jsonrpc.CheckMembersOf), is not a JSON-RPC 2.0 message
// MCP allows (jsonrpc.ParseEnvelope), or is a response to no request of the
// client's, is not forwarded: a parser on the client's side might read
// something guard did not check. When the refused message is a response
// whose id names a pending request, the client gets a JSON-RPC error for
// it instead, so it does not wait for an answer that will not come. The
// client's messages are read by the same reader (readMessage); one it
// refuses is answered with a JSON-RPC error and never reaches the server.
//
// Everything else (requests and notifications either way, responses to
// every other method, progress, cancellation, sampling, elicitation)
// passes untouched.
//
// # Streaming
//
// Messages are read line by line. A line is held in memory only up to
// Options.SpillBytes; a longer one is written to a temporary file as it
// comes, then copied into private memory outside the heap (internal/sys/mmap.Copy:
// unix and Windows) and checked and copied to the client from that copy,
// never from the file, which a same-user server could rewrite after the
// check; so a 50 MB tool result is never held whole in guard's heap.
// A list result the server repeats is not checked again (memo.go). A list or initialize result, which must
// be compared and perhaps rewritten, is read into memory, up to
// Options.MaxListingBytes; a longer one is refused.
//
// # Log
//
// Every decision is one line on Options.Log: "agentgate: guard: SERVER:
// KIND NAME: WHAT: ACTION", with text from the server escaped by
// safetext.VisibleLine. Nothing but protocol is written to the client.
package guard

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/agentgate/agentgate/internal/safetext"
	"github.com/agentgate/agentgate/lock"
	"github.com/agentgate/agentgate/mcp/wire"
)

// Upstream is the real server, as newline-delimited JSON-RPC byte streams.
type Upstream struct {
	// Out is what the server sends (server -> guard).
	Out io.Reader
	// In is what the server receives (guard -> server); Close means the
	// client went away: the upstream ends the server (or connection).
	In io.WriteCloser
	// Wait returns once the server finished (after Out ended); its error
	// says how it ended and carries its stderr tail.
	Wait func() error
}

// Mode is what guard does with a listing that differs from the lockfile.
type Mode string

// The modes of --on-drift (guardargs.OnDriftModes, which guard's command
// line is checked against).
const (
	Withhold Mode = "withhold"
	Block    Mode = "block"
	Warn     Mode = "warn"
)

// Defaults for the zero values of Options.
const (
	DefaultSpillBytes      = 1 << 20
	DefaultMaxListingBytes = wire.DefaultMaxListingBytes // capture's limits, one home
	DefaultMaxTools        = wire.DefaultMaxTools
	DefaultMaxMessageBytes = 4 << 30
)

// Options configure one guarded session.
type Options struct {
	Server string // the server's name in the lockfile
	// Pins are the server's pins; nil means nothing is pinned and nothing
	// is compared (--allow-unlocked without an entry): messages are still
	// checked and refused as described in the package doc.
	Pins *Pins
	Mode Mode      // "" means Withhold
	Log  io.Writer // one line per decision; nil: discarded
	// MaxListingBytes bounds one list or initialize result (it is held in
	// memory to be compared); MaxTools the elements of one page.
	MaxListingBytes int64
	MaxTools        int
	// SpillBytes is the longest message held in memory as it is read;
	// longer ones go through a temporary file (see Streaming).
	SpillBytes int64
	// MaxMessageBytes bounds any message; a longer one is refused.
	MaxMessageBytes int64
	// TempDir is where long messages are spilled ("" is os.TempDir).
	TempDir string
}

// ErrServerExited is returned (wrapped, with the upstream's Wait error)
// by Run when the server ended the session.
var ErrServerExited = errors.New("the server exited")

// Run forwards messages between the client (client, clientOut) and up
// until one side ends. When the client closes its side, up.In is closed
// (the server is shut down), what the server still sends is forwarded,
// and Run returns nil once up.In.Close has returned (for StartStdio's
// upstream: once no process of the server's tree is left). When ctx ends,
// up.In is closed the same way and Run returns nil. When the server's output ends first, every request
// still pending gets a JSON-RPC error, and Run returns an error wrapping
// ErrServerExited and up.Wait's error.
func Run(ctx context.Context, opts Options, client io.Reader, clientOut io.Writer, up Upstream) error {
	p := newProxy(opts, clientOut)
	p.upIn = up.In
	clientDone := make(chan struct{})
	serverDone := make(chan error, 1)
	go func() {
		defer close(clientDone)
		p.clientLoop(client, up.In)
		p.mu.Lock()
		p.clientGone = true
		p.mu.Unlock()
		p.drain(serverDone)
		_ = up.In.Close()
	}()
	go func() { serverDone <- p.serverLoop(up.Out); close(serverDone) }()
	var readErr error
	select {
	case readErr = <-serverDone:
	case <-ctx.Done():
		_ = up.In.Close()
		readErr = <-serverDone
	}
	werr := up.Wait()
	p.mu.Lock()
	gone := p.clientGone
	p.mu.Unlock()
	if gone {
		// The client's side closed up.In: wait until that Close returned,
		// that is until the server's whole tree is gone (up.Wait returns
		// once the leader is reaped; a child it started may still be
		// exiting then).
		<-clientDone
	}
	if gone || ctx.Err() != nil {
		return nil
	}
	_ = up.In.Close() // the server ended: release what the upstream holds
	p.failPending("server " + strconv.Quote(opts.Server) + " exited")
	if readErr != nil && werr == nil {
		werr = readErr
	}
	if werr != nil {
		return fmt.Errorf("%w: %w", ErrServerExited, werr)
	}
	return ErrServerExited
}

// DrainTimeout is how long guard waits, after the client closed its
// side, for the answers to the requests it sent before, before it shuts
// the server down (a client that writes its requests and closes stdin, as
// a script does, still gets them).
var DrainTimeout = 2 * time.Second

// drain waits until no request is pending (but those the client
// cancelled, which the server need not answer), the server's output
// ended (done closed or sent), or DrainTimeout passed.
func (p *proxy) drain(done <-chan error) {
	deadline := time.Now().Add(DrainTimeout)
	for time.Now().Before(deadline) {
		n := 0
		p.mu.Lock()
		for _, pr := range p.pending {
			if !pr.cancelled {
				n++
			}
		}
		p.mu.Unlock()
		if n == 0 {
			return
		}
		select {
		case <-done:
			return
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// pending is one request of the client's still waiting for its response.
type pending struct {
	method string
	id     []byte // raw, as the client sent it
	// cancelled is set when the client sent notifications/cancelled for
	// it: an answer may still come (and is forwarded), but nobody waits
	// for it.
	cancelled bool
	// own is set for a listing guard sent itself (own.go): its answer is
	// checked and recorded, never forwarded.
	own *ownListing
}

// what names the request in the log.
func (pr pending) what() string {
	if pr.own != nil {
		return pr.method + " (guard's own, before a call)"
	}
	return pr.method
}

// proxy is the state of one session.
type proxy struct {
	opts Options
	mode Mode

	outMu sync.Mutex
	out   *bufio.Writer // over w
	w     io.Writer

	mu       sync.Mutex
	pending  map[string]pending
	withheld map[string]map[string]bool // kind -> name (a resource's uri) -> withheld by the last listing that showed it
	// seen holds, by kind listed since the session started or the
	// server last said the list changed, the names (uris) a listing
	// showed since then (own.go).
	seen       map[string]map[string]bool
	clientGone bool
	// toldUnpinned is set once the log said that this server's
	// resources are not pinned (resources/list passes unchecked).
	toldUnpinned bool
	// toldWithheld is, by kind, the names the last notifications/message
	// told the client were withheld (notify.go).
	toldWithheld map[string]string
	// clientCaps are the capabilities the client declared in initialize
	// (caps.go); toldCapabilities is set once the hint about them was
	// logged.
	clientCaps       []string
	toldCapabilities bool

	// The client loop's own: the server's input, where guard's own
	// listings are written, and their count (own.go).
	upIn   io.Writer
	ownSeq int

	// The server loop's own: memos of listings, the verdict cache, and
	// plain, which turns both off (the plain path the fast one is tested
	// against; memo.go).
	memos     []*memo
	memoHits  int
	cache     map[string]map[string]verdict
	cacheSize int
	plain     bool
}

func newProxy(opts Options, out io.Writer) *proxy {
	if opts.Mode == "" {
		opts.Mode = Withhold
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	if opts.MaxListingBytes <= 0 {
		opts.MaxListingBytes = DefaultMaxListingBytes
	}
	if opts.MaxTools <= 0 {
		opts.MaxTools = DefaultMaxTools
	}
	if opts.SpillBytes <= 0 {
		opts.SpillBytes = DefaultSpillBytes
	}
	if opts.MaxMessageBytes <= 0 {
		opts.MaxMessageBytes = DefaultMaxMessageBytes
	}
	return &proxy{opts: opts, mode: opts.Mode, out: bufio.NewWriterSize(out, 64<<10), w: out,
		pending: map[string]pending{}, withheld: map[string]map[string]bool{},
		seen: map[string]map[string]bool{}}
}

// send writes one message (without its newline) to the client. A message
// that does not fit the buffer, whose newline lies just past its end (a
// line as nextLine read it), is written with its newline in one write:
// the client reads it in one piece, with nothing left to wait for.
func (p *proxy) send(msg []byte) {
	p.outMu.Lock()
	defer p.outMu.Unlock()
	if n := len(msg); n >= p.out.Available() && p.out.Buffered() == 0 && cap(msg) > n && msg[:n+1][n] == '\n' {
		_, _ = p.w.Write(msg[:n+1])
		return
	}
	_, _ = p.out.Write(msg)
	_ = p.out.WriteByte('\n')
	_ = p.out.Flush()
}

// sendError answers the client's request id with a JSON-RPC error.
func (p *proxy) sendError(id []byte, code int, msg string) { p.send(errorLine(id, code, msg)) }

// errorLine is the JSON-RPC error response (without its newline) to the
// request id (a raw JSON value), with code and msg, which encoding/json
// writes (invalid UTF-8 becomes U+FFFD).
func errorLine(id []byte, code int, msg string) []byte {
	b := []byte(`{"jsonrpc":"2.0","id":`)
	b = append(b, id...)
	b = append(b, `,"error":{"code":`...)
	b = strconv.AppendInt(b, int64(code), 10)
	b = append(b, `,"message":`...)
	m, _ := json.Marshal(msg) // a string always marshals
	b = append(b, m...)
	return append(b, `}}`...)
}

// logf writes one decision: "agentgate: guard: SERVER: " and the text.
func (p *proxy) logf(format string, args ...any) {
	fmt.Fprintf(p.opts.Log, "agentgate: guard: %s: %s\n", shown(p.opts.Server), fmt.Sprintf(format, args...))
}

// shown is a name from the server (or the command line) for a log line:
// quoted, with anything hidden or control escaped by safetext.VisibleLine.
func shown(name string) string { return `"` + safetext.VisibleLine(name) + `"` }

// visible is text that may hold the server's for a log line, escaped by
// safetext.VisibleLine.
func visible(s string) string { return safetext.VisibleLine(s) }

// kinds of definitions, as the log names them.
const (
	kindTool     = lock.KindTool
	kindPrompt   = lock.KindPrompt
	kindTemplate = lock.KindResourceTemplate
	kindResource = lock.KindResource
)

// failPending answers every pending request with an error saying why.
func (p *proxy) failPending(why string) {
	p.mu.Lock()
	ids := make([][]byte, 0, len(p.pending))
	for k, pr := range p.pending {
		delete(p.pending, k)
		if pr.own != nil {
			pr.own.answer(false, nil)
			continue
		}
		ids = append(ids, pr.id)
	}
	p.mu.Unlock()
	for _, id := range ids {
		p.sendError(id, codeInternal, "agentgate guard: "+why+" before answering")
	}
}

// JSON-RPC error codes guard answers with.
const (
	codeParse          = -32700 // a line of the client's that is not JSON
	codeInvalidRequest = -32600 // a message of the client's guard refuses
	codeInvalidParams  = -32602 // a call for a name not in agentgate.lock
	codeInternal       = -32603 // a refused reply, a blocked listing, a server that exited
)
