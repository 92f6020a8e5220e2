package proc

// tree_linux.go: Linux's exact process-group handling: the leader is
// waited for without being reaped (waitid with WNOWAIT), so that its pid,
// the group's id, cannot be reused while the group is killed; /proc tells
// live members from zombies.

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// setParentDeathSignal asks the kernel to SIGKILL the server's leader when
// the thread of agentgate-mcp that started it dies (agentgate-mcp was
// SIGKILLed, say); the rest of the group sees its stdin close.
func setParentDeathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }

// waitLeader waits for the leader to exit without reaping it, kills what
// remains of the group, then reaps the leader.
func (g *pgroup) waitLeader(cmd *exec.Cmd) {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, g.pgid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	g.kill()
	_ = cmd.Wait()
}

// groupAlive reports whether /proc lists a process of group pgid that is
// not a zombie.
func groupAlive(pgid int) bool {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return false
	}
	for _, e := range ents {
		if e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:])) // state ppid pgrp ...
		if len(f) > 2 && f[2] == strconv.Itoa(pgid) && f[0] != "Z" && f[0] != "X" {
			return true
		}
	}
	return false
}
