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

	"github.com/agentgate/agentgate/mcp/auth"
	"github.com/agentgate/agentgate/mcp/bridge"
	"github.com/agentgate/agentgate/mcp/capture"
	"github.com/agentgate/agentgate/mcp/config"
	"github.com/agentgate/agentgate/mcp/guard"
	"github.com/agentgate/agentgate/mcp/wire"
)

// Main runs agentgate-mcp with args (os.Args[1:]) and returns its exit
// code: "auth" runs agentgate's auth subcommands (mcp/auth.Serve, reading
// the environment with os.Getenv); "guard" is `agentgate guard`
// (mcp/guard.Serve after the versions agentgate gives, which must be this
// binary's: wire.CheckGuardArgs, else exit 3 before anything is read or
// started; reaching a remote server through Remote; SIGPIPE is
// then ignored for the process, so that a client going away is a write
// error, not death); "bridge" is the stdio-to-remote bridge alone
// (mcp/bridge.Serve, reading the environment with os.LookupEnv; SIGPIPE
// ignored too, so that the session is ended when the client goes);
// anything else answers one capture
// request read from stdin (mcp/wire.Serve with mcp/capture.Capture). ctx
// ends the run: cancelling it stops every server started, as SIGINT does.
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	switch {
	case len(args) > 0 && args[0] == "auth":
		return auth.Serve(ctx, stdin, stdout, stderr, os.Getenv)
	case len(args) > 0 && args[0] == "guard":
		rest, err := wire.CheckGuardArgs(args[1:])
		if err != nil {
			fmt.Fprintf(stderr, "agentgate: error: %v\n", err)
			var h interface{ Hints() []string }
			if errors.As(err, &h) {
				for _, hint := range h.Hints() {
					fmt.Fprintf(stderr, "agentgate: hint: %s\n", hint)
				}
			}
			return guard.ExitUnverified
		}
		// A client that goes away must not kill guard with SIGPIPE before
		// it has stopped the server: writes fail with EPIPE instead.
		signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
		return guard.Serve(ctx, rest, stdin, stdout, stderr, Remote)
	case len(args) > 0 && args[0] == "bridge":
		signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
		return bridge.Serve(ctx, args[1:], stdin, stdout, stderr, os.LookupEnv)
	}
	return wire.Serve(ctx, args, stdin, stdout, stderr, capture.Capture)
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
