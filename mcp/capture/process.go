package capture

// process.go: a stdio server's process tree for callers other than a
// capture (agentgate guard), with the same start, lifecycle and shutdown.

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/agentgate/agentgate/mcp/config"
)

// Process is a stdio server started by StartProcess: its command runs as
// the root of a process tree of its own (a process group on unix, a Job
// Object on Windows: see the package doc), and Shutdown ends the whole
// tree in the order a capture does (stdin, then TERM, then KILL).
type Process struct {
	p    *process
	out  *os.File
	once sync.Once
}

// StartProcess starts r's command (r.Command, r.Args, r.Env over this
// process's environment, in r.Cwd) as the root of its own process tree.
// The server's stderr is kept (StderrTail) and, when stderr is not nil,
// also copied to stderr as it comes. The error, when it did not start, is
// redacted and names r.File.
func StartProcess(r config.Resolved, stderr io.Writer) (*Process, error) {
	p, out, err := startProcess(r, stderr)
	if err != nil {
		return nil, errors.New(redact(r, err.Error()))
	}
	return &Process{p: p, out: out}, nil
}

// Stdout is the server's stdout.
func (p *Process) Stdout() io.Reader { return p.out }

// Stdin is the server's stdin. Closing it only closes the pipe; Shutdown
// ends the server.
func (p *Process) Stdin() io.Writer { return p.p.stdin }

// Exited is closed once the server's leader has exited and what remained
// of its tree was killed.
func (p *Process) Exited() <-chan struct{} { return p.p.exited }

// Shutdown closes the server's stdin, gives it a moment to exit, asks its
// tree to stop, then kills it; it returns once no process of the tree is
// left. It is safe to call more than once and after the server exited.
func (p *Process) Shutdown() {
	p.once.Do(func() {
		p.p.shutdown()
		_ = p.out.Close()
	})
}

// Wait waits for the server's leader to exit (and its tree to be gone)
// and returns nil when it exited with status 0, else an *ExitError saying
// how it ended, with its stderr tail.
func (p *Process) Wait() error {
	<-p.p.reaped
	p.p.mu.Lock()
	st := p.p.state
	p.p.mu.Unlock()
	tail, _ := p.p.tail.String()
	if st != nil && st.Success() {
		return nil
	}
	how, _ := p.p.exitStatus()
	return &ExitError{How: how, StderrTail: tail}
}

// StderrTail is the last 8 KiB (at most 40 lines) the server wrote to
// stderr so far, starting at a line boundary.
func (p *Process) StderrTail() string {
	tail, _ := p.p.tail.String()
	return tail
}

// ExitError is how a server started by StartProcess ended, when not with
// status 0.
type ExitError struct {
	How        string // "exited with status 2", "was killed by signal killed"
	StderrTail string // its last stderr lines (not redacted: the caller's own command)
}

func (e *ExitError) Error() string {
	if t := strings.TrimRight(e.StderrTail, "\n"); t != "" {
		return fmt.Sprintf("server %s; stderr tail:\n%s", e.How, t)
	}
	return "server " + e.How
}
