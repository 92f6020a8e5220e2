//go:build unix

package cli

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/agentgate/agentgate/internal/testing/testenv"
)

// TestParentSIGKILL kills a real `agentgate lock` with SIGKILL (no chance
// to clean up) while its server hangs before answering initialize and
// ignores its stdin: agentgate-mcp sees EOF on its stdin (and, on Linux,
// gets its parent-death signal), stops the server's process group and
// exits. Nothing of the run may be left: not agentgate-mcp (agentgate's
// process group), not the server nor the child it forked, not even one
// that ignores SIGTERM. Before issue #9, both lingered until the capture
// timeout (here 5 minutes). The bound on waiting is a liveness check, not
// a timing: the log says how long it took.
func TestParentSIGKILL(t *testing.T) {
	bin := buildAgentgate(t)
	for _, tc := range []struct {
		name  string
		extra []string
	}{{"server ignores stdin", nil}, {"server also ignores SIGTERM", []string{"-ignore-sigterm"}}} {
		t.Run(tc.name, func(t *testing.T) {
			r := lockedRepo(t, notesServer)
			before := r.read("agentgate.lock")
			log := filepath.Join(t.TempDir(), "fake.log")
			r.writeConfig(map[string]any{"notes": fakeArgs(log, append([]string{"-tools", "notes.json", "-misbehave", "hang-init", "-fork-child"}, tc.extra...)...)})

			cmd := exec.Command(bin, "lock", "--timeout", "5m")
			cmd.Dir = r.dir
			cmd.Env = builtEnv()
			testenv.NewGroup(cmd)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			pgid := cmd.Process.Pid
			done := make(chan struct{})
			go func() { _ = cmd.Wait(); close(done) }()
			waitForLine(t, log, "method initialize", done)
			helpers := testenv.GroupMembers(pgid)
			if len(helpers) != 2 { // agentgate and agentgate-mcp
				t.Fatalf("agentgate's group holds %v, want agentgate and agentgate-mcp", helpers)
			}
			killed := time.Now()
			if err := syscall.Kill(pgid, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			<-done
			deadline := killed.Add(10 * time.Second)
			var left []int
			for {
				left = testenv.GroupMembers(pgid)
				for _, pid := range fakeLogPIDs(t, log) {
					if testenv.Alive(pid) {
						left = append(left, pid)
					}
				}
				if len(left) == 0 || time.Now().After(deadline) {
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
			if len(left) > 0 {
				testenv.KillGroup(pgid)
				t.Fatalf("still running %s after agentgate was SIGKILLed: %v", time.Since(killed), left)
			}
			t.Logf("agentgate-mcp, the server and its child gone %s after agentgate's SIGKILL", time.Since(killed).Round(time.Millisecond))
			assertAllGone(t, log, "lock (SIGKILLed)", 2)
			if after := r.read("agentgate.lock"); !bytes.Equal(after, before) {
				t.Errorf("agentgate.lock changed:\n%s", after)
			}
		})
	}
}
