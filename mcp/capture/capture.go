// Package capture connects to MCP servers (stdio, streamable HTTP, legacy
// SSE) with mcp-go for the transport and handshake, and lists their tools
// raw: every tool object is kept exactly as the server sent it.
//
// # Handshake
//
// capture performs the initialize handshake, offering protocol version
// 2025-11-25; servers speaking 2024-11-05 through 2025-11-25 answer with
// their own version. It does not probe server/discover first (mcp-go's
// default), so a server that ignores unknown methods costs no discovery
// stall. Only when a server rejects initialize with a JSON-RPC error
// (method not found, unsupported version) does capture try the 2026-07-28
// stateless core through server/discover, within the same timeout.
//
// # Client capabilities
//
// capture declares no client capabilities ("capabilities": {}) unless
// Resolved.ClientCapabilities (agentgate.toml's client-capabilities)
// names some: then initialize, and the _meta of 2026-07-28 listings,
// declare them, and the requests a server may then send while it is
// captured are answered at once (clientcaps.go): roots/list with the
// repository root (Options.Root, else the working directory) as a file://
// URI, sampling/createMessage with a JSON-RPC error, elicitation/create
// with decline; over stdio, streamable HTTP (requests on a request's
// event stream) and legacy SSE (read from the stream by capture itself).
//
// # Listing
//
// tools/list is sent through the transport directly (string request ids
// "agentgate-tools-list-N"); each result is decoded only as
// {tools: [raw...], nextCursor}. Cursors are followed to the end; a
// repeated cursor, more than MaxPages pages, a page larger than
// MaxResponseBytes, a listing whose pages add up to more than
// MaxListingBytes or more than MaxTools tools (Server.MaxListingBytes and
// Server.MaxTools override the last two for one server) is an error of
// that server alone, found as soon as the page that crosses it arrives.
// Zero tools is not an error here.
//
// # stdio servers
//
// The command runs in Cwd (Resolved.Cwd; "" means agentgate's working
// directory, which the CLI sets to the repository root) with agentgate's
// own environment plus the configured env; a configured variable wins
// over an inherited one. The server runs in its own process group. When a
// capture ends (success, failure, timeout or cancellation), capture closes
// its stdin, waits 10 ms for it to exit, then sends SIGTERM to its
// process group, waits up to a second more, then kills the whole group
// with SIGKILL; when the server exits by itself, its group is killed at
// once. On Windows the server runs in a Job Object instead (CTRL_BREAK for
// TERM, the job's termination for KILL; see docs/PLATFORMS.md). No process
// started by capture outlives Capture's wait.
//
// The command is looked up as the server's client would on this OS (see
// package mcp/command): PATHEXT, and .cmd and .bat run through cmd.exe,
// on Windows; ~ and relative paths on unix.
//
// Lines on stdout that are not JSON are skipped (and named in the error if the
// server then fails); a stdout line longer than MaxResponseBytes is an
// error. The last 8 KiB (at most 40 lines) of stderr is kept and returned,
// redacted, in Result.StderrTail when the server fails.
//
// # HTTP servers
//
// Every request (including the session DELETE on close) carries the
// configured headers, added by capture's own http.RoundTripper, but only
// to the configured scheme, host and port: a redirect to another origin is
// followed without them. A response body larger than MaxResponseBytes (for
// event streams: one line larger) is an error. With Server.FallbackSSE, a
// 4xx other than 401/403 to the streamable-HTTP initialize POST makes
// capture retry the same URL as legacy SSE. URLs are printed without
// userinfo, query or fragment.
//
// # Errors
//
// Result.Err is an *Error naming the server, its config file and the
// stage, with a message already redacted (Resolved.Redact and every value
// in Resolved.Secrets). It unwraps only to a sentinel, never to an error
// that might hold a secret: context.DeadlineExceeded for a timeout,
// context.Canceled when ctx was cancelled, or one of ErrExited, ErrHTTP,
// ErrRPC, ErrTooLarge, ErrPagination, ErrProtocol, ErrConnect.
package capture

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/agentgate/agentgate/internal/safetext"
	"github.com/agentgate/agentgate/mcp/config"
	"github.com/agentgate/agentgate/mcp/registry"
	"github.com/agentgate/agentgate/mcp/wire"
)

// Capture captures every server in parallel (bounded by Concurrency) and
// returns one Result per server, in the order given, as soon as every
// server has answered (or failed), while the stdio servers that answered
// are still being shut down (stdin, then TERM, then KILL: see the package
// doc): the caller can write and report meanwhile. wait returns once every
// process started (and its children) is gone, including on ctx
// cancellation; the caller must call it.
func Capture(ctx context.Context, servers []config.Resolved, opts wire.Options) (results []wire.Result, wait func()) {
	opts = opts.WithDefaults()
	prog := &progress{w: opts.Progress, wait: opts.Waiting, after: opts.WaitAfter}
	runs := &registry.Runs{} // npm config get, go env: asked once per run
	results = make([]wire.Result, len(servers))
	sem := make(chan struct{}, opts.Concurrency)
	var wg, closing sync.WaitGroup
	for i, r := range servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			results[i] = captureOne(ctx, r, opts, prog, runs, &closing)
		}()
	}
	wg.Wait()
	return results, closing.Wait
}

// progress writes one line per state change of a server, when enabled:
// "agentgate: NAME: STATE (ELAPSED)", ELAPSED in seconds since the server's
// capture began, e.g. "agentgate: memory: done: 9 tools (0.8s)". A name
// that safetext.VisibleLine changes (control, escape, bidi or other hidden
// characters) is shown escaped by it, in double quotes, so a config cannot
// write terminal escapes through it.
//
// Independently, wait (when set) gets "agentgate: waiting for NAME: WHAT
// (N s)" once a server has stayed in one state for after, and again each
// time that time doubles; WHAT says what it waits for (waitingFor), N is
// whole seconds since the server's capture began.
type progress struct {
	mu    sync.Mutex
	w     io.Writer
	wait  io.Writer
	after time.Duration
}

// watch reports each state of r's capture as report does, and watches
// for a state that lasts: it returns the function to call with each new
// state and the one that stops watching.
func (p *progress) watch(r config.Resolved, start time.Time) (state func(string), stop func()) {
	if p.wait == nil {
		return func(s string) { p.report(r.Name, s, start) }, func() {}
	}
	states := make(chan string, 1)
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		cur, wait := "", p.after
		timer := time.NewTimer(wait)
		defer timer.Stop()
		for {
			select {
			case <-done:
				return
			case cur = <-states:
				wait = p.after
				timer.Reset(wait)
			case <-timer.C:
				p.waiting(r, cur, start)
				timer.Reset(wait) // the next line when the wait has doubled
				wait *= 2
			}
		}
	}()
	state = func(s string) {
		p.report(r.Name, s, start)
		select {
		case <-states: // a state not yet picked up is superseded
		default:
		}
		states <- s
	}
	return state, func() { close(done); <-finished }
}

// waiting writes the line for r waiting in state.
func (p *progress) waiting(r config.Resolved, state string, start time.Time) {
	name := r.Name
	if v := safetext.VisibleLine(name); v != name {
		name = `"` + v + `"`
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.wait, "agentgate: waiting for %s: %s (%d s)\n", name, waitingFor(r, state), int(time.Since(start).Seconds()))
}

// waitingFor says what a server in state is waiting for: a launcher that
// fetches its package on first use (npx, uvx, docker, ...) before the
// first answer, the answer to initialize, or the listing.
func waitingFor(r config.Resolved, state string) string {
	switch {
	case strings.HasPrefix(state, "listing"):
		return "its listing (tools/list)"
	case r.Transport != config.Stdio:
		return "the answer to initialize"
	}
	base := filepath.Base(r.Command)
	launcher := strings.TrimSuffix(base, filepath.Ext(base)) // npx.cmd on Windows
	switch launcher {
	case "npx", "bunx", "pnpm", "yarn", "npm", "uvx", "uv", "pipx", "docker", "podman", "go":
		return launcher + " is downloading or starting the package"
	}
	return "the answer to initialize"
}

func (p *progress) report(server, state string, start time.Time) {
	if p.w == nil {
		return
	}
	if v := safetext.VisibleLine(server); v != server {
		server = `"` + v + `"`
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "agentgate: %s: %s (%.1fs)\n", server, state, time.Since(start).Seconds())
}
