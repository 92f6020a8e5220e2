// Package mcpmain is agentgate-mcp's command line: the one dispatch from
// its arguments to what it runs, shared by cmd/agentgate-mcp (whose main
// adds only the process-wide settings: GOGC, signals, the exit) and by the
// tests that run their test binary as agentgate-mcp (internal/cli's
// testscript commands), so that a subcommand added to the helper is added
// here once. mcp/capture's conformance test keeps its own two-line copy:
// it is an internal test of mcp/capture, which this package imports.
package mcpmain

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/agentgate/agentgate/mcp/guardargs"

	"github.com/agentgate/agentgate/internal/safetext"
	"github.com/agentgate/agentgate/mcp/auth"
	"github.com/agentgate/agentgate/mcp/bridge"
	"github.com/agentgate/agentgate/mcp/capture"
	"github.com/agentgate/agentgate/mcp/config"
	"github.com/agentgate/agentgate/mcp/guard"
	"github.com/agentgate/agentgate/mcp/wire"
)

// Usage is agentgate-mcp's usage: the commands a user may run, and the
// agentgate commands that start the others.
const Usage = `Usage: ` + bridge.Usage + `
       agentgate-mcp version

agentgate-mcp is agentgate's helper for live MCP servers; agentgate starts
it, with its request on stdin: 'agentgate lock', 'diff', 'ci', 'demo' and
the hook (capture), 'agentgate auth' (agentgate-mcp auth) and 'agentgate
guard' (agentgate-mcp guard). Run those instead. Its own command is bridge
(agentgate-mcp bridge -h). Install it next to agentgate (README.md).
`

// Main runs agentgate-mcp with args (os.Args[1:]) and returns its exit
// code: "auth" runs agentgate's auth subcommands (mcp/auth.Serve, reading
// the environment with os.Getenv); "guard" is `agentgate guard`
// (mcp/guard.Serve after the versions agentgate gives, which must be this
// binary's: wire.CheckGuardArgs, else exit 3 before anything is read or
// started, or exit 2 when none are given; reaching a remote server through Remote; SIGPIPE is
// then ignored for the process, so that a client going away is a write
// error, not death); "bridge" is the stdio-to-remote bridge alone
// (mcp/bridge.Serve, reading the environment with os.LookupEnv; SIGPIPE
// ignored too, so that the session is ended when the client goes);
// "version" prints the versions; "help" (-h, --help) prints Usage on
// stdout; no arguments answers one capture request read from stdin
// (mcp/wire.Serve with mcp/capture.Capture). ctx ends the run: cancelling
// it stops every server started, as SIGINT does.
//
// A command run by hand that only agentgate should run, or run wrongly,
// is exit 2 with an error naming it and a hint naming the agentgate
// command to run instead: anything else as the first argument, "auth"
// with arguments (agentgate sends its request on stdin), "guard" without
// the versions agentgate gives first. A request on stdin that does not
// parse is exit 2 too (wire.Serve, auth.Serve), with the same hint.
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cmd := ""
	if len(args) > 0 {
		cmd = args[0]
	}
	switch cmd {
	case "":
		return wire.Serve(ctx, nil, stdin, stdout, stderr, capture.Capture)
	case "version", "-version", "--version":
		if len(args) > 1 {
			return usageError(stderr, fmt.Sprintf("%s takes no arguments, got %q", cmd, args[1]), "run agentgate-mcp version")
		}
		return wire.Serve(ctx, args, stdin, stdout, stderr, capture.Capture)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, Usage)
		return 0
	case "auth":
		if len(args) > 1 {
			return usageError(stderr, fmt.Sprintf("agentgate-mcp auth takes no arguments (agentgate sends it the servers on stdin), got %q", args[1]),
				auth.RunInstead)
		}
		return auth.Serve(ctx, stdin, stdout, stderr, os.Getenv)
	case "guard":
		rest, err := wire.CheckGuardArgs(args[1:])
		var ve *wire.VersionError
		if errors.As(err, &ve) && ve.Agentgate == "" {
			// No versions: run by hand, not by agentgate guard (or by an
			// agentgate older than protocol 3, which gave none).
			return usageError(stderr, "agentgate-mcp guard is started by agentgate guard, which gives it agentgate's version first; it was run without one",
				"run agentgate guard instead; its "+guardargs.GuardUsage,
				"if agentgate guard started it, that agentgate is older than this agentgate-mcp: "+wire.InstallHint(wire.Version()))
		}
		if err != nil {
			fmt.Fprintf(stderr, "agentgate: error: %v\n", err)
			if ve != nil {
				for _, hint := range ve.Hints() {
					fmt.Fprintf(stderr, "agentgate: hint: %s\n", hint)
				}
			}
			return guard.ExitUnverified
		}
		// A client that goes away must not kill guard with SIGPIPE before
		// it has stopped the server: writes fail with EPIPE instead.
		signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
		return guard.Serve(ctx, rest, stdin, stdout, stderr, Remote)
	case "bridge":
		signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
		return bridge.Serve(ctx, args[1:], stdin, stdout, stderr, os.LookupEnv)
	}
	return usageError(stderr, fmt.Sprintf("unknown command %q", cmd),
		"agentgate starts agentgate-mcp itself: run agentgate (lock, diff, ci, auth, guard) instead; agentgate-mcp's own commands: "+bridge.Usage+", agentgate-mcp version")
}

// usageError prints "agentgate-mcp: error: MSG" and its hints, and
// returns 2.
func usageError(stderr io.Writer, msg string, hints ...string) int {
	fmt.Fprintf(stderr, "%s: error: %s\n", wire.HelperName, safetext.VisibleLine(msg))
	for _, h := range hints {
		fmt.Fprintf(stderr, "agentgate: hint: %s\n", safetext.VisibleLine(h))
	}
	return 2
}

// Remote is guard's way to a remote server (--url): the bridge, whose
// messages go to guard's stderr.
func Remote(ctx context.Context, r config.Resolved, stderr io.Writer) (guard.Upstream, error) {
	c, err := bridge.Open(ctx, r, bridge.Options{Log: stderr})
	if err != nil {
		return guard.Upstream{}, err
	}
	return guard.Upstream{Out: c.Out, In: c.In, Wait: c.Wait}, nil
}
