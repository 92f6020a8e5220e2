package guard

// serve.go: `agentgate-mcp guard`, which `agentgate guard` runs.

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/agentgate/agentgate/mcp/guardargs"

	"github.com/agentgate/agentgate/internal/safetext"
	"github.com/agentgate/agentgate/internal/sys/pipes"
	"github.com/agentgate/agentgate/lock"
	"github.com/agentgate/agentgate/mcp/bridge"
	"github.com/agentgate/agentgate/mcp/config"
	"github.com/agentgate/agentgate/mcp/proc"
)

// Exit codes of Serve (the classes of docs/exit-codes.md).
const (
	ExitOK         = 0 // the client ended the session
	ExitInvalid    = 2 // bad flags, no lockfile, a damaged lockfile, a server it does not lock
	ExitUnverified = 3 // the server did not start, or ended the session
)

// Remote connects to a remote server (--url) and returns it as an
// Upstream; r holds the server's name, URL, headers and transport.
type Remote func(ctx context.Context, r config.Resolved, stderr io.Writer) (Upstream, error)

// Serve runs `agentgate-mcp guard` with args (after "guard"), the
// command line guardargs.GuardArgs defines (the one definition of guard's
// flags, which agentgate guard and wrap's see-through read too):
//
//	--server NAME [--lockfile PATH] [--on-drift withhold|block|warn]
//	[--allow-unlocked] [--max-listing-bytes N] [--max-tools N] [--ignore-member PATH ...]
//	-- COMMAND [ARGS...]
//	--server NAME --url URL [--header K:V ...] [--transport http|sse] [the same options]
//
// It reads the lockfile once, starts the server (or connects with
// remote, which may be nil when remote servers are not available), and
// proxies stdin and stdout to it (Run) until either side ends. Errors
// and decisions go to stderr; the exit code is one of ExitOK,
// ExitInvalid and ExitUnverified. A command line guardargs.ParseGuardArgs
// refuses is ExitInvalid, its error followed by guard's usage hint.
func Serve(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, remote Remote) int {
	return serve(ctx, args, stdin, stdout, stderr, remote, StartStdio)
}

// serve is Serve, starting stdio servers with start.
func serve(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, remote Remote,
	start func(config.Resolved, io.Writer) (Upstream, error)) int {
	fail := func(code int, msg string, hints ...string) int {
		fmt.Fprintf(stderr, "agentgate: error: %s\n", safetext.VisibleLine(msg))
		for _, h := range hints {
			fmt.Fprintf(stderr, "agentgate: hint: %s\n", safetext.VisibleLine(h))
		}
		return code
	}
	g, err := guardargs.ParseGuardArgs(args)
	if err != nil {
		var ge *guardargs.GuardArgsError
		errors.As(err, &ge)
		return fail(ExitInvalid, err.Error(), ge.Hints()...)
	}
	mode := Mode(g.Mode()) // one of guardargs.OnDriftModes: ParseGuardArgs checked it
	lockPath := cmp.Or(g.Lockfile, lock.FileName)
	pins, code := readPins(lockPath, g.Server, g.AllowUnlocked, stderr)
	if code != ExitOK {
		return code
	}
	if pins != nil {
		pins.Ignore = g.IgnoreMembers
	}
	r := config.Resolved{Server: config.Server{Name: g.Server, File: "agentgate guard's command line"}}
	var up Upstream
	if g.URL != "" {
		if remote == nil {
			return fail(ExitInvalid, "this agentgate-mcp cannot guard remote servers (--url)")
		}
		// The flags resolve as capture's config does (variables,
		// agentgate.toml settings, the SSE fallback): mcp/bridge.Flags.
		f := bridge.Flags{URL: g.URL, Headers: g.Headers, Transport: g.Transport}
		root, _ := os.Getwd()
		if r, err = f.Resolve(g.Server, root, os.LookupEnv); err != nil {
			bridge.WriteError(stderr, "agentgate", err) // each error with its own hints (agentgate.toml may have several)
			var ce *config.Error
			if errors.As(err, &ce) && ce.Unverifiable {
				return ExitUnverified
			}
			return ExitInvalid
		}
		up, err = remote(ctx, r, stderr)
	} else {
		r.Transport, r.Command, r.Args = config.Stdio, g.Command[0], g.Command[1:]
		var code int
		if r, code = startPinned(ctx, r, g, pins, stdin, stdout, stderr); code != ExitOK {
			return code
		}
		up, err = start(r, stderr)
	}
	if err != nil {
		var hints []string
		var h interface{ Hints() []string }
		if errors.As(err, &h) {
			hints = h.Hints()
		}
		return fail(ExitUnverified, fmt.Sprintf("server %q did not start: %v", g.Server, err), hints...)
	}
	if f, ok := stdout.(*os.File); ok {
		// The client's pipe too: a checked listing is written in one
		// piece, and the client reads it in one (Linux; best effort).
		_, _ = pipes.Widen(f, pipes.Capacity)
	}
	opts := Options{Server: g.Server, Pins: pins, Mode: mode, Log: stderr, MaxListingBytes: g.MaxListingBytes, MaxTools: g.MaxTools}
	err = Run(ctx, opts, stdin, stdout, up)
	if err == nil {
		if ctx.Err() != nil {
			// SIGINT or SIGTERM (the client's shutdown: MCP's stdio
			// transport closes stdin, then sends SIGTERM): the session
			// ended as when the client closes stdin.
			fmt.Fprintf(stderr, "agentgate: guard: %s: interrupted (signal): the server was shut down\n", shown(g.Server))
		}
		return ExitOK
	}
	var ee *proc.ExitError
	if errors.As(err, &ee) {
		fmt.Fprintf(stderr, "agentgate: guard: %s: server %s; guard exits 3 (could not verify)\n", shown(g.Server), ee.How)
		if tail := strings.TrimRight(ee.StderrTail, "\n"); tail != "" {
			fmt.Fprintf(stderr, "agentgate: guard: %s: its stderr (last lines):\n", shown(g.Server))
			for _, line := range strings.Split(tail, "\n") {
				fmt.Fprintf(stderr, "agentgate: guard:   | %s\n", safetext.VisibleLine(line))
			}
		}
		return ExitUnverified
	}
	if err == ErrServerExited {
		fmt.Fprintf(stderr, "agentgate: guard: %s: the server ended the session; guard exits 0\n", shown(g.Server))
		return ExitOK
	}
	fmt.Fprintf(stderr, "agentgate: guard: %s: %s; guard exits 3 (could not verify)\n", shown(g.Server), safetext.VisibleLine(err.Error()))
	return ExitUnverified
}

// readPins reads the lockfile at path once and returns the pins of
// server. A missing or damaged lockfile, or one that does not lock
// server, is ExitInvalid with a hint, unless allow (--allow-unlocked):
// then guard runs with nil pins and says so.
func readPins(path, server string, allow bool, stderr io.Writer) (*Pins, int) {
	problem := func(msg string, hints ...string) (*Pins, int) {
		if allow {
			fmt.Fprintf(stderr, "agentgate: guard: %s: warning: %s; --allow-unlocked: forwarding its listings unchecked\n", shown(server), safetext.VisibleLine(msg))
			return nil, ExitOK
		}
		fmt.Fprintf(stderr, "agentgate: error: %s\n", safetext.VisibleLine(msg))
		for _, h := range append(hints, "to run the server unchecked anyway, add --allow-unlocked") {
			fmt.Fprintf(stderr, "agentgate: hint: %s\n", safetext.VisibleLine(h))
		}
		return nil, ExitInvalid
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return problem(fmt.Sprintf("%s: no lockfile; guard will not start server %q without one", path, server),
			"create it in the repository: agentgate lock", "or name another: agentgate guard --lockfile PATH")
	}
	if err != nil {
		return problem(fmt.Sprintf("read %s: %v", path, err))
	}
	lf, err := lock.Parse(data)
	if err != nil {
		hint := "agentgate writes this file; if it was edited by hand or damaged (by a merge?), regenerate it with 'agentgate lock --force' and review the diff"
		var ve *lock.VersionError
		if errors.As(err, &ve) {
			hint = ve.Hints()[0]
		}
		return problem(fmt.Sprintf("%s: %v", path, err), hint)
	}
	pins, ok := PinsOf(lf, server)
	if !ok {
		return problem(fmt.Sprintf("%s does not lock a server named %q", path, server),
			fmt.Sprintf("lock it first: agentgate lock --server %s (the name must match the client config's)", server))
	}
	return pins, ExitOK
}
