package guard

import (
	"io"

	"github.com/agentgate/agentgate/internal/sys/pipes"
	"github.com/agentgate/agentgate/mcp/config"
	"github.com/agentgate/agentgate/mcp/proc"
)

// StartStdio starts the server r (r.Command and r.Args; r.Env over this
// process's environment; r.Cwd) as capture does, in a process tree of its
// own (proc.Start), and returns it as an Upstream: closing In shuts the
// whole tree down (stdin, then TERM, then KILL), Wait returns once it is
// gone, with a *proc.ExitError unless it exited with status 0. The pipe
// from the server's stdout is widened (internal/sys/pipes), so that a
// listing of a few hundred kilobytes crosses it in one piece. The
// server's stderr is copied to stderr as it comes (nil: kept only for
// the tail).
func StartStdio(r config.Resolved, stderr io.Writer) (Upstream, error) {
	p, err := proc.Start(r, stderr)
	if err != nil {
		return Upstream{}, err
	}
	_, _ = pipes.Widen(p.Stdout(), pipes.Capacity) // a listing in one piece (Linux; best effort)
	return Upstream{Out: p.Stdout(), In: stdioIn{p}, Wait: p.Wait}, nil
}

// stdioIn is the server's stdin; Close shuts the server down.
type stdioIn struct{ p *proc.Process }

func (s stdioIn) Write(b []byte) (int, error) { return s.p.Stdin().Write(b) }
func (s stdioIn) Close() error                { s.p.Shutdown(); return nil }
