//go:build unix

package proc

// tree_unix.go: a stdio server's tree on unix is its process group.

import (
	"os/exec"
	"syscall"
	"time"
)

// pgroup is a server's process group; its id is the leader's pid.
type pgroup struct{ pgid int }

// prepareTree makes the server the leader of a new process group (and, on
// Linux, asks for SIGKILL should agentgate-mcp die: see
// setParentDeathSignal).
func prepareTree(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	setParentDeathSignal(cmd.SysProcAttr)
}

// attachTree returns the group of a started server.
func attachTree(cmd *exec.Cmd) (tree, error) { return &pgroup{pgid: cmd.Process.Pid}, nil }

func (g *pgroup) terminate() { _ = syscall.Kill(-g.pgid, syscall.SIGTERM) }
func (g *pgroup) kill()      { _ = syscall.Kill(-g.pgid, syscall.SIGKILL) }

// waitGone waits until no live process is left in the group: SIGKILL is
// delivered at once but takes effect when the process next runs. It gives
// up after limit.
func (g *pgroup) waitGone(limit time.Duration) {
	deadline := time.Now().Add(limit)
	for groupAlive(g.pgid) && time.Now().Before(deadline) {
		time.Sleep(2 * time.Millisecond)
	}
}
