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
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/agentgate/agentgate/mcp/auth"
	"github.com/agentgate/agentgate/mcp/capture"
	"github.com/agentgate/agentgate/mcp/guard"
	"github.com/agentgate/agentgate/mcp/wire"
)

// Main runs agentgate-mcp with args (os.Args[1:]) and returns its exit
// code: "auth" runs agentgate's auth subcommands (mcp/auth.Serve, reading
// the environment with os.Getenv); "guard" is `agentgate guard`
// (mcp/guard.Serve; SIGPIPE is then ignored for the process, so that a
// client going away is a write error, not death); anything else answers one capture
// request read from stdin (mcp/wire.Serve with mcp/capture.Capture). ctx
// ends the run: cancelling it stops every server started, as SIGINT does.
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	switch {
	case len(args) > 0 && args[0] == "auth":
		return auth.Serve(ctx, stdin, stdout, stderr, os.Getenv)
	case len(args) > 0 && args[0] == "guard":
		// A client that goes away must not kill guard with SIGPIPE before
		// it has stopped the server: writes fail with EPIPE instead.
		signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
		return guard.Serve(ctx, args[1:], stdin, stdout, stderr, nil)
	}
	return wire.Serve(ctx, args, stdin, stdout, stderr, capture.Capture)
}
