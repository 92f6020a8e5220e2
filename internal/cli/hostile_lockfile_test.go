package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentgate/agentgate/internal/testing/testenv"
	"github.com/agentgate/agentgate/lock"
)

// Nothing lost: whatever happens during `agentgate lock`, agentgate.lock
// is either the old file or one complete new file.

// buildAgentgate builds cmd/agentgate (the real main, with its signal
// handling) and its helper cmd/agentgate-mcp into one temporary directory,
// as go install does, and returns agentgate's path.
func buildAgentgate(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command("go", "build", "-o", dir+string(filepath.Separator), "./cmd/agentgate", "./cmd/agentgate-mcp")
	cmd.Dir = testenv.RepoRoot(t)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/agentgate ./cmd/agentgate-mcp: %v\n%s", err, out)
	}
	return filepath.Join(dir, "agentgate")
}

// builtEnv is the environment for a binary from buildAgentgate: no
// AGENTGATE_MCP and a PATH without the test's agentgate-mcp, so agentgate
// can only use the helper built next to it.
func builtEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PATH=") && !strings.HasPrefix(kv, "AGENTGATE_MCP=") {
			env = append(env, kv)
		}
	}
	return append(env, "PATH=/usr/local/bin:/usr/bin:/bin")
}

// waitForLine polls path until it holds a line equal to line, or the
// process behind done has ended (then the test fails).
func waitForLine(t *testing.T, path, line string, done <-chan struct{}) {
	t.Helper()
	for {
		if b, err := os.ReadFile(path); err == nil && bytes.Contains(b, []byte("\n"+line+"\n")) {
			return
		}
		select {
		case <-done:
			t.Fatalf("agentgate ended before %s held %q", path, line)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// TestHostileCtrlC interrupts a real agentgate binary, which runs its real
// helper agentgate-mcp built next to it, with SIGINT while its server hangs
// before answering initialize: sent to the process group as a terminal's
// Ctrl-C is (agentgate and agentgate-mcp both get it), or to agentgate
// alone (it then stops agentgate-mcp with SIGTERM). Either way: exit 3, the
// old lockfile byte for byte, a message naming the server, and no process
// left (not the server, its child, nor agentgate-mcp).
func TestHostileCtrlC(t *testing.T) {
	if !testenv.CanInterrupt {
		t.Skip("no SIGINT on this OS")
	}
	bin := buildAgentgate(t)
	for _, tc := range []struct {
		name  string
		group bool
	}{{"process group", true}, {"agentgate alone", false}} {
		t.Run(tc.name, func(t *testing.T) {
			r := lockedRepo(t, notesServer)
			before := r.read("agentgate.lock")
			log := filepath.Join(t.TempDir(), "fake.log")
			r.writeConfig(map[string]any{"notes": fakeArgs(log, "-tools", "notes.json", "-misbehave", "hang-init", "-fork-child", "-ignore-sigterm")})
			r.write("notes.json", strings.Replace(notesTools, "Create a note.", "Create a note. Changed.", 1))

			var stdout, stderr bytes.Buffer
			cmd := exec.Command(bin, "lock", "--timeout", "5m")
			cmd.Dir = r.dir
			cmd.Env = builtEnv()
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			testenv.NewGroup(cmd)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			pgid := cmd.Process.Pid
			done := make(chan struct{})
			var waitErr error
			go func() { waitErr = cmd.Wait(); close(done) }()
			waitForLine(t, log, "method initialize", done)
			if err := testenv.Interrupt(pgid, tc.group); err != nil {
				t.Fatal(err)
			}
			select {
			case <-done:
			case <-time.After(60 * time.Second): // a bound, so a regression fails instead of hanging
				testenv.KillGroup(pgid)
				<-done
				t.Fatalf("agentgate did not exit after SIGINT\nstderr:\n%s", stderr.String())
			}
			var ee *exec.ExitError
			if !errors.As(waitErr, &ee) || ee.ExitCode() != ExitUnverified {
				t.Fatalf("exit: %v, want exit status %d\nstderr:\n%s", waitErr, ExitUnverified, stderr.String())
			}
			for _, w := range []string{`server "notes"`, "interrupted", "agentgate.lock left unchanged"} {
				if !strings.Contains(stderr.String(), w) {
					t.Errorf("stderr does not contain %q:\n%s", w, stderr.String())
				}
			}
			if after := r.read("agentgate.lock"); !bytes.Equal(after, before) {
				t.Errorf("agentgate.lock changed:\n%s", after)
			}
			assertAllGone(t, log, "lock (interrupted)", 2)
			if left := testenv.GroupMembers(pgid); len(left) > 0 {
				t.Errorf("processes of agentgate's group (agentgate-mcp?) still running: %v", left)
			}
			assertNoTempFiles(t, r.dir)
			t.Logf("stderr:\n%s", stderr.String())
		})
	}
}

// assertNoTempFiles fails when dir holds a lockfile temporary file.
func assertNoTempFiles(t *testing.T, dir string) {
	t.Helper()
	tmp, _ := filepath.Glob(filepath.Join(dir, ".agentgate.lock.tmp-*"))
	if len(tmp) > 0 {
		t.Errorf("temporary files left behind: %v", tmp)
	}
}

// TestHostileConcurrentLocks runs real `agentgate lock` processes at once
// (a go:generate and a hook, say), each seeing a different surface through
// its environment: afterwards agentgate.lock is exactly one run's complete
// output, never an interleaving, and no temporary file is left.
func TestHostileConcurrentLocks(t *testing.T) {
	bin, err := exec.LookPath("agentgate")
	if err != nil {
		t.Fatalf("agentgate is not on PATH: %v (TestMain registers it)", err)
	}
	r := newRepo(t, true, map[string]any{"notes": fakeServer("-tools", "${HOSTILE_TOOLS}")})
	// Surfaces of very different sizes, so that an interleaving of two
	// writes could not parse as either.
	var big strings.Builder
	big.WriteString("[")
	for i := range 400 {
		if i > 0 {
			big.WriteString(",")
		}
		fmt.Fprintf(&big, `{"name":"tool_%03d","description":"Tool %d %s","inputSchema":{"type":"object"}}`, i, i, strings.Repeat("x", 200))
	}
	big.WriteString("]")
	surfaces := []string{notesTools, big.String(), `[{"name":"only"}]`}
	files := make([]string, len(surfaces))
	want := map[string]int{}
	for i, s := range surfaces {
		files[i] = filepath.Join(t.TempDir(), "tools.json")
		if err := os.WriteFile(files[i], []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The expected outputs: each surface locked alone, from no lockfile.
	for i := range surfaces {
		os.Remove(filepath.Join(r.dir, "agentgate.lock"))
		runLockProcess(t, bin, r.dir, files[i])
		want[string(r.read("agentgate.lock"))] = i
	}
	if len(want) != len(surfaces) {
		t.Fatalf("the surfaces do not give distinct lockfiles")
	}
	for round := range 5 {
		var wg sync.WaitGroup
		for i := range surfaces {
			wg.Add(1)
			go func() { defer wg.Done(); runLockProcess(t, bin, r.dir, files[i]) }()
		}
		wg.Wait()
		got := r.read("agentgate.lock")
		if _, ok := want[string(got)]; !ok {
			_, perr := lock.Parse(got)
			t.Fatalf("round %d: agentgate.lock is no run's complete output (parse: %v):\n%.500s", round, perr, got)
		}
		assertNoTempFiles(t, r.dir)
	}
}

// runLockProcess runs `agentgate lock` as a process in dir with
// HOSTILE_TOOLS=tools, failing the test unless it exits 0.
func runLockProcess(t *testing.T, bin, dir, tools string) {
	cmd := exec.Command(bin, "lock")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOSTILE_TOOLS="+tools, "SOURCE_DATE_EPOCH=1785758400")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("agentgate lock: %v\n%s", err, out)
	}
}

// mountTmpfs mounts a tmpfs of size bytes on a new directory (root only;
// outside CI a non-root run skips) and unmounts it at the end of the test.
func mountTmpfs(t *testing.T, size int) string {
	t.Helper()
	if os.Geteuid() != 0 {
		testenv.Missing(t, "mounting a tmpfs needs root (CI runs as root)")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", fmt.Sprintf("size=%d", size), "tmpfs", dir).CombinedOutput(); err != nil {
		testenv.Missing(t, fmt.Sprintf("mount -t tmpfs: %v: %s", err, out))
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	return dir
}

// diskRepo is a repository root on dir (outside git: lock uses the
// working directory) whose server "notes" serves the tools file outside it,
// already locked; it returns the tools file's path and the lockfile bytes.
func diskRepo(t *testing.T, dir string) (*testRepo, string, []byte) {
	t.Helper()
	tools := filepath.Join(t.TempDir(), "notes.json")
	if err := os.WriteFile(tools, []byte(notesTools), 0o644); err != nil {
		t.Fatal(err)
	}
	r := &testRepo{t: t, dir: dir, env: map[string]string{}}
	r.writeConfig(map[string]any{"notes": fakeServer("-tools", tools)})
	r.mustRun(ExitOK, "lock")
	return r, tools, r.read("agentgate.lock")
}

// growSurface makes the server's surface larger than the old one.
func growSurface(t *testing.T, tools string) {
	t.Helper()
	var b strings.Builder
	b.WriteString("[")
	for i := range 200 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"name":"t%03d","description":"%s"}`, i, strings.Repeat("d", 100))
	}
	b.WriteString("]")
	if err := os.WriteFile(tools, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// checkWriteFailure runs lock and checks the failure: not 0 or 1, an error
// naming the lockfile and the cause, exit 3, the old bytes, no temporary file.
func checkWriteFailure(t *testing.T, r *testRepo, before []byte, cause string) {
	t.Helper()
	code, stdout, stderr := r.agentgate("lock")
	if code != ExitUnverified {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, ExitUnverified, stdout, stderr)
	}
	for _, w := range []string{"agentgate lock: error: could not write agentgate.lock", cause, "the existing file is unchanged", "agentgate: hint: "} {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr does not contain %q:\n%s", w, stderr)
		}
	}
	if after := r.read("agentgate.lock"); !bytes.Equal(after, before) {
		t.Errorf("agentgate.lock changed:\n%s", after)
	}
	assertNoTempFiles(t, r.dir)
	t.Logf("exit %d, stderr:\n%s", code, stderr)
}

// TestHostileReadOnlyDirectory locks into a directory remounted read-only
// (chmod does not stop root).
func TestHostileReadOnlyDirectory(t *testing.T) {
	dir := mountTmpfs(t, 1<<20)
	r, tools, before := diskRepo(t, dir)
	growSurface(t, tools)
	if out, err := exec.Command("mount", "-o", "remount,ro", dir).CombinedOutput(); err != nil {
		t.Fatalf("remount read-only: %v: %s", err, out)
	}
	checkWriteFailure(t, r, before, "read-only file system")
}

// TestHostileFullDisk locks into a 64 KiB tmpfs filled to the last byte.
func TestHostileFullDisk(t *testing.T) {
	dir := mountTmpfs(t, 64<<10)
	r, tools, before := diskRepo(t, dir)
	growSurface(t, tools)
	f, err := os.Create(filepath.Join(dir, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 4096)
	for {
		if _, err := f.Write(chunk); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			break
		}
	}
	for _, b := range [][]byte{chunk[:512], chunk[:64], chunk[:1]} { // the last partial page
		for {
			if _, err := f.Write(b); err != nil {
				break
			}
		}
	}
	f.Close()
	checkWriteFailure(t, r, before, "no space left on device")
}
