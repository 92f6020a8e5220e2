// Package capture connects to MCP servers (stdio, streamable HTTP, legacy
// SSE) with mcp-go for the transport and handshake, and lists their tools
// raw: every tool object is kept exactly as the server sent it.
package capture

import (
	"context"
	"encoding/json"
	"io"
	"time"

	"github.com/agentgate/agentgate/mcp/config"
)

// Options bound one capture run.
type Options struct {
	Timeout          time.Duration // per server; 0 = DefaultTimeout
	Concurrency      int           // 0 = DefaultConcurrency
	MaxResponseBytes int64         // per tools/list page; 0 = DefaultMaxResponseBytes
	MaxPages         int           // 0 = DefaultMaxPages
	Progress         io.Writer     // nil = quiet; else a terminal for live progress lines
}

// Result is the outcome for one server.
type Result struct {
	Server     string
	Tools      []json.RawMessage // raw tool objects in the order listed (all pages)
	Protocol   string            // negotiated protocol version
	Elapsed    time.Duration
	Err        error  // nil on success; messages are already redacted
	StderrTail string // bounded tail of a stdio server's stderr, redacted
}

// CaptureAll captures every server in parallel (bounded by Concurrency) and
// returns one Result per server, in the order given. Every process started
// (and its children) is gone when it returns, including on ctx cancellation.
func CaptureAll(ctx context.Context, servers []config.Resolved, opts Options) []Result {
	panic("todo")
}
