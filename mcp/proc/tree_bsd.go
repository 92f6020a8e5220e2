//go:build unix && !linux

package proc

// tree_bsd.go: the portable unix path (macOS, the BSDs): no waitid with
// WNOWAIT, no /proc.

import (
	"os/exec"
	"syscall"
)

// setParentDeathSignal does nothing: only Linux has a parent-death
// signal. agentgate-mcp's servers still see their stdin close when it dies.
func setParentDeathSignal(*syscall.SysProcAttr) {}

// waitLeader reaps the leader, then kills what remains of its group. A
// process group's id is not reused while any member is alive (POSIX), so
// the kill reaches only the server's processes; when none is left it
// fails with ESRCH, unless a new group took the id in the microseconds
// between: the race Linux's waitid(WNOWAIT) closes.
func (g *pgroup) waitLeader(cmd *exec.Cmd) {
	_ = cmd.Wait()
	g.kill()
}

// groupAlive reports whether any process of group pgid exists (zombies
// not yet reaped by their new parent count as alive).
func groupAlive(pgid int) bool {
	err := syscall.Kill(-pgid, 0)
	return err == nil || err == syscall.EPERM
}
