// Package testenv holds helpers shared by agentgate's tests: the pinned npm
// MCP servers, free ports, and process inspection through /proc.
package testenv

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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
// has exited; only its parent has not reaped it yet).
func Alive(pid int) bool {
	state, _, ok := procStat(pid)
	return ok && state != "Z" && state != "X"
}

// GroupMembers returns the live (non-zombie) processes whose process group
// is pgid, read from /proc.
func GroupMembers(pgid int) []int {
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
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", 0, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')') // the command name may contain spaces
	if i < 0 {
		return "", 0, false
	}
	f := strings.Fields(s[i+1:]) // state ppid pgrp ...
	if len(f) < 3 {
		return "", 0, false
	}
	pgid, _ = strconv.Atoi(f[2])
	return f[0], pgid, true
}
