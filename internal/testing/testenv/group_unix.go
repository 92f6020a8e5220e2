//go:build unix

package testenv

import (
	"os/exec"
	"syscall"
)

// NewGroup makes cmd (not yet started) the leader of a process group of
// its own (on Windows: a console process group), so that KillGroup ends
// it with its children.
func NewGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// KillGroup kills the group NewGroup gave the process pid.
func KillGroup(pid int) { _ = syscall.Kill(-pid, syscall.SIGKILL) }

// Interrupt sends SIGINT to pid, or to its whole group (as a terminal's
// Ctrl-C does) when group is set.
func Interrupt(pid int, group bool) error {
	if group {
		pid = -pid
	}
	return syscall.Kill(pid, syscall.SIGINT)
}

// CanInterrupt reports whether Interrupt works on this OS.
const CanInterrupt = true
