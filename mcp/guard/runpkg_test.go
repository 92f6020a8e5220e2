package guard

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/agentgate/agentgate/internal/testing/npmregistry"
	"github.com/agentgate/agentgate/internal/testing/testenv"
	"github.com/agentgate/agentgate/lock"
	"github.com/agentgate/agentgate/mcp/capture"
	"github.com/agentgate/agentgate/mcp/config"
	"github.com/agentgate/agentgate/mcp/wire"
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
	_, defs, err := lock.DecodeServer(lock.Version1, tools)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := lock.BuildServer(lock.Version2, defs, lock.BuildOptions{Definitions: true})
	if err != nil {
		t.Fatal(err)
	}
	srv.Package = pkg
	lf := lock.New(lock.Version2, map[string]lock.Server{"mail": srv}, lock.Stamp{By: "test", At: time.Unix(0, 0)}, nil)
	path := filepath.Join(dir, lock.FileName)
	if err := os.WriteFile(path, lock.Format(lf), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// mailerTools captures the tools of the mailer source in testdata dir pkg.
func mailerTools(t testing.TB, pkg string) []json.RawMessage {
	t.Helper()
	r := config.Resolved{Server: config.Server{Name: "mail", Transport: config.Stdio, Command: "node", Args: []string{filepath.Join(npmregistry.Dir(t, pkg), "server.js")}}}
	results, wait := capture.Capture(context.Background(), []config.Resolved{r}, wire.Options{})
	wait()
	res := results[0]
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

// TestGuardNPMPackageBadInput: what guard does when it cannot establish
// that npx would run the locked package, each time starting nothing
// (exit 3, a JSON-RPC error for the client's initialize, no install in
// the cache): a registry that cannot be reached with an empty cache; npx
// missing from PATH; a registry that republished 1.0.0 with other bytes;
// an install in npx's cache whose files were swapped for 1.0.1's after
// npm installed it (its record still names 1.0.0's integrity). A lockfile
// without a package for the server starts the command as configured, and
// says so.
func TestGuardNPMPackageBadInput(t *testing.T) {
	needNPX(t)
	reg := npmregistry.Start(t, npmregistry.Dir(t, npmregistry.Mailer100), npmregistry.Dir(t, npmregistry.Mailer101))
	v100, v101 := reg.Get(t, npmregistry.Mailer, "1.0.0"), reg.Get(t, npmregistry.Mailer, "1.0.1")
	dir := t.TempDir()
	t.Chdir(dir)
	locked := &lock.Package{Ecosystem: "npm", Name: npmregistry.Mailer, Version: "1.0.0", Integrity: v100.Integrity, Registry: reg.URL}
	lockPath := mailerLock(t, dir, locked)
	args := []string{"--server", "mail", "--lockfile", lockPath, "--", "npx", "-y", npmregistry.Mailer}
	refused := func(t *testing.T, cache string, want ...string) {
		t.Helper()
		s := startPkgSession(t, args...)
		r := s.request("1", "initialize", initParams)
		if code := s.end(); code != ExitUnverified {
			t.Errorf("exit %d, want 3\n%s", code, s.stderr)
		}
		if !strings.Contains(r, `"error"`) || !strings.Contains(r, `did not start server \"mail\"`) {
			t.Errorf("the client's initialize got %q", r)
		}
		for _, w := range want {
			if !strings.Contains(s.stderr.String(), w) {
				t.Errorf("stderr lacks %q:\n%s", w, s.stderr)
			}
		}
		if strings.Contains(s.stderr.String(), "tools/list") {
			t.Errorf("a server was started:\n%s", s.stderr)
		}
		t.Logf("guard's stderr:\n%s", s.stderr)
	}

	t.Run("unreachable registry, empty cache", func(t *testing.T) {
		cache := npmEnv(t, reg)
		t.Setenv("npm_config_registry", "http://127.0.0.1:1/")
		refused(t, cache, "cannot check agentgate-test-mailer@1.0.0 before npx installs it", "connection refused", "npx has not installed")
		if _, err := os.Stat(filepath.Join(cache, "_npx")); !os.IsNotExist(err) {
			t.Errorf("npx ran: %v", err)
		}
	})
	t.Run("npx missing from PATH", func(t *testing.T) {
		npmEnv(t, reg)
		t.Setenv("PATH", t.TempDir())
		refused(t, "", `cannot install agentgate-test-mailer@1.0.0`, "npx")
	})
	t.Run("republished with other bytes", func(t *testing.T) {
		cache := npmEnv(t, reg)
		other := startRegistry(t)
		other.Republish(npmregistry.Mailer, "1.0.0", other.Get(t, npmregistry.Mailer, "1.0.1"))
		t.Setenv("npm_config_registry", other.URL)
		refused(t, cache, "publishes agentgate-test-mailer@1.0.0 with integrity "+v101.Integrity, "agentgate.lock pins "+v100.Integrity)
		if got := other.Requests(); len(got) != 1 {
			t.Errorf("want guard's one packument request, got %q (did npx run?)", got)
		}
	})
	t.Run("installed files swapped", func(t *testing.T) {
		cache := npmEnv(t, reg)
		s := startPkgSession(t, args...)
		if got := s.call(); !strings.Contains(got, "mailer 1.0.0") {
			t.Fatalf("%s\n%s", got, s.stderr)
		}
		s.end()
		installed, err := filepath.Glob(filepath.Join(cache, "_npx", "*", "node_modules", npmregistry.Mailer, "server.js"))
		if err != nil || len(installed) != 1 {
			t.Fatalf("npx's install: %v %v", installed, err)
		}
		evil, err := os.ReadFile(filepath.Join(npmregistry.Dir(t, npmregistry.Mailer101), "server.js"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(installed[0], evil, 0o755); err != nil {
			t.Fatal(err)
		}
		refused(t, cache, "server.js differs from the file in the tarball agentgate.lock pins", "remove that install")
	})
	t.Run("no package in the lockfile", func(t *testing.T) {
		npmEnv(t, reg)
		reg.SetLatest(npmregistry.Mailer, "1.0.1")
		noPkg := mailerLock(t, t.TempDir(), nil)
		s := startPkgSession(t, "--server", "mail", "--lockfile", noPkg, "--", "npx", "-y", npmregistry.Mailer)
		if got := s.call(); !strings.Contains(got, "mailer 1.0.1") {
			t.Errorf("%s\n%s", got, s.stderr)
		}
		s.end()
		if want := `"mail": package: agentgate.lock pins no package for this server: agentgate-test-mailer started as configured; run 'agentgate lock --server mail' to pin it`; !strings.Contains(s.stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, s.stderr)
		}
	})
}

// startRegistry is a loopback registry serving both mailer versions.
func startRegistry(t *testing.T) *npmregistry.Registry {
	return npmregistry.Start(t, npmregistry.Dir(t, npmregistry.Mailer100), npmregistry.Dir(t, npmregistry.Mailer101))
}

// TestGuardRunsLockedPackageEveryLauncher: for every launcher agentgate
// recognises besides npx (whose registry test is above), a fake launcher
// on PATH records its arguments and runs agentgate-test-mailer 1.0.0 when
// they name the locked version (or digest), else 1.0.1 (the registry's
// latest). Started from a wrapped .mcp.json entry with the unpinned spec,
// guard runs the locked version, and the config file is byte for byte as
// it was; a config naming another version is refused and nothing is
// started.
func TestGuardRunsLockedPackageEveryLauncher(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the fake launchers are shell scripts")
	}
	digest := func(s string) string { sum := sha256.Sum256([]byte(s)); return hex.EncodeToString(sum[:]) }
	b64 := func(s string) string {
		sum := sha256.Sum256([]byte(s))
		return base64.StdEncoding.EncodeToString(sum[:])
	}
	npm := &lock.Package{Ecosystem: "npm", Name: npmregistry.Mailer, Version: "1.0.0", Integrity: "sha512-" + base64.StdEncoding.EncodeToString(make([]byte, 64)), Registry: "http://127.0.0.1:1/"}
	pypi := &lock.Package{Ecosystem: "pypi", Name: "mcp-mailer", Version: "1.0.0", Integrity: "sha256-" + b64("files"), Registry: "http://127.0.0.1:1/simple/"}
	oci := &lock.Package{Ecosystem: "oci", Name: "mcp/mailer", Version: "latest", Integrity: "sha256:" + digest("1.0.0"), Registry: "docker.io"}
	gomod := &lock.Package{Ecosystem: "go", Name: "example.com/mailer", Version: "v1.0.0", Integrity: "h1:" + b64("zip"), Registry: "http://127.0.0.1:1/"}
	for _, tc := range []struct {
		launcher  string
		args      []string // unpinned
		locked    *lock.Package
		marker    string   // in the arguments when the locked version runs
		want      string   // the argument guard runs instead
		other     []string // names another version
		otherWant string   // in guard's refusal
	}{
		{"pnpm", []string{"dlx", npmregistry.Mailer}, npm, "@1.0.0", npmregistry.Mailer + "@1.0.0", []string{"dlx", npmregistry.Mailer + "@1.0.1"}, "locked 1.0.0, configured 1.0.1"},
		{"bunx", []string{npmregistry.Mailer}, npm, "@1.0.0", npmregistry.Mailer + "@1.0.0", []string{npmregistry.Mailer + "@1.0.1"}, "locked 1.0.0, configured 1.0.1"},
		{"yarn", []string{"dlx", npmregistry.Mailer + "@latest"}, npm, "@1.0.0", npmregistry.Mailer + "@1.0.0", []string{"dlx", npmregistry.Mailer + "@1.0.1"}, "locked 1.0.0, configured 1.0.1"},
		{"uvx", []string{"mcp-mailer"}, pypi, "==1.0.0", "mcp-mailer==1.0.0", []string{"mcp-mailer==1.0.1"}, "locked 1.0.0, configured 1.0.1"},
		{"uv", []string{"tool", "run", "--from", "mcp-mailer", "mailer"}, pypi, "==1.0.0", "mcp-mailer==1.0.0", []string{"tool", "run", "mcp-mailer@1.0.1"}, "locked 1.0.0, configured 1.0.1"},
		{"pipx", []string{"run", "mcp-mailer"}, pypi, "==1.0.0", "mcp-mailer==1.0.0", []string{"run", "--spec", "mcp-mailer==1.0.1", "mailer"}, "locked 1.0.0, configured 1.0.1"},
		{"docker", []string{"run", "-i", "--rm", "mcp/mailer"}, oci, oci.Integrity, "mcp/mailer:latest@" + oci.Integrity, []string{"run", "-i", "--rm", "mcp/mailer@sha256:" + digest("1.0.1")}, "configured sha256:" + digest("1.0.1")},
		{"podman", []string{"run", "-i", "mcp/mailer:latest"}, oci, oci.Integrity, "mcp/mailer:latest@" + oci.Integrity, []string{"run", "-i", "mcp/mailer:latest@sha256:" + digest("1.0.1")}, "locked " + oci.Integrity},
		{"go", []string{"run", "example.com/mailer/cmd/mailer@latest"}, gomod, "@v1.0.0", "example.com/mailer/cmd/mailer@v1.0.0", []string{"run", "example.com/mailer/cmd/mailer@v1.0.1"}, "locked v1.0.0, configured v1.0.1"},
	} {
		t.Run(tc.launcher, func(t *testing.T) {
			bin, argv := fakeLauncher(t, tc.launcher, tc.marker)
			t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
			dir := t.TempDir()
			t.Chdir(dir)
			lockPath := mailerLock(t, dir, tc.locked)
			wrapped := append([]string{"guard", "--server", "mail", "--lockfile", lockPath, "--", tc.launcher}, tc.args...)
			cfg, _ := json.MarshalIndent(map[string]any{"mcpServers": map[string]any{"mail": map[string]any{"command": "agentgate", "args": wrapped}}}, "", "  ")
			if err := os.WriteFile(".mcp.json", cfg, 0o644); err != nil {
				t.Fatal(err)
			}
			// The args the client passes are the config's, as written.
			var entry struct {
				MCPServers map[string]struct{ Args []string } `json:"mcpServers"`
			}
			if err := json.Unmarshal(cfg, &entry); err != nil {
				t.Fatal(err)
			}
			s := startPkgSession(t, entry.MCPServers["mail"].Args[1:]...)
			if got := s.call(); !strings.Contains(got, "mailer 1.0.0: sent to bob") {
				t.Errorf("did not run the locked version: %s\n%s", got, s.stderr)
			}
			if code := s.end(); code != ExitOK {
				t.Errorf("exit %d\n%s", code, s.stderr)
			}
			ran, _ := os.ReadFile(argv)
			if !strings.Contains(" "+strings.TrimSpace(string(ran))+" ", " "+tc.want+" ") {
				t.Errorf("%s ran with %q, want the argument %q", tc.launcher, ran, tc.want)
			}
			if !strings.Contains(s.stderr.String(), `"mail": package: runs `+tc.want+` instead of `) {
				t.Errorf("guard's log does not say what it pinned:\n%s", s.stderr)
			}
			if now, err := os.ReadFile(".mcp.json"); err != nil || !bytes.Equal(now, cfg) {
				t.Errorf(".mcp.json changed:\n%s", now)
			}

			os.Remove(argv)
			s = startPkgSession(t, append([]string{"--server", "mail", "--lockfile", lockPath, "--", tc.launcher}, tc.other...)...)
			r := s.request("1", "initialize", initParams)
			if code := s.end(); code != ExitUnverified || !strings.Contains(r, `"error"`) {
				t.Errorf("another version: exit %d, initialize %q", code, r)
			}
			if !strings.Contains(s.stderr.String(), tc.otherWant) || !strings.Contains(s.stderr.String(), "agentgate lock --server mail") {
				t.Errorf("stderr lacks %q:\n%s", tc.otherWant, s.stderr)
			}
			if _, err := os.Stat(argv); err == nil {
				t.Errorf("%s was started for a refused config", tc.launcher)
			}
		})
	}
}

// fakeLauncher writes an executable named launcher in a new directory: it
// appends its arguments to a log file (one line per start), then runs
// agentgate-test-mailer 1.0.0 with node when one argument contains marker,
// else 1.0.1. It returns the directory and the log file.
func fakeLauncher(t *testing.T, launcher, marker string) (dir, argv string) {
	t.Helper()
	dir = t.TempDir()
	argv = filepath.Join(t.TempDir(), "argv")
	script := fmt.Sprintf(`#!/bin/sh
echo "$*" >> %q
for a in "$@"; do
	case "$a" in *%s*) exec node %q ;; esac
done
exec node %q
`, argv, marker, filepath.Join(npmregistry.Dir(t, npmregistry.Mailer100), "server.js"), filepath.Join(npmregistry.Dir(t, npmregistry.Mailer101), "server.js"))
	if err := os.WriteFile(filepath.Join(dir, launcher), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir, argv
}

// TestGuardChecksLockedFile: a server that runs a script of the
// repository (node tools/mailer.js, or the script itself as the command)
// starts when the script's bytes are the locked ones, and is refused,
// naming the file and both hashes, once the script was edited (the same
// tools, other code).
func TestGuardChecksLockedFile(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		testenv.Missing(t, "node is not on PATH")
	}
	dir := t.TempDir()
	t.Chdir(dir)
	src := func(pkg string) []byte {
		b, err := os.ReadFile(filepath.Join(npmregistry.Dir(t, pkg), "server.js"))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	os.Mkdir("tools", 0o755)
	if err := os.WriteFile("tools/mailer.js", src(npmregistry.Mailer100), 0o755); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(src(npmregistry.Mailer100))
	integrity := "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
	lockPath := mailerLock(t, dir, &lock.Package{Ecosystem: "file", Name: "tools/mailer.js", Integrity: integrity})
	for _, cmd := range [][]string{{"node", "tools/mailer.js"}, {"./tools/mailer.js"}} {
		s := startPkgSession(t, append([]string{"--server", "mail", "--lockfile", lockPath, "--"}, cmd...)...)
		if got := s.call(); !strings.Contains(got, "mailer 1.0.0") {
			t.Errorf("%q: %s\n%s", cmd, got, s.stderr)
		}
		s.end()
		if want := `"mail": package: runs tools/mailer.js, whose bytes are the ones agentgate.lock pins (` + integrity + `)`; !strings.Contains(s.stderr.String(), want) {
			t.Errorf("%q: stderr lacks %q:\n%s", cmd, want, s.stderr)
		}
	}

	if err := os.WriteFile("tools/mailer.js", src(npmregistry.Mailer101), 0o755); err != nil {
		t.Fatal(err)
	}
	edited := sha256.Sum256(src(npmregistry.Mailer101))
	s := startPkgSession(t, "--server", "mail", "--lockfile", lockPath, "--", "node", "tools/mailer.js")
	r := s.request("1", "initialize", initParams)
	if code := s.end(); code != ExitUnverified || !strings.Contains(r, `"error"`) {
		t.Errorf("edited script: exit %d, initialize %q", code, r)
	}
	want := `server "mail" runs tools/mailer.js, which changed since it was locked: its SHA-256 is sha256-` + base64.StdEncoding.EncodeToString(edited[:]) + ", agentgate.lock pins " + integrity
	if !strings.Contains(s.stderr.String(), want) || !strings.Contains(s.stderr.String(), "agentgate lock --server mail") {
		t.Errorf("stderr lacks %q:\n%s", want, s.stderr)
	}

	// Another file than the locked one.
	os.WriteFile("other.js", src(npmregistry.Mailer100), 0o755)
	s = startPkgSession(t, "--server", "mail", "--lockfile", lockPath, "--", "node", "other.js")
	s.request("1", "initialize", initParams)
	if code := s.end(); code != ExitUnverified || !strings.Contains(s.stderr.String(), "agentgate.lock pins the file tools/mailer.js") {
		t.Errorf("another file: exit %d\n%s", code, s.stderr)
	}
}

// TestGuardNPMRegistryAnswersNPMOtherwise: a registry that tells guard
// the truth about 1.0.0 and serves npm's own requests 1.0.1's code as
// 1.0.0 (a tarball whose package.json says 1.0.0, with its real
// integrity, so npm's own check passes).
// Guard's check of the install it had npx make, before the server starts,
// refuses it: the 1.0.1 code never runs as the server.
func TestGuardNPMRegistryAnswersNPMOtherwise(t *testing.T) {
	needNPX(t)
	reg := startRegistry(t)
	v100 := reg.Get(t, npmregistry.Mailer, "1.0.0")
	// 1.0.1's code in a package that calls itself 1.0.0.
	evilDir := t.TempDir()
	for _, f := range []string{"server.js", "package.json"} {
		b, err := os.ReadFile(filepath.Join(npmregistry.Dir(t, npmregistry.Mailer101), f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(evilDir, f), bytes.ReplaceAll(b, []byte(`"version": "1.0.1"`), []byte(`"version": "1.0.0"`)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	evil, err := npmregistry.Pack(t.TempDir(), evilDir)
	if err != nil {
		t.Fatal(err)
	}
	reg.RepublishToNPM(npmregistry.Mailer, "1.0.0", evil[0])
	npmEnv(t, reg)
	dir := t.TempDir()
	t.Chdir(dir)
	lockPath := mailerLock(t, dir, &lock.Package{Ecosystem: "npm", Name: npmregistry.Mailer, Version: "1.0.0", Integrity: v100.Integrity, Registry: reg.URL})
	s := startPkgSession(t, "--server", "mail", "--lockfile", lockPath, "--", "npx", "-y", npmregistry.Mailer)
	r := s.request("1", "initialize", initParams)
	if code := s.end(); code != ExitUnverified || !strings.Contains(r, `"error"`) {
		t.Fatalf("exit %d, initialize %q\n%s", code, r, s.stderr)
	}
	if want := "holds agentgate-test-mailer@1.0.0 with integrity " + evil[0].Integrity + "; agentgate.lock pins " + v100.Integrity; !strings.Contains(s.stderr.String(), want) || strings.Contains(s.stderr.String(), "tools/list") {
		t.Errorf("stderr lacks %q:\n%s", want, s.stderr)
	}
}

// TestGuardUnattributableCommand: a command no package can be attributed
// to (here an absolute path outside any repository) starts as configured
// and guard says so once; when the lockfile pins a package for the
// server, the same command is refused (the config no longer runs it).
func TestGuardUnattributableCommand(t *testing.T) {
	t.Setenv("AGENTGATE_FAKESERVER", "1")
	r := fake(t, "-tools", toolsFile(t))
	dir := t.TempDir()
	t.Chdir(dir)
	noPkg := mailerLock(t, dir, nil)
	s := startPkgSession(t, append([]string{"--server", "mail", "--lockfile", noPkg, "--", r.Command}, r.Args...)...)
	if got := s.request("1", "initialize", initParams); !strings.Contains(got, `"result"`) {
		t.Fatalf("initialize: %s\n%s", got, s.stderr)
	}
	s.end()
	want := `"mail": package: command "` + r.Command + `": cannot attribute to a package: `
	if log := s.stderr.String(); strings.Count(log, want) != 1 || !strings.Contains(log, "started as configured, unpinned (agentgate.lock pins no package for it)") {
		t.Errorf("want one line %q...:\n%s", want, log)
	}

	pinned := mailerLock(t, t.TempDir(), &lock.Package{Ecosystem: "npm", Name: npmregistry.Mailer, Version: "1.0.0", Integrity: "sha512-" + base64.StdEncoding.EncodeToString(make([]byte, 64)), Registry: "http://127.0.0.1:1/"})
	s = startPkgSession(t, append([]string{"--server", "mail", "--lockfile", pinned, "--", r.Command}, r.Args...)...)
	s.request("1", "initialize", initParams)
	if code := s.end(); code != ExitUnverified || !strings.Contains(s.stderr.String(), "agentgate.lock pins npm package agentgate-test-mailer@1.0.0 for server \"mail\", but its command runs no package agentgate can attribute") {
		t.Errorf("exit %d\n%s", code, s.stderr)
	}
}

// TestGuardNPMExec: `npm exec --yes -- pkg` (npx's other spelling) runs
// the locked version from the same install checks, cold then warm, and
// `npx -y -p pkg bin` finds the same install.
func TestGuardNPMExec(t *testing.T) {
	needNPX(t)
	reg := startRegistry(t)
	v100 := reg.Get(t, npmregistry.Mailer, "1.0.0")
	npmEnv(t, reg)
	dir := t.TempDir()
	t.Chdir(dir)
	lockPath := mailerLock(t, dir, &lock.Package{Ecosystem: "npm", Name: npmregistry.Mailer, Version: "1.0.0", Integrity: v100.Integrity, Registry: reg.URL})
	for _, round := range []string{"installed now from", "installed in npx's cache"} {
		s := startPkgSession(t, "--server", "mail", "--lockfile", lockPath, "--", "npm", "exec", "--yes", "--", npmregistry.Mailer)
		if got := s.call(); !strings.Contains(got, "mailer 1.0.0") {
			t.Fatalf("%s\n%s", got, s.stderr)
		}
		s.end()
		if !strings.Contains(s.stderr.String(), "runs agentgate-test-mailer@1.0.0 instead of agentgate-test-mailer ("+round) {
			t.Errorf("want %q:\n%s", round, s.stderr)
		}
	}
	// npx -p PKG BIN hashes the same list of packages: the same install.
	s := startPkgSession(t, "--server", "mail", "--lockfile", lockPath, "--", "npx", "-y", "-p", npmregistry.Mailer, "agentgate-test-mailer")
	if got := s.call(); !strings.Contains(got, "mailer 1.0.0") {
		t.Fatalf("%s\n%s", got, s.stderr)
	}
	s.end()
	if !strings.Contains(s.stderr.String(), "installed in npx's cache") {
		t.Errorf("npx -p:\n%s", s.stderr)
	}
}

// BenchmarkRunPackageWarm is guard's own start-up work for a pinned npx
// package that npm's cache holds (docs/PERFORMANCE.md, target 10): read
// the install's record, compare its files with the cached tarball, no
// registry. The first call (not timed) installs it.
func BenchmarkRunPackageWarm(b *testing.B) {
	if _, err := exec.LookPath("npx"); err != nil {
		testenv.Missing(b, "npx is not on PATH: install Node.js and npm")
	}
	reg := npmregistry.Start(b, npmregistry.Dir(b, npmregistry.Mailer100), npmregistry.Dir(b, npmregistry.Mailer101))
	v100 := reg.Get(b, npmregistry.Mailer, "1.0.0")
	for _, kv := range reg.Env(b, b.TempDir()) {
		k, v, _ := strings.Cut(kv, "=")
		b.Setenv(k, v)
	}
	dir := b.TempDir()
	b.Chdir(dir)
	pins := &Pins{Version: lock.Version2, Package: &lock.Package{Ecosystem: "npm", Name: npmregistry.Mailer, Version: "1.0.0", Integrity: v100.Integrity}}
	r := config.Resolved{Server: config.Server{Name: "mail", Transport: config.Stdio, Command: "npx", Args: []string{"-y", npmregistry.Mailer}}}
	if _, err := runPackage(context.Background(), r, "mail", pins, io.Discard); err != nil {
		b.Fatal(err)
	}
	var log bytes.Buffer
	for b.Loop() {
		log.Reset()
		if _, err := runPackage(context.Background(), r, "mail", pins, &log); err != nil {
			b.Fatal(err)
		}
	}
	if !strings.Contains(log.String(), "no registry asked") {
		b.Fatalf("not the warm path: %s", log.String())
	}
}
