// Package testenv holds helpers shared by agentgate's tests: the pinned npm
// MCP servers, free ports, and process inspection through /proc.
package testenv

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// RepoRoot returns the directory holding go.mod, found by walking up from
// the test's working directory.
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("testenv: no go.mod above the test's working directory")
		}
		dir = parent
	}
}

// CI reports whether the tests run in CI (CI=true), where a missing
// dependency is a failure, never a skip.
func CI() bool { return os.Getenv("CI") == "true" }

// Missing fails the test in CI and skips it elsewhere, with msg.
func Missing(t testing.TB, msg string) {
	t.Helper()
	if CI() {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// NPMBin returns the path of testdata/npm/node_modules/.bin/<name>, the
// pinned npm MCP servers scripts/test.sh installs. When it is missing the
// test fails in CI and is skipped elsewhere, saying to run scripts/test.sh.
func NPMBin(t testing.TB, name string) string {
	t.Helper()
	p := filepath.Join(RepoRoot(t), "testdata", "npm", "node_modules", ".bin", name)
	if _, err := os.Stat(p); err != nil {
		Missing(t, "testenv: "+p+" is missing: run scripts/test.sh (npm ci --prefix testdata/npm)")
	}
	return p
}

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func FreePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// WaitPort waits until something accepts TCP connections on 127.0.0.1:port,
// or ctx ends (then the test fails).
func WaitPort(ctx context.Context, t testing.TB, port int) {
	t.Helper()
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("testenv: nothing listens on %s: %v", addr, err)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Alive reports whether process pid exists and is not a zombie (a zombie
// has exited; only its parent has not reaped it yet). On Windows it asks
// the OS (alive_windows.go); elsewhere it reads /proc, so it reports
// false where there is none (macOS).
func Alive(pid int) bool {
	if alive, known := osAlive(pid); known {
		return alive
	}
	state, _, ok := procStat(pid)
	return ok && state != "Z" && state != "X"
}

// GroupMembers returns the live (non-zombie) processes whose process group
// is pgid, read from /proc. On Windows it returns nil: Windows cannot list
// a console process group (and under Wine, /proc is the Linux host's,
// whose groups have nothing to do with Windows pids).
func GroupMembers(pgid int) []int {
	if runtime.GOOS == "windows" {
		return nil
	}
	var pids []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		state, pg, ok := procStat(pid)
		if ok && pg == pgid && state != "Z" && state != "X" {
			pids = append(pids, pid)
		}
	}
	return pids
}

// procStat reads the state and process group of pid from /proc/pid/stat.
func procStat(pid int) (state string, pgid int, ok bool) {
	f, ok := statFields(pid)
	if !ok {
		return "", 0, false
	}
	pgid, _ = strconv.Atoi(f[2])
	return f[0], pgid, true
}

// statFields returns the fields of /proc/pid/stat after the command name
// (f[0] is the state, field 3 of proc(5); f[i] is field i+3).
func statFields(pid int) ([]string, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return nil, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')') // the command name may contain spaces
	if i < 0 {
		return nil, false
	}
	f := strings.Fields(s[i+1:]) // state ppid pgrp ... starttime (field 22)
	if len(f) < 20 {
		return nil, false
	}
	return f, true
}

// Proc is one process as /proc shows it: its pid, its process group and
// its start time (field 22 of /proc/pid/stat, in clock ticks since boot).
// A pid alone is not a process: once the process is reaped, the kernel
// may give its pid to another one (sooner under load, with pid_max at
// 32768), and a check of the bare pid would see that one as the old
// process still running.
type Proc struct {
	Pid, Pgid int
	start     string
}

// FindProc returns the live (non-zombie) process pid, and false when
// there is none. On Windows (alive_windows.go) its start is the creation
// time and its Pgid is 0: Windows cannot say which console process group
// a process is in.
func FindProc(pid int) (Proc, bool) {
	if p, ok, known := osFindProc(pid); known {
		return p, ok
	}
	f, ok := statFields(pid)
	if !ok || f[0] == "Z" || f[0] == "X" {
		return Proc{}, false
	}
	pgid, _ := strconv.Atoi(f[2])
	return Proc{Pid: pid, Pgid: pgid, start: f[19]}, true
}

// Alive reports whether p still runs: its pid is live, not a zombie, and
// is the same process (same start time).
func (p Proc) Alive() bool {
	q, ok := FindProc(p.Pid)
	return ok && q.start == p.start
}

// UpdateGoldenEnv is the one way to rewrite expected output in this
// repository: UPDATE_GOLDEN=1 go test ./... rewrites golden files
// (Golden), testscript scripts (internal/cli) and txtar sections
// (mcp/config) with what the code now produces; review the diff.
const UpdateGoldenEnv = "UPDATE_GOLDEN"

// UpdateGolden reports whether UPDATE_GOLDEN=1 is set.
func UpdateGolden() bool { return os.Getenv(UpdateGoldenEnv) == "1" }

// Golden compares got with the file at path, or with UPDATE_GOLDEN=1
// rewrites the file with got.
func Golden(t testing.TB, path string, got []byte) {
	t.Helper()
	if UpdateGolden() {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (to create it: %s=1 go test -run '%s')", err, UpdateGoldenEnv, t.Name())
	}
	if string(got) != string(want) {
		t.Errorf("output differs from %s (if intended: %s=1 go test -run '%s', then review the diff)\n--- got\n%s\n--- want\n%s",
			path, UpdateGoldenEnv, t.Name(), got, want)
	}
}

// GitEnv is the environment for the real git binary in tests: the
// process's, without any GIT_ variable, with no global or system config
// and fixed identities and dates, so commits have the same ids everywhere.
func GitEnv() []string {
	env := []string{}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") {
			env = append(env, kv)
		}
	}
	return append(env,
		"GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Test", "GIT_AUTHOR_EMAIL=test@example.com",
		"GIT_COMMITTER_NAME=Test", "GIT_COMMITTER_EMAIL=test@example.com",
		"GIT_AUTHOR_DATE=2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z",
	)
}

// Git runs git with GitEnv in dir and returns its stdout, trimmed; it
// fails the test, with git's stderr, when git fails.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = GitEnv()
	out, err := cmd.Output()
	if err != nil {
		msg := ""
		if ee, ok := err.(*exec.ExitError); ok {
			msg = string(ee.Stderr)
		}
		t.Fatalf("git %s in %s: %v\n%s", strings.Join(args, " "), dir, err, msg)
	}
	return strings.TrimSpace(string(out))
}

// NewGitRepo makes an empty repository (branch main) in a new directory
// and returns its path, with symlinks resolved as git reports paths.
func NewGitRepo(t testing.TB) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dir = filepath.Join(dir, "repo")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	Git(t, dir, "init", "-q", "-b", "main")
	return dir
}

// StartNPMServer runs an npm MCP server binary (NPMBin) in mode (for
// server-everything: "streamableHttp" or "sse") on a free port given as
// $PORT, waits until it accepts connections, and kills its process group
// at the end of the test. It returns the port.
func StartNPMServer(t testing.TB, bin, mode string) int {
	t.Helper()
	port, _ := StartNPMServerStop(t, bin, mode)
	return port
}

// StartNPMServerStop is StartNPMServer that also returns stop, which kills
// the server's process group and returns once nothing of it is left (a
// server that goes away mid-session); the test's cleanup calls it too.
func StartNPMServerStop(t testing.TB, bin, mode string) (port int, stop func()) {
	t.Helper()
	port = FreePort(t)
	cmd := exec.Command(bin, mode)
	cmd.Env = append(os.Environ(), "PORT="+strconv.Itoa(port))
	NewGroup(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	stop = func() {
		once.Do(func() {
			KillGroup(cmd.Process.Pid)
			_ = cmd.Wait()
			deadline := time.Now().Add(2 * time.Second)
			for len(GroupMembers(cmd.Process.Pid)) > 0 && time.Now().Before(deadline) {
				time.Sleep(2 * time.Millisecond)
			}
		})
	}
	t.Cleanup(stop)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	WaitPort(ctx, t, port)
	return port, stop
}
