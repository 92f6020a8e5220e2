//go:build linux

package cli

import (
	"bufio"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentgate/agentgate/internal/testing/testenv"
)

// TestGuardLifecycle runs the real `agentgate guard` (agentgate and its
// helper agentgate-mcp, built) in front of the fake server while a call
// hangs in it; the fake ignores SIGTERM, keeps running after its stdin
// ends and has forked a child that ignores SIGTERM too. However the
// session ends (the client closes stdin; the client's shutdown signal,
// SIGTERM, to agentgate; a terminal's Ctrl-C to the whole process group;
// agentgate SIGKILLed, then the client closing stdin), guard exits with
// the documented code (docs/GUARD.md, Exit codes: 0, the client ended
// the session) and nothing is left: not agentgate-mcp, not the server nor
// its child. Processes are identified by pid and start time
// (testenv.Proc), and the server's and agentgate's process groups are
// checked too.
func TestGuardLifecycle(t *testing.T) {
	bin := buildAgentgate(t)
	for _, tc := range []struct {
		name string
		end  func(t *testing.T, g *guardRun)
		code int    // agentgate's exit code; -1: killed
		log  string // a line guard prints on stderr
	}{
		{"client closes stdin", func(t *testing.T, g *guardRun) { g.stdin.Close() }, ExitOK, ""},
		{"SIGTERM to agentgate", func(t *testing.T, g *guardRun) { g.signal(t, syscall.SIGTERM, false) }, ExitOK, "interrupted (signal): the server was shut down"},
		{"SIGINT to the process group", func(t *testing.T, g *guardRun) { g.signal(t, syscall.SIGINT, true) }, ExitOK, "interrupted (signal): the server was shut down"},
		{"agentgate SIGKILLed, then stdin closed", func(t *testing.T, g *guardRun) {
			g.signal(t, syscall.SIGKILL, false)
			<-g.done // agentgate is gone; agentgate-mcp still serves the client
			if !g.helper.Alive() {
				t.Error("agentgate-mcp ended with agentgate, while the client still holds its stdin")
			}
			g.stdin.Close()
		}, -1, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := startGuardRun(t, bin)
			tc.end(t, g)
			g.waitGone(t)
			select {
			case <-g.stderrDone:
			case <-time.After(10 * time.Second):
				t.Error("stderr still open 10 s after every process is gone")
			}
			if got := g.exitCode(); got != tc.code {
				t.Errorf("agentgate exited %d, want %d\nstderr:\n%s", got, tc.code, g.stderr.String())
			}
			if tc.log != "" && !strings.Contains(g.stderr.String(), tc.log) {
				t.Errorf("stderr lacks %q:\n%s", tc.log, g.stderr.String())
			}
			if strings.Contains(g.stdout.String(), `"id":2`) && !strings.Contains(g.stdout.String(), `"id":2,"error"`) {
				t.Errorf("the hanging call got an answer that is not an error:\n%s", g.stdout.String())
			}
		})
	}
}

// guardRun is one `agentgate guard` started by startGuardRun.
type guardRun struct {
	cmd            *exec.Cmd
	stdin          io.WriteCloser
	stdout, stderr *testenv.SyncBuffer
	done           chan struct{}
	// stderrDone is closed when every writer of stderr has closed it and
	// the test's copy holds all of it: a process that is gone may still
	// have bytes in the pipe.
	stderrDone chan struct{}
	waitErr    error
	agentgate  testenv.Proc
	helper     testenv.Proc   // agentgate-mcp
	tree       []testenv.Proc // the fake server and its child
}

// startGuardRun starts agentgate guard, in a process group of its own, in
// front of a fake whose tools/call hangs, and returns once the call has
// reached the fake.
func startGuardRun(t *testing.T, bin string) *guardRun {
	t.Helper()
	r := lockedRepo(t, notesServer)
	log := filepath.Join(t.TempDir(), "fake.log")
	g := &guardRun{stdout: &testenv.SyncBuffer{}, stderr: &testenv.SyncBuffer{}, done: make(chan struct{})}
	g.cmd = exec.Command(bin, "guard", "--server", "notes", "--", os.Args[0],
		"-tools", "notes.json", "-log", log, "-call", "hang", "-ignore-sigterm", "-linger", "-fork-child")
	g.cmd.Dir = r.dir
	g.cmd.Env = append(builtEnv(), "AGENTGATE_FAKESERVER=1")
	// The pipes are the test's own (*os.File), so that Wait neither waits
	// for agentgate-mcp, which shares them, nor closes them when
	// agentgate exits: the client holds them, not agentgate.
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	g.stdin = inW
	g.cmd.Stdin, g.cmd.Stdout, g.cmd.Stderr = inR, outW, errW
	testenv.NewGroup(g.cmd)
	err = g.cmd.Start()
	inR.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { inW.Close() })
	go func() {
		br := bufio.NewReader(outR)
		for {
			line, err := br.ReadString('\n')
			g.stdout.Write([]byte(line))
			if err != nil {
				outR.Close()
				return
			}
		}
	}()
	g.stderrDone = make(chan struct{})
	go func() { io.Copy(g.stderr, errR); errR.Close(); close(g.stderrDone) }()
	go func() { g.waitErr = g.cmd.Wait(); close(g.done) }()
	t.Cleanup(func() {
		testenv.KillGroup(g.cmd.Process.Pid)
		for _, p := range g.tree {
			if p.Alive() {
				testenv.KillGroup(p.Pgid)
			}
		}
	})
	io.WriteString(g.stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`+"\n")
	io.WriteString(g.stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	io.WriteString(g.stdin, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search_notes","arguments":{}}}`+"\n")
	// A bound, so that a regression fails instead of hanging the test.
	watchdog := time.AfterFunc(60*time.Second, func() { testenv.KillGroup(g.cmd.Process.Pid) })
	waitForLine(t, log, "method tools/call", g.done)
	for !strings.Contains(g.stdout.String(), `"id":1,"result"`) {
		select {
		case <-g.done:
			t.Fatalf("no answer to initialize:\n%s\nstderr:\n%s", g.stdout.String(), g.stderr.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	watchdog.Stop()
	var ok bool
	if g.agentgate, ok = testenv.FindProc(g.cmd.Process.Pid); !ok {
		t.Fatal("agentgate is not running")
	}
	members := testenv.GroupMembers(g.cmd.Process.Pid)
	for _, pid := range members {
		if pid != g.agentgate.Pid {
			g.helper, _ = testenv.FindProc(pid)
		}
	}
	if len(members) != 2 || g.helper.Pid == 0 {
		t.Fatalf("agentgate's process group holds %v, want agentgate and agentgate-mcp", members)
	}
	for _, pid := range fakeLogPIDs(t, log) {
		p, ok := testenv.FindProc(pid)
		if !ok {
			t.Fatalf("process %d of the fake is not running", pid)
		}
		g.tree = append(g.tree, p)
	}
	if len(g.tree) != 2 || g.tree[0].Pgid != g.tree[0].Pid || g.tree[1].Pgid != g.tree[0].Pid {
		t.Fatalf("the fake logged %v, want itself leading its process group and its child in it", g.tree)
	}
	return g
}

// signal sends sig to agentgate, or to its whole process group.
func (g *guardRun) signal(t *testing.T, sig syscall.Signal, group bool) {
	t.Helper()
	pid := g.cmd.Process.Pid
	if group {
		pid = -pid
	}
	if err := syscall.Kill(pid, sig); err != nil {
		t.Fatal(err)
	}
}

// waitGone waits (a liveness bound, not a timing) until agentgate has
// exited and no process of the run is left, and fails naming what is.
func (g *guardRun) waitGone(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	var left []string
	for {
		left = left[:0]
		select {
		case <-g.done:
		default:
			left = append(left, "agentgate")
		}
		for _, p := range append([]testenv.Proc{g.agentgate, g.helper}, g.tree...) {
			if p.Alive() {
				left = append(left, strconv.Itoa(p.Pid))
			}
		}
		for _, pg := range []int{g.agentgate.Pgid, g.tree[0].Pgid} {
			for _, pid := range testenv.GroupMembers(pg) {
				left = append(left, "group "+strconv.Itoa(pg)+" member "+strconv.Itoa(pid))
			}
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("still running 30 s after the session ended: %v (agentgate %d, agentgate-mcp %d, fake %d, its child %d)\nstderr:\n%s",
				left, g.agentgate.Pid, g.helper.Pid, g.tree[0].Pid, g.tree[1].Pid, g.stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// exitCode is agentgate's exit code, -1 when a signal killed it.
func (g *guardRun) exitCode() int {
	<-g.done
	var ee *exec.ExitError
	if errors.As(g.waitErr, &ee) {
		return ee.ExitCode()
	}
	if g.waitErr != nil {
		return -2
	}
	return 0
}
