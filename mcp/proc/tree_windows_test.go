package proc

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentgate/agentgate/internal/testing/fakeserver"
	"github.com/agentgate/agentgate/internal/testing/testenv"
	"golang.org/x/sys/windows"
)

// holderEnv makes the test binary a holder: it starts the fake with a
// child, waits until the fake has logged both, and exits without shutting
// them down, as agentgate-mcp does when it is killed.
const holderEnv = "AGENTGATE_TEST_HOLDER_LOG"

// holderMain runs the holder when holderEnv is set.
func holderMain() (int, bool) {
	log := os.Getenv(holderEnv)
	if log == "" {
		return 0, false
	}
	r := fake(nil, "held", "-log", log, "-fork-child", "-ignore-sigterm", "-linger", "-misbehave", "hang-init")
	if _, err := Start(r, nil); err != nil {
		os.Stderr.WriteString("holder: " + err.Error() + "\n")
		return 2, true
	}
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if data, _ := os.ReadFile(log); strings.Contains(string(data), "child ") {
			return 0, true // exit: the job's handle closes with this process
		}
	}
	return 3, true
}

// TestTreeEndsWithItsHolder: when the process that started a server dies
// without stopping it (agentgate-mcp killed), the server and the child it
// started end too: the Job Object's last handle closes with the holder,
// and KILL_ON_JOB_CLOSE ends every process in it. (unix: EOF and
// PDEATHSIG; internal/cli's TestParentSIGKILL.)
func TestTreeEndsWithItsHolder(t *testing.T) {
	log := filepath.Join(t.TempDir(), "log")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	holder := exec.Command(exe, "-test.run=^$")
	holder.Env = append(os.Environ(), holderEnv+"="+log)
	if out, err := holder.CombinedOutput(); err != nil {
		t.Fatalf("holder: %v\n%s", err, out)
	}
	_, pids := fakeLog(t, log)
	if len(pids) != 2 {
		t.Fatalf("want the fake's and its child's pid in the log, got %v", pids)
	}
	// A liveness bound, not a timing: the OS ends the job's processes as
	// the holder's handles close.
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if !testenv.Alive(pids[0]) && !testenv.Alive(pids[1]) {
			return
		}
	}
	for _, pid := range pids {
		if testenv.Alive(pid) {
			t.Errorf("process %d outlived the process that started it", pid)
			if h, err := windows.OpenProcess(windows.PROCESS_TERMINATE, false, uint32(pid)); err == nil {
				windows.TerminateProcess(h, 1)
				windows.CloseHandle(h)
			}
		}
	}
}

// fakeLog reads a fake's -log file (fakeserver.ReadLog; a fake that
// never started logged nothing).
func fakeLog(t testing.TB, path string) (methods []string, pids []int) {
	t.Helper()
	methods, pids, _ = fakeserver.ReadLog(path)
	return methods, pids
}
