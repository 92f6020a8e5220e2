package testenv

import (
	"errors"
	"os/exec"
	"strconv"
	"syscall"
)

// NewGroup makes cmd (not yet started) the root of a console process group
// of its own, so that KillGroup ends it with its children.
func NewGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

// KillGroup kills pid and every process it started (taskkill /T /F).
func KillGroup(pid int) { _ = exec.Command("taskkill", "/T", "/F", "/PID", strconv.Itoa(pid)).Run() }

// Interrupt is not possible on Windows: there is no SIGINT to send to a
// process; a console's Ctrl-C reaches every process attached to it.
func Interrupt(int, bool) error { return errors.New("no SIGINT on windows") }

// CanInterrupt reports whether Interrupt works on this OS.
const CanInterrupt = false
