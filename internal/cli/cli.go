// Package cli implements the agentgate command: flag parsing, the exit-code
// contract and the output of every subcommand. main is a thin wrapper.
package cli

import (
	"context"
	"io"
)

// Main runs agentgate with args (without the program name) and returns the
// process exit code.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	panic("todo")
}
