package proc

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/agentgate/agentgate/mcp/command"
	"github.com/agentgate/agentgate/mcp/config"
)

// closeGrace is how long a stdio server may take to exit after its stdin
// closes before it is asked to stop (SIGTERM to its process group on
// unix); termGrace is how long it then has before everything left of its
// tree is killed. The MCP stdio shutdown order (stdin, then TERM, then
// KILL) is kept, but a capture that has its answer does not wait long for
// a server that lingers after EOF (server-everything takes ~350 ms), and
// the whole order fits in well under a second, so that when agentgate dies
// (EOF on the helper's stdin) every server is gone within one second even
// if it ignores SIGTERM.
var (
	closeGrace = 10 * time.Millisecond
	termGrace  = 500 * time.Millisecond
)

// process is one stdio server and every process it started.
type process struct {
	cmd    *exec.Cmd
	tree   tree // the OS's hold on the server's process tree (tree_*.go)
	stdin  io.WriteCloser
	tail   *tailBuffer
	exited chan struct{} // closed once the leader has exited and the tree was killed
	reaped chan struct{} // closed once the leader was reaped
	mu     sync.Mutex
	state  *os.ProcessState
}

// tree is how one OS holds a server's process tree; tree_unix.go (a
// process group), tree_linux.go (waitid with WNOWAIT) and
// tree_windows.go (a Job Object) implement it.
type tree interface {
	// waitLeader returns once the leader has exited and was reaped
	// (cmd.Wait), with the rest of the tree killed as soon as the OS
	// lets that be done safely.
	waitLeader(cmd *exec.Cmd)
	// terminate asks every process of the tree to stop (SIGTERM to the
	// group on unix; CTRL_BREAK to the console group on windows).
	terminate()
	// kill ends every process of the tree at once.
	kill()
	// waitGone waits, at most limit, until no process of the tree is
	// left running, then releases what the OS lent (a job handle).
	waitGone(limit time.Duration)
}

// startProcess spawns r's command as the root of a tree of its own (see
// tree), with its stderr kept in the process's tail, and returns it with
// the read end of its stdout. The command is resolved first as the
// server's OS does it (see hostCommand and package command); a command
// that cannot be found starts nothing. Errors (not yet redacted) say what
// to check, with the fix as their Hints (a *hintedError) when there is one. When stderr is not nil, the server's
// stderr is also copied there.
func startProcess(r config.Resolved, stderr io.Writer) (*process, *os.File, error) {
	if r.Command == "" {
		return nil, nil, fmt.Errorf("no command to run (set \"command\" in %s)", r.File)
	}
	env := childEnv(os.Environ(), r.Env)
	path, args, err := hostCommand(r, env)
	if err != nil {
		var ce *command.Error
		if errors.As(err, &ce) && ce.Hint != "" {
			return nil, nil, &hintedError{msg: fmt.Sprintf("%s (check \"command\" in %s)", ce.Msg, r.File), hints: ce.Hints()}
		}
		return nil, nil, err
	}
	cmd := exec.Command(path, args...)
	cmd.Dir = r.Cwd
	cmd.Env = env
	prepareTree(cmd)
	cmd.WaitDelay = time.Second // a grandchild that escaped the tree must not hold Wait
	p := &process{cmd: cmd, tail: newTailBuffer(8<<10, 40), exited: make(chan struct{}), reaped: make(chan struct{})}
	cmd.Stderr = p.tail
	if stderr != nil {
		cmd.Stderr = io.MultiWriter(p.tail, stderr)
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, nil, fmt.Errorf("cannot start command: %v", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, nil, fmt.Errorf("cannot start command: %v", err)
	}
	cmd.Stdout = outW
	if err := cmd.Start(); err != nil {
		outR.Close()
		outW.Close()
		return nil, nil, fmt.Errorf("cannot start command %q: %v (check \"command\" in %s; is it installed and on PATH?)",
			r.Command, unwrapExec(err), r.File)
	}
	outW.Close()
	t, err := attachTree(cmd)
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		outR.Close()
		return nil, nil, fmt.Errorf("cannot start command %q: %v", r.Command, err)
	}
	p.tree = t
	p.stdin = stdin
	go p.watch()
	return p, outR, nil
}

// childEnv is the stdio server's environment on this OS (see
// command.MergeEnv: sorted, the configured env winning, names
// case-insensitive on Windows).
func childEnv(base []string, env map[string]string) []string {
	return command.MergeEnv(runtime.GOOS, base, env)
}

// unwrapExec drops the "exec: " prefix details that repeat the command.
func unwrapExec(err error) error {
	var ee *exec.Error
	if errors.As(err, &ee) {
		return ee.Err
	}
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// watch waits for the leader to exit, kills what remains of its tree and
// reaps it (see tree.waitLeader).
func (p *process) watch() {
	p.tree.waitLeader(p.cmd)
	close(p.exited)
	p.mu.Lock()
	p.state = p.cmd.ProcessState
	p.mu.Unlock()
	close(p.reaped)
}

// exitStatus reports how the leader ended, waiting briefly for it when it
// is about to (its stdout has just closed).
func (p *process) exitStatus() (string, bool) {
	select {
	case <-p.reaped:
	case <-time.After(500 * time.Millisecond):
		return "", false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	st := p.state
	if st == nil {
		return "exited", true
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return fmt.Sprintf("was killed by signal %s", ws.Signal()), true
	}
	return fmt.Sprintf("exited with status %d", st.ExitCode()), true
}

// shutdown closes stdin, gives the server closeGrace to exit, asks its
// tree to stop (tree.terminate) and gives it termGrace, then kills the
// tree; it returns once the leader is reaped and no process of the tree
// is left.
func (p *process) shutdown() {
	_ = p.stdin.Close()
	select {
	case <-p.exited:
	case <-time.After(closeGrace):
		p.tree.terminate()
		select {
		case <-p.exited:
		case <-time.After(termGrace):
			p.tree.kill()
		}
	}
	<-p.reaped
	p.tree.waitGone(2 * time.Second)
}

// tailBuffer keeps the last bytes of a stream, at most maxLines lines.
type tailBuffer struct {
	mu       sync.Mutex
	buf      []byte
	max      int
	maxLines int
	cut      bool
}

func newTailBuffer(max, maxLines int) *tailBuffer {
	return &tailBuffer{max: max, maxLines: maxLines}
}

func (t *tailBuffer) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
		t.cut = true
	}
	return len(b), nil
}

// String returns the tail, starting at a line boundary when it was cut;
// midLine is true when it was cut inside its first line (the stream had
// no newline in its last max bytes), which may start inside a secret.
func (t *tailBuffer) String() (tail string, midLine bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := string(t.buf)
	if t.cut {
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			s = s[i+1:]
		} else {
			midLine = true
		}
	}
	lines := strings.SplitAfter(s, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) > t.maxLines {
		lines = lines[len(lines)-t.maxLines:]
	}
	return strings.Join(lines, ""), midLine
}

// hostRules resolves commands: this OS's rules and file system. Tests
// replace it to run another OS's rules against a fixture.
var hostRules = func(spec command.Spec) (command.Resolved, error) {
	return command.Resolve(runtime.GOOS, spec, command.HostProbe)
}

// hintedError is an error message with what the user can do about it,
// as values (agentgate prints each as an "agentgate: hint: " line).
type hintedError struct {
	msg   string
	hints []string
}

func (e *hintedError) Error() string { return e.msg }

// Hints returns what the user can do about e.
func (e *hintedError) Hints() []string { return e.hints }

// hintsOf returns the Hints of the first error in err's chain that has
// them.
func hintsOf(err error) []string {
	var h interface{ Hints() []string }
	if errors.As(err, &h) {
		return h.Hints()
	}
	return nil
}

// hostCommand is the program and arguments that run r's command on this
// OS, given the server's environment (see package command). A command
// that cannot be found is a *command.Error, whose Hint is the fix.
func hostCommand(r config.Resolved, env []string) (string, []string, error) {
	res, err := hostRules(command.Spec{Command: r.Command, Args: r.Args, Dir: r.Cwd, Env: env})
	if err != nil {
		return "", nil, err
	}
	return res.Path, res.Args, nil
}
