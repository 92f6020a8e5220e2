package testenv

import (
	"errors"
	"strconv"

	"golang.org/x/sys/windows"
)

// stillActive is STILL_ACTIVE, the exit code of a process that runs.
const stillActive = 259

// osAlive reports whether process pid runs: it can be opened and has no
// exit code yet. A pid no process has is not alive; a process agentgate
// may not query (another user's) counts as alive, so that a test never
// calls a process gone that it cannot see.
func osAlive(pid int) (alive, known bool) {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return errors.Is(err, windows.ERROR_ACCESS_DENIED), true
	}
	defer windows.CloseHandle(h)
	var code uint32
	if err := windows.GetExitCodeProcess(h, &code); err != nil {
		return true, true
	}
	return code == stillActive, true
}

// osFindProc returns process pid if it runs, with its creation time as
// its start (a pid Windows gave a new process differs in it).
func osFindProc(pid int) (p Proc, ok, known bool) {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return Proc{}, false, true
	}
	defer windows.CloseHandle(h)
	var code uint32
	if err := windows.GetExitCodeProcess(h, &code); err != nil || code != stillActive {
		return Proc{}, false, true
	}
	var created, exited, kernel, user windows.Filetime
	if err := windows.GetProcessTimes(h, &created, &exited, &kernel, &user); err != nil {
		return Proc{}, false, true
	}
	return Proc{Pid: pid, start: strconv.FormatInt(created.Nanoseconds(), 10)}, true, true
}
