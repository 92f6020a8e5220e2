// Package proc starts a stdio MCP server and stops it with everything it
// started: the server's command runs in Resolved.Cwd ("" means this
// process's working directory) with this process's environment plus the
// configured env (a configured variable wins over an inherited one), as
// the root of a process tree of its own: a process group on unix, a Job
// Object on Windows (see docs/PLATFORMS.md).
//
// Shutdown closes the server's stdin, waits 10 ms for it to exit, then
// asks its tree to stop (SIGTERM to the process group; CTRL_BREAK on
// Windows), waits up to half a second more, then kills the whole tree
// (SIGKILL to the group; the job's termination); when the server exits by
// itself, its tree is killed at once. On Linux the leader also gets
// SIGKILL should the thread that started it die.
//
// The command is looked up as the server's client would on this OS (see
// package mcp/command): PATHEXT, and .cmd and .bat run through cmd.exe,
// on Windows; ~ and relative paths on unix. The last 8 KiB (at most 40
// lines) of the server's stderr is kept (StderrTail).
//
// agentgate-mcp's capture (mcp/capture) and guard (mcp/guard) start
// their stdio servers here, so both run a server the same way.
package proc

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/agentgate/agentgate/mcp/config"
)

// Process is a stdio server started by Start: its command runs as the
// root of a process tree of its own (a process group on unix, a Job
// Object on Windows: see the package doc), and Shutdown ends the whole
// tree (stdin, then TERM, then KILL).
type Process struct {
	p    *process
	out  *os.File
	once sync.Once
}

// Start starts r's command (r.Command, r.Args, r.Env over this
// process's environment, in r.Cwd) as the root of its own process tree.
// The server's stderr is kept (StderrTail) and, when stderr is not nil,
// also copied to stderr as it comes. The error, when it did not start, is
// redacted and names r.File; what the user can do about it is its Hints()
// []string, not text in the message.
func Start(r config.Resolved, stderr io.Writer) (*Process, error) {
	p, out, err := startProcess(r, stderr)
	if err != nil {
		e := &hintedError{msg: r.Redact(err.Error())}
		for _, h := range hintsOf(err) {
			e.hints = append(e.hints, r.Redact(h))
		}
		return nil, e
	}
	return &Process{p: p, out: out}, nil
}

// Stdout is the read end of the pipe from the server's stdout; Shutdown
// closes it.
func (p *Process) Stdout() *os.File { return p.out }

// Stdin is the server's stdin. Closing it only closes the pipe; Shutdown
// ends the server.
func (p *Process) Stdin() io.WriteCloser { return p.p.stdin }

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

// ExitStatus says how the server's leader ended ("exited with status 2",
// "was killed by signal killed"), waiting up to half a second for it when
// it is about to (its stdout has just closed); ok is false when it is
// still running.
func (p *Process) ExitStatus() (how string, ok bool) { return p.p.exitStatus() }

// StderrTail is the last 8 KiB (at most 40 lines) the server wrote to
// stderr so far, starting at a line boundary when it was cut; midLine is
// true when it was cut inside its first line (no newline in its last
// 8 KiB), which may start inside a secret.
func (p *Process) StderrTail() (tail string, midLine bool) { return p.p.tail.String() }

// ExitError is how a server started by Start ended, when not with status
// 0.
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
