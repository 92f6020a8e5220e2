package capture

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/agentgate/agentgate/mcp/config"
	"github.com/agentgate/agentgate/mcp/jsonrpc"
	"github.com/agentgate/agentgate/mcp/proc"
	"github.com/agentgate/agentgate/mcp/registry"
	"github.com/agentgate/agentgate/mcp/remote"
	"github.com/agentgate/agentgate/mcp/wire"
)

// clientInfo is how agentgate introduces itself in initialize.
var clientInfo = mcp.Implementation{Name: "agentgate", Version: "1"}

// session is the capture of one server.
type session struct {
	r      config.Resolved
	opts   wire.Options    // ForServer's: opts.Timeout is this server's
	parent context.Context // the caller's context
	cancel context.CancelCauseFunc
	stage  wire.Stage
	page   int
	listed atomic.Int64 // bytes of every list result so far (lists run at once)

	tr       transport.Interface
	exchange jsonrpc.Exchange // every answer of the server's matched with a request of ours
	proc     *proc.Process    // stdio only
	pump     *pump            // stdio only: the server's stdout to mcp-go
	rt       *remote.Client   // HTTP only
	protocol string

	// From the initialize (or server/discover) result.
	instructions *string
	hasPrompts   bool // capabilities.prompts advertised
	hasResources bool // capabilities.resources advertised
}

// listing is everything one capture lists.
type listing struct {
	tools, prompts, templates, resources []jsonRaw
}

// captureOne captures r. A stdio server that answered is shut down in the
// background, counted in closing; any other session is closed before
// captureOne returns (a failure's stderr tail is then complete).
func captureOne(ctx context.Context, r config.Resolved, opts wire.Options, prog *progress, runs *registry.Runs, closing *sync.WaitGroup) wire.Result {
	start := time.Now()
	opts = opts.ForServer(r.Server)
	s := &session{r: r, opts: opts, parent: ctx, stage: wire.StageStart}
	sctx, cancel := context.WithCancelCause(ctx)
	s.cancel = cancel
	tctx, cancelT := context.WithTimeout(sctx, s.opts.Timeout)
	report, stopWatch := prog.watch(r, start)
	defer stopWatch()
	report("starting")
	// The package is resolved (Options.Packages) while the server starts
	// and lists; a failure to resolve it fails the server once it listed.
	var pkg *wire.Package
	var pkgErr error
	pkgDone := make(chan struct{})
	if opts.Packages {
		go func() {
			defer close(pkgDone)
			pkg, pkgErr = resolvePackage(tctx, r, opts.Root, runs)
		}()
	} else {
		close(pkgDone)
	}
	l, err := s.run(tctx, report)
	if xerr := s.exchange.Err(); err == nil && xerr != nil {
		err = s.ambiguous(xerr) // a second answer read after the first was taken
	}
	<-pkgDone
	byPackage := err == nil && pkgErr != nil
	if byPackage {
		err = packageError(r, pkgErr)
	}
	if (err == nil || byPackage) && s.proc != nil {
		closing.Add(1)
		go func() {
			defer closing.Done()
			s.close()
			cancelT()
			cancel(nil)
		}()
	} else {
		s.close()
		cancelT()
		cancel(nil)
	}
	res := wire.Result{Server: r.Name, Tools: l.tools, Prompts: l.prompts, ResourceTemplates: l.templates, Resources: l.resources,
		Instructions: s.instructions, Package: pkg, Protocol: s.protocol, Elapsed: time.Since(start)}
	if err == nil {
		err = redactResult(&res, s.held())
	}
	tools := l.tools
	if err != nil {
		res = wire.Result{Server: r.Name, Protocol: s.protocol, Elapsed: res.Elapsed}
		res.Err = err
		if s.proc != nil && !byPackage {
			res.StderrTail = s.stderrTail()
		}
		prog.report(r.Name, "failed", start)
	} else {
		prog.report(r.Name, fmt.Sprintf("done: %d tools", len(tools)), start)
	}
	return res
}

// run connects, initializes and lists: tools, and, concurrently on the
// same session, prompts and resource templates when the server advertises
// prompts or resources, and resources when they are to be locked
// (Resolved.LockResources) and advertised. A list the server advertises
// and then fails is an error, never an empty list; the first error ends
// the others.
func (s *session) run(ctx context.Context, state func(string)) (listing, error) {
	var l listing
	if err := s.connect(ctx, state); err != nil {
		return l, err
	}
	s.stage = wire.StageList
	state("listing tools (protocol " + s.protocol + ")")
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	extras := []struct {
		on     bool
		stage  wire.Stage
		method mcp.MCPMethod
		key    string
		dst    *[]jsonRaw
	}{
		{s.hasPrompts, wire.StagePrompts, mcp.MethodPromptsList, "prompts", &l.prompts},
		{s.hasResources, wire.StageTemplates, mcp.MethodResourcesTemplatesList, "resourceTemplates", &l.templates},
		{s.hasResources && s.r.LockResources, wire.StageResources, mcp.MethodResourcesList, "resources", &l.resources},
	}
	var once sync.Once
	var first error // the first failure; the others may only be its echo
	fail := func(err error) { once.Do(func() { first = err; cancel() }) }
	var wg sync.WaitGroup
	for _, x := range extras {
		if !x.on {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			page := 0
			list, err := s.listAll(lctx, x.method, x.key, x.stage, &page)
			if err != nil {
				fail(err)
				return
			}
			*x.dst = list
		}()
	}
	tools, err := s.list(lctx)
	if err != nil {
		fail(err)
	}
	wg.Wait()
	if first != nil {
		return l, first
	}
	l.tools = tools
	if s.r.LockResources && l.resources == nil {
		l.resources = []jsonRaw{} // asked for, not advertised: none
	}
	return l, nil
}

// connect starts the server (or connects to it) and initializes.
func (s *session) connect(ctx context.Context, state func(string)) error {
	var err error
	switch s.r.Transport {
	case config.Stdio, "":
		err = s.startStdio(ctx)
	case config.StreamableHTTP:
		err = s.startHTTP(ctx, false)
	case config.SSE:
		err = s.startHTTP(ctx, true)
	default:
		return s.errorf(wire.ErrConnect, "unknown transport %q (want stdio, http or sse)", s.r.Transport)
	}
	if err != nil {
		return err
	}
	s.stage = wire.StageInitialize
	state("initializing")
	err = s.initialize(ctx)
	if err != nil && s.r.Transport == config.StreamableHTTP && s.r.FallbackSSE && s.rt.FallbackOK() {
		first := s.rt.Failure()
		_ = s.tr.Close()
		s.rt.CloseIdle()
		s.stage = wire.StageStart
		if err := s.startHTTP(ctx, true); err != nil {
			e := err.(*wire.Error)
			return s.errorf(e.Kind, "streamable HTTP: %s; SSE fallback: %s", first, e.Msg)
		}
		s.stage = wire.StageInitialize
		state("initializing (SSE fallback)")
		err = s.initialize(ctx)
	}
	return err
}

// initialize performs the handshake (see the package doc).
func (s *session) initialize(ctx context.Context) error {
	rec := &initRecorder{Interface: s.tr}
	caps := client.WithClientCapabilities(clientCapabilities(s.r.ClientCapabilities))
	if len(s.r.ClientCapabilities) > 0 {
		// Declared capabilities invite requests: capture answers them
		// (clientcaps.go). Without any, mcp-go's own handler stays, as
		// before client-capabilities existed.
		rec.handler = s.serverRequest
	}
	c := client.NewClient(rec, client.WithProtocolVersion(mcp.LATEST_LEGACY_PROTOCOL_VERSION), caps)
	if err := c.Start(ctx); err != nil {
		return s.fail(ctx, err)
	}
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	req.Params.ClientInfo = clientInfo
	res, err := c.Initialize(ctx, req)
	var unsupported mcp.UnsupportedProtocolVersionError
	if err != nil && ctx.Err() == nil && (errors.Is(err, mcp.ErrMethodNotFound) || errors.As(err, &unsupported)) {
		// Maybe a 2026-07-28 server without initialize: try server/discover.
		modern := client.NewClient(rec, client.WithProtocolVersion(mcp.LATEST_PROTOCOL_VERSION), caps)
		req.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
		if res2, err2 := modern.Initialize(ctx, req); err2 == nil && mcp.IsModernProtocol(res2.ProtocolVersion) {
			res, err = res2, nil
		}
	}
	if err != nil {
		return s.fail(ctx, err)
	}
	s.protocol = res.ProtocolVersion
	s.instructions = jsonrpc.InstructionsOf(rec.result())
	s.hasPrompts = res.Capabilities.Prompts != nil
	s.hasResources = res.Capabilities.Resources != nil
	return nil
}

// close ends the connection and, for stdio, every process of the server.
func (s *session) close() {
	if s.tr != nil {
		_ = s.tr.Close() // "signal: broken pipe" and the like are informational
	}
	if s.proc != nil {
		s.proc.Shutdown()
		s.pump.stop()
	}
	if s.rt != nil {
		s.rt.CloseIdle()
	}
}

// errorf returns an *Error for the current stage, redacting the message.
func (s *session) errorf(kind error, format string, args ...any) *wire.Error {
	return s.errorAt(s.stage, kind, format, args...)
}

// errorAt returns an *Error for stage, redacting the message.
func (s *session) errorAt(stage wire.Stage, kind error, format string, args ...any) *wire.Error {
	return &wire.Error{Server: s.r.Name, File: s.r.File, Stage: stage, Msg: s.redact(fmt.Sprintf(format, args...)), Kind: kind}
}

// fail turns err, which ended the current stage, into an actionable *Error,
// looking at what is known beyond err itself: the timeout, the caller's
// cancellation, an oversized response, a dead process, an HTTP status.
func (s *session) fail(ctx context.Context, err error) *wire.Error {
	var e *wire.Error
	if errors.As(err, &e) {
		return e
	}
	if cause := context.Cause(ctx); cause != nil {
		var ce *wire.Error
		switch {
		case errors.As(cause, &ce):
			return ce
		case s.parent.Err() != nil:
			return s.errorf(context.Canceled, "capture cancelled%s", s.during())
		case errors.Is(cause, context.DeadlineExceeded):
			return s.errorf(context.DeadlineExceeded, "%s within %s%s%s (raise the timeout for this server in agentgate.toml if it starts slowly)",
				s.timeoutWhat(), s.opts.Timeout, s.procDetail(false), s.httpDetail())
		}
	}
	if s.proc != nil {
		if exitMsg, ok := s.proc.ExitStatus(); ok {
			return s.errorf(wire.ErrExited, "process %s%s%s", exitMsg, s.during(), s.procDetail(true))
		}
		if errors.Is(err, transport.ErrTransportClosed) {
			return s.errorf(wire.ErrExited, "process closed its stdout%s%s", s.during(), s.procDetail(true))
		}
	}
	if s.rt != nil {
		if aerr := s.rt.AuthFailure(); aerr != nil {
			return s.errorf(wire.ErrAuth, "OAuth: %s", aerr.Error())
		}
		if f := s.rt.Failure(); f != "" {
			return s.errorf(wire.ErrHTTP, "%s", f)
		}
	}
	var unsupported mcp.UnsupportedProtocolVersionError
	if errors.As(err, &unsupported) {
		return s.errorf(wire.ErrProtocol, "server answered with protocol version %q, which agentgate does not speak (it speaks %s)",
			unsupported.Version, strings.Join(mcp.ValidProtocolVersions, ", "))
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return s.errorf(wire.ErrConnect, "cannot reach %s: %v (is the server running? check \"url\" in %s)", config.StripURL(ue.URL), remote.ReachCause(ue), s.r.File)
	}
	kind := wire.ErrConnect
	if s.stage != wire.StageStart {
		kind = wire.ErrProtocol
	}
	return s.errorf(kind, "%s", s.cleanURLs(err.Error()))
}

// timeoutWhat says what did not happen in time.
func (s *session) timeoutWhat() string {
	switch s.stage {
	case wire.StageStart:
		return "server did not start"
	case wire.StageInitialize:
		return "server did not answer initialize"
	default:
		return fmt.Sprintf("server did not finish %s (page %d)", s.stage, s.page)
	}
}

// during says at which point a process died.
func (s *session) during() string {
	switch s.stage {
	case wire.StageStart, wire.StageInitialize:
		return " before answering initialize"
	default:
		return fmt.Sprintf(" during %s (page %d)", s.stage, s.page)
	}
}

// procDetail adds what stdout and stderr showed, for stdio servers.
func (s *session) procDetail(withStderr bool) string {
	if s.proc == nil {
		return ""
	}
	var b strings.Builder
	if n, first, truncated, midLine := s.pump.badLines(); n > 0 {
		shown := s.clip(first, 120, truncated || midLine)
		if midLine {
			shown += " (cut short: stdout ended mid-line)"
		}
		fmt.Fprintf(&b, "; stdout had %d line(s) that are not JSON-RPC, first: %q", n, shown)
	}
	if withStderr || b.Len() > 0 {
		if last := lastLine(s.stderrTail()); last != "" {
			fmt.Fprintf(&b, "; stderr tail: %s", last)
		}
	}
	return b.String()
}

// stderrTail is the stdio server's stderr tail, redacted, without a
// fragment of a secret where the tail starts mid-line.
func (s *session) stderrTail() string {
	tail, midLine := s.proc.StderrTail()
	return s.held().RedactEdges(s.redact(tail), midLine, false)
}

// clip is text from the server redacted, then cut to at most max bytes
// (config.Resolved.Clip); truncated says the text was already cut at its
// end.
func (s *session) clip(text string, max int, truncated bool) string {
	return s.held().Clip(s.redact(text), max, truncated)
}

// httpDetail adds the last HTTP failure, for HTTP servers.
func (s *session) httpDetail() string {
	if s.rt == nil {
		return ""
	}
	if f := s.rt.Failure(); f != "" {
		return "; " + f
	}
	return ""
}

// redact removes every secret of the server from text, and every
// credential the session holds (held).
func (s *session) redact(text string) string {
	return s.held().Redact(text)
}

// held is the server's definition with every credential the session
// holds among its Secrets: the configured values (env, headers, URL
// userinfo and query, the OAuth client secret) and, for a remote server,
// the OAuth tokens and client secrets its token source has held
// (remote.Client.Credentials). Only this process knows the tokens: whatever
// leaves it (messages, the stderr tail, the listing: redactResult) is
// redacted with this set.
func (s *session) held() config.Resolved {
	r := s.r
	if s.rt != nil {
		if c := s.rt.Credentials(); len(c) > 0 {
			r.Secrets = append(slices.Clone(r.Secrets), c...)
		}
	}
	return r
}

// lastLine returns the last non-empty line of text, at most 300 bytes.
func lastLine(text string) string {
	lines := strings.Split(strings.TrimRight(text, "\r\n\t "), "\n")
	last := strings.TrimSpace(lines[len(lines)-1])
	if len(last) > 300 {
		last = last[:300] + "..."
	}
	return last
}

// initRecorder is the transport the handshake's client uses: s.tr, keeping
// the raw result of the last initialize or server/discover reply, so that
// instructions are read as sent (an empty string is not "none"). It passes
// on the optional transport interfaces mcp-go's client looks for.
type initRecorder struct {
	transport.Interface
	mu  sync.Mutex
	raw json.RawMessage
	// handler, when set, answers server-to-client requests in place of
	// the one mcp-go's client installs.
	handler transport.RequestHandler
}

func (r *initRecorder) SendRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	resp, err := r.Interface.SendRequest(ctx, req)
	if err == nil && resp != nil && resp.Error == nil &&
		(req.Method == string(mcp.MethodInitialize) || req.Method == string(mcp.MethodServerDiscover)) {
		r.mu.Lock()
		r.raw = resp.Result
		r.mu.Unlock()
	}
	return resp, err
}

func (r *initRecorder) result() json.RawMessage {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.raw
}

// SetRequestHandler passes server-to-client requests on, when s.tr takes
// them (stdio, streamable HTTP), to r.handler or else h.
func (r *initRecorder) SetRequestHandler(h transport.RequestHandler) {
	if r.handler != nil {
		h = r.handler
	}
	if b, ok := r.Interface.(transport.BidirectionalInterface); ok {
		b.SetRequestHandler(h)
	}
}

// SetProtocolVersion passes the negotiated version on to an HTTP
// transport, which sends it with every later request (the listings too).
func (r *initRecorder) SetProtocolVersion(v string) {
	if h, ok := r.Interface.(transport.HTTPConnection); ok {
		h.SetProtocolVersion(v)
	}
}

// SetConnectionLostHandler passes the handler on when s.tr takes one.
func (r *initRecorder) SetConnectionLostHandler(f func(error)) {
	if c, ok := r.Interface.(interface{ SetConnectionLostHandler(func(error)) }); ok {
		c.SetConnectionLostHandler(f)
	}
}
