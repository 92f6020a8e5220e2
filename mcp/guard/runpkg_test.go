package guard

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentgate/agentgate/internal/testenv"
	"github.com/agentgate/agentgate/internal/testing/npmregistry"
	"github.com/agentgate/agentgate/lock"
	"github.com/agentgate/agentgate/mcp/capture"
	"github.com/agentgate/agentgate/mcp/config"
)

// pkgSession is one client pkgSession with Serve (agentgate-mcp guard) run in
// the test process, as an MCP client drives it.
type pkgSession struct {
	t      testing.TB
	in     *io.PipeWriter
	out    *bufio.Reader
	stderr *testenv.SyncBuffer
	code   chan int
}

func startPkgSession(t testing.TB, args ...string) *pkgSession {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &pkgSession{t: t, in: inW, out: bufio.NewReader(outR), stderr: &testenv.SyncBuffer{}, code: make(chan int, 1)}
	go func() {
		code := Serve(context.Background(), args, inR, outW, s.stderr, nil)
		inR.Close()
		outW.Close()
		s.code <- code
	}()
	t.Cleanup(func() { inW.Close() })
	return s
}

// request sends one request and returns the response with its id ("" when
// guard ended the pkgSession first).
func (s *pkgSession) request(id, method, params string) string {
	s.t.Helper()
	if params == "" {
		params = "{}"
	}
	line := `{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `","params":` + params + "}\n"
	if _, err := io.WriteString(s.in, line); err != nil {
		return ""
	}
	for {
		got, err := s.out.ReadString('\n')
		if err != nil {
			return ""
		}
		var m struct{ ID json.RawMessage }
		if json.Unmarshal([]byte(got), &m) == nil && string(m.ID) == id {
			return got
		}
	}
}

const initParams = `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}`

// call initializes the pkgSession and calls send_email; it returns the
// call's answer.
func (s *pkgSession) call() string {
	s.t.Helper()
	if r := s.request("1", "initialize", initParams); !strings.Contains(r, `"result"`) {
		s.t.Fatalf("initialize: %q\nstderr:\n%s", r, s.stderr.String())
	}
	io.WriteString(s.in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	if r := s.request("2", "tools/list", ""); !strings.Contains(r, "send_email") {
		s.t.Fatalf("tools/list: %q\nstderr:\n%s", r, s.stderr.String())
	}
	return s.request("3", "tools/call", `{"name":"send_email","arguments":{"to":"bob"}}`)
}

// end closes stdin and returns guard's exit code.
func (s *pkgSession) end() int {
	s.in.Close()
	select {
	case c := <-s.code:
		return c
	case <-time.After(60 * time.Second):
		s.t.Fatal("guard did not exit")
		return -1
	}
}

// mailerLock writes a version 2 agentgate.lock in dir that locks server
// "mail" with the tools of agentgate-test-mailer (captured from its 1.0.0
// source, run with node) and pkg as its package (nil: none); it returns
// the lockfile's path.
func mailerLock(t testing.TB, dir string, pkg *lock.Package) string {
	t.Helper()
	tools := mailerTools(t, npmregistry.Mailer100)
	_, defs, err := lock.DecodeServer(tools)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := lock.BuildServerV2(defs, lock.Listing{}, true)
	if err != nil {
		t.Fatal(err)
	}
	srv.Package = pkg
	lf := lock.NewVersion(lock.VersionV2, map[string]lock.Server{"mail": srv}, lock.Stamp{By: "test", At: time.Unix(0, 0)}, nil)
	path := filepath.Join(dir, lock.FileName)
	if err := os.WriteFile(path, lock.FormatV2(lf), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// mailerTools captures the tools of the mailer source in testdata dir pkg.
func mailerTools(t testing.TB, pkg string) []json.RawMessage {
	t.Helper()
	r := config.Resolved{Server: config.Server{Name: "mail", Transport: config.Stdio, Command: "node", Args: []string{filepath.Join(npmregistry.Dir(t, pkg), "server.js")}}}
	res := capture.CaptureAll(context.Background(), []config.Resolved{r}, capture.Options{})[0]
	if res.Err != nil {
		t.Fatalf("capture %s: %v", pkg, res.Err)
	}
	return res.Tools
}

// npmEnv points npm at reg with an empty cache of the test's own, and
// returns the cache.
func npmEnv(t *testing.T, reg *npmregistry.Registry) string {
	cache := t.TempDir()
	for _, kv := range reg.Env(t, cache) {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	return cache
}

// needNPX fails the test in CI, and skips it elsewhere, without npx.
func needNPX(t *testing.T) {
	if _, err := exec.LookPath("npx"); err != nil {
		testenv.Missing(t, "npx is not on PATH: install Node.js and npm")
	}
}

// TestGuardRunsLockedNPMPackage: the lockfile pins agentgate-test-mailer
// 1.0.0; the registry's latest is 1.0.1, the same tool surface with other
// code (a copy of every mail to an attacker). `npx -y agentgate-test-mailer`
// run bare runs 1.0.1; under guard it runs 1.0.0, first from an empty
// cache (guard checks the registry's integrity, npx installs, guard checks
// the install), then from the cache without guard asking the registry
// anything npx does not ask when run bare. A config naming 1.0.1 is
// refused (exit 3, a JSON-RPC error for initialize, nothing started),
// unless --allow-unpinned-package.
func TestGuardRunsLockedNPMPackage(t *testing.T) {
	needNPX(t)
	reg := npmregistry.Start(t, npmregistry.Dir(t, npmregistry.Mailer100), npmregistry.Dir(t, npmregistry.Mailer101))
	v100 := reg.Get(t, npmregistry.Mailer, "1.0.0")
	if a, b := mailerTools(t, npmregistry.Mailer100), mailerTools(t, npmregistry.Mailer101); len(a) != 1 || !bytes.Equal(a[0], b[0]) {
		t.Fatalf("the two versions must list the same tools:\n%s\n%s", a, b)
	}
	cache := npmEnv(t, reg)
	dir := t.TempDir()
	t.Chdir(dir)
	lockPath := mailerLock(t, dir, &lock.Package{Ecosystem: "npm", Name: npmregistry.Mailer, Version: "1.0.0", Integrity: v100.Integrity, Registry: reg.URL})

	// Bare, the config's command runs the latest release.
	bare := startBare(t, "npx", "-y", npmregistry.Mailer)
	if got := bare.call(); !strings.Contains(got, "mailer 1.0.1") {
		t.Fatalf("bare npx -y did not run 1.0.1: %s", got)
	}
	bare.end()
	os.RemoveAll(cache) // start again from an empty cache
	reg.Requests()

	// Cold: nothing installed.
	s := startPkgSession(t, "--server", "mail", "--lockfile", lockPath, "--", "npx", "-y", npmregistry.Mailer)
	if got := s.call(); !strings.Contains(got, "mailer 1.0.0: sent to bob") {
		t.Fatalf("guard did not run the locked 1.0.0: %s\nstderr:\n%s", got, s.stderr)
	}
	if code := s.end(); code != ExitOK {
		t.Fatalf("exit %d\n%s", code, s.stderr)
	}
	log := s.stderr.String()
	for _, want := range []string{`"mail": package: runs agentgate-test-mailer@1.0.0 instead of agentgate-test-mailer`, "installed now from " + reg.URL, "files identical to the locked tarball"} {
		if !strings.Contains(log, want) {
			t.Errorf("guard's log lacks %q:\n%s", want, log)
		}
	}
	reg.Requests()

	// Warm: guard asks the registry nothing npx does not ask bare.
	s = startPkgSession(t, "--server", "mail", "--lockfile", lockPath, "--", "npx", "-y", npmregistry.Mailer)
	if got := s.call(); !strings.Contains(got, "mailer 1.0.0") {
		t.Fatalf("warm: %s\n%s", got, s.stderr)
	}
	s.end()
	guarded := reg.Requests()
	bare = startBare(t, "npx", "-y", npmregistry.Mailer+"@1.0.0")
	bare.call()
	bare.end()
	if plain := reg.Requests(); strings.Join(guarded, " ") != strings.Join(plain, " ") {
		t.Errorf("warm start: guard's pkgSession made registry requests %q, bare npx -y pkg@1.0.0 %q", guarded, plain)
	}
	if log := s.stderr.String(); !strings.Contains(log, "installed in npx's cache") || !strings.Contains(log, "no registry asked") {
		t.Errorf("warm log:\n%s", log)
	}

	// A config that names another version: refused, nothing started.
	s = startPkgSession(t, "--server", "mail", "--lockfile", lockPath, "--", "npx", "-y", npmregistry.Mailer+"@1.0.1")
	r := s.request("1", "initialize", initParams)
	if code := s.end(); code != ExitUnverified {
		t.Errorf("another version: exit %d, want 3", code)
	}
	if !strings.Contains(r, `"error"`) || !strings.Contains(r, "did not start server") || !strings.Contains(r, "1.0.1") {
		t.Errorf("the client's initialize got %q", r)
	}
	for _, want := range []string{"locked 1.0.0, configured 1.0.1", "agentgate lock --server mail", "--allow-unpinned-package"} {
		if !strings.Contains(s.stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, s.stderr)
		}
	}
	if got := reg.Requests(); len(got) != 0 {
		t.Errorf("a refused server reached the registry (npx ran?): %q", got)
	}

	// --allow-unpinned-package: a warning, and the configured version runs.
	s = startPkgSession(t, "--server", "mail", "--lockfile", lockPath, "--allow-unpinned-package", "--", "npx", "-y", npmregistry.Mailer+"@1.0.1")
	if got := s.call(); !strings.Contains(got, "mailer 1.0.1") {
		t.Errorf("--allow-unpinned-package: %s\n%s", got, s.stderr)
	}
	s.end()
	if !strings.Contains(s.stderr.String(), "warning: ") || !strings.Contains(s.stderr.String(), "--allow-unpinned-package: started as configured") {
		t.Errorf("no warning:\n%s", s.stderr)
	}
}

// startSessionCmd runs the command bare (no guard), as a client would.
func startBare(t testing.TB, command string, args ...string) *pkgSession {
	t.Helper()
	r := config.Resolved{Server: config.Server{Name: "bare", Transport: config.Stdio, Command: command, Args: args}}
	up, err := StartStdio(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &pkgSession{t: t, in: inW, out: bufio.NewReader(outR), stderr: &testenv.SyncBuffer{}, code: make(chan int, 1)}
	go func() {
		err := Run(context.Background(), Options{Server: "bare", Log: s.stderr}, inR, outW, up)
		outW.Close()
		code := ExitOK
		if err != nil {
			code = ExitUnverified
		}
		s.code <- code
	}()
	t.Cleanup(func() { inW.Close() })
	return s
}
