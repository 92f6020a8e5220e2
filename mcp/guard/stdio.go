package guard

import (
	"io"
	"os"

	"github.com/agentgate/agentgate/internal/sys/pipes"
	"github.com/agentgate/agentgate/mcp/capture"
	"github.com/agentgate/agentgate/mcp/config"
)

// StartStdio starts the server r (r.Command and r.Args; r.Env over this
// process's environment; r.Cwd) as capture does, in a process tree of its
// own (capture.StartProcess), and returns it as an Upstream: closing In
// shuts the whole tree down (stdin, then TERM, then KILL), Wait returns
// once it is gone, with a *capture.ExitError unless it exited with status
// 0. The pipe from the server's stdout is widened (internal/sys/pipes), so
// that a listing of a few hundred kilobytes crosses it in one piece. The
// server's stderr is copied to stderr as it comes (nil: kept only
// for the tail).
func StartStdio(r config.Resolved, stderr io.Writer) (Upstream, error) {
	proc, err := capture.StartProcess(r, stderr)
	if err != nil {
		return Upstream{}, err
	}
	if f, ok := proc.Stdout().(*os.File); ok {
		_, _ = pipes.Widen(f, pipes.Capacity) // a listing in one piece (Linux; best effort)
	}
	return Upstream{Out: proc.Stdout(), In: stdioIn{proc}, Wait: proc.Wait}, nil
}

// stdioIn is the server's stdin; Close shuts the server down.
type stdioIn struct{ p *capture.Process }

func (s stdioIn) Write(b []byte) (int, error) { return s.p.Stdin().Write(b) }
func (s stdioIn) Close() error                { s.p.Shutdown(); return nil }
