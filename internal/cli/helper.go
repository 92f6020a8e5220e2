package cli

// helper.go: live capture runs in agentgate-mcp (see mcp/wire for why;
// internal/check starts it); this is where agentgate reports its failures.

import (
	"fmt"
	"strings"

	"github.com/agentgate/agentgate/internal/check"
	"github.com/agentgate/agentgate/internal/safetext"
	"github.com/agentgate/agentgate/mcp/wire"
)

// printHelperError prints a failure of agentgate-mcp, its stderr tail and
// the hints for it (check.HelperHints).
func printHelperError(e *env, he *wire.HelperError) {
	fmt.Fprintf(e.stderr, "agentgate: error: %s\n", safetext.VisibleLine(he.Error()))
	if tail := strings.TrimRight(he.StderrTail, "\n"); tail != "" {
		fmt.Fprintf(e.stderr, "agentgate:   %s stderr (last lines):\n", wire.HelperName)
		for _, line := range strings.Split(tail, "\n") {
			fmt.Fprintf(e.stderr, "agentgate:   | %s\n", safetext.VisibleLine(line))
		}
	}
	printHints(e.stderr, check.HelperHints(e.engine(), he))
}
