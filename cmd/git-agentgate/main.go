// Command git-agentgate is agentgate under the name git looks for, so that
// `git agentgate <command>` runs `agentgate <command>` in the directory git
// was invoked in. It is installed with agentgate by
//
//	go install github.com/agentgate/agentgate/cmd/...@latest
//
// See docs/ROUTES.md.
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
