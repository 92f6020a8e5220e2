// Command agentgate pins the MCP tool surface a repository's AI agents see.
// See README.md and docs/.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/agentgate/agentgate/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Main(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
