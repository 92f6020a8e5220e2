package proc

// tree_windows.go: a stdio server's tree on Windows is a Job Object with
// JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE: every process the server starts
// (cmd /c -> npx.cmd -> node) belongs to it, and closing the job's last
// handle (agentgate-mcp exits or dies) ends them all.

import (
	"fmt"
	"os/exec"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// job is a server's Job Object.
type job struct {
	h   windows.Handle
	pid int
}

// prepareTree starts the server suspended, so that it is in its job before
// it runs (and can start children), in a console process group of its own
// (so CTRL_BREAK reaches it and not agentgate).
func prepareTree(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_SUSPENDED | windows.CREATE_NEW_PROCESS_GROUP}
}

// attachTree puts the started (suspended) server in a new job with
// KILL_ON_JOB_CLOSE, then resumes it.
func attachTree(cmd *exec.Cmd) (tree, error) {
	h, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return nil, fmt.Errorf("create a job object: %v", err)
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{
		BasicLimitInformation: windows.JOBOBJECT_BASIC_LIMIT_INFORMATION{LimitFlags: windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE},
	}
	if _, err := windows.SetInformationJobObject(h, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(h)
		return nil, fmt.Errorf("set up the job object: %v", err)
	}
	pid := cmd.Process.Pid
	ph, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(pid))
	if err == nil {
		err = windows.AssignProcessToJobObject(h, ph)
		windows.CloseHandle(ph)
	}
	if err == nil {
		err = resumeProcess(pid)
	}
	if err != nil {
		windows.CloseHandle(h)
		return nil, fmt.Errorf("put the server in a job object: %v", err)
	}
	return &job{h: h, pid: pid}, nil
}

// resumeProcess resumes every thread of a process started suspended.
func resumeProcess(pid int) error {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPTHREAD, 0)
	if err != nil {
		return err
	}
	defer windows.CloseHandle(snap)
	te := windows.ThreadEntry32{Size: uint32(unsafe.Sizeof(windows.ThreadEntry32{}))}
	resumed := 0
	for err = windows.Thread32First(snap, &te); err == nil; err = windows.Thread32Next(snap, &te) {
		if te.OwnerProcessID != uint32(pid) {
			continue
		}
		th, err := windows.OpenThread(windows.THREAD_SUSPEND_RESUME, false, te.ThreadID)
		if err != nil {
			return err
		}
		_, err = windows.ResumeThread(th)
		windows.CloseHandle(th)
		if err != nil {
			return err
		}
		resumed++
	}
	if resumed == 0 {
		return fmt.Errorf("no thread of process %d to resume", pid)
	}
	return nil
}

// waitLeader reaps the leader, then ends the rest of the job.
func (j *job) waitLeader(cmd *exec.Cmd) {
	_ = cmd.Wait()
	j.kill()
}

// terminate sends CTRL_BREAK to the server's console process group (Node
// and Python stop on it by default); it does nothing when agentgate-mcp
// has no console.
func (j *job) terminate() {
	_ = windows.GenerateConsoleCtrlEvent(windows.CTRL_BREAK_EVENT, uint32(j.pid))
}

func (j *job) kill() { _ = windows.TerminateJobObject(j.h, 1) }

// basicAccounting is JOBOBJECT_BASIC_ACCOUNTING_INFORMATION.
type basicAccounting struct {
	TotalUserTime, TotalKernelTime, ThisPeriodTotalUserTime, ThisPeriodTotalKernelTime int64
	TotalPageFaultCount, TotalProcesses, ActiveProcesses, TotalTerminatedProcesses     uint32
}

// waitGone waits until the job has no active process, then closes it
// (which, with KILL_ON_JOB_CLOSE, ends anything still left).
func (j *job) waitGone(limit time.Duration) {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		var acc basicAccounting
		if err := windows.QueryInformationJobObject(j.h, windows.JobObjectBasicAccountingInformation,
			uintptr(unsafe.Pointer(&acc)), uint32(unsafe.Sizeof(acc)), nil); err != nil || acc.ActiveProcesses == 0 {
			break
		}
		time.Sleep(2 * time.Millisecond)
	}
	windows.CloseHandle(j.h)
}
