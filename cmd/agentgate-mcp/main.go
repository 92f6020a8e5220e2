// Command agentgate-mcp is agentgate's capture helper: agentgate starts it
// when a command needs live MCP servers (lock, diff, ci, the hook when a
// config is staged, demo), sends it the resolved server definitions on
// stdin and reads the raw tools/list results from its stdout. It links
// mcp-go, which agentgate itself does not (see mcp/wire for why and for
// the protocol). Install it next to agentgate:
//
//	go install github.com/agentgate/agentgate/cmd/...@latest
//
// agentgate finds it through $AGENTGATE_MCP, else next to its own
// executable, else on $PATH. SIGINT, SIGTERM and EOF on its stdin (agentgate
// died or wants the capture stopped) stop every server it started; it still
// answers, with the servers marked cancelled. It answers as soon as it has
// the results and exits once every server it started is gone.
// "agentgate-mcp auth" runs agentgate's auth subcommands (see mcp/auth.Serve);
// "agentgate-mcp guard" is `agentgate guard`, the stdio proxy that checks
// what a client receives against agentgate.lock (see mcp/guard.Serve),
// reaching a remote server (--url) through mcp/bridge;
// "agentgate-mcp bridge --url URL [--server NAME] [--header K:V ...] [--transport http|sse]"
// is that bridge alone: stdio to its caller, streamable HTTP or SSE to the
// server (see mcp/bridge.Serve).
// The dispatch from arguments to subcommands is internal/mcpmain's.
package main

import (
	"context"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/agentgate/agentgate/internal/mcpmain"
)

func main() {
	if os.Getenv("GOGC") == "" {
		// The helper holds every raw tool until it answers, and mcp-go
		// copies each tools/list page about five times on the way in: at
		// the default GOGC=100 that garbage doubles the peak (about 2.5
		// times a 42 MB listing, bench.sh 4); at 25 it is about 1.9
		// times. The heap holds no pointers to speak of, so the extra
		// collections cost little.
		debug.SetGCPercent(25)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := mcpmain.Main(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
