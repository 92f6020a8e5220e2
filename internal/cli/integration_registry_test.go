package cli

import (
	"bytes"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/agentgate/agentgate/internal/testing/testenv"
	"github.com/agentgate/agentgate/lock"
)

// TestLockNPMPackageFromRegistry: `agentgate lock --lockfile-version 2` of
// a config running `npx -y @fake/memory` resolves the package through the
// npm registry the environment configures (a loopback fake here) and
// writes its exact version and dist.integrity; a new release is package
// drift for diff (exit 1); a registry that is down is exit 3 naming the
// server, the spec and the registry, and leaves the lockfile as it was.
// npx itself is a shim that runs the real server-memory (the server's
// tools are not what this test is about; its package is).
func TestLockNPMPackageFromRegistry(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the npx shim is a shell script")
	}
	mem := testenv.NPMBin(t, "mcp-server-memory")
	tarball := func(v string) []byte { return []byte("tarball of @fake/memory " + v) }
	integrity := func(v string) string {
		s := sha512.Sum512(tarball(v))
		return "sha512-" + base64.StdEncoding.EncodeToString(s[:])
	}
	var mu sync.Mutex
	latest, up := "1.0.0", true
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if !up {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		if r.URL.EscapedPath() != "/@fake%2fmemory" {
			http.NotFound(w, r)
			return
		}
		versions := map[string]any{}
		for _, v := range []string{"0.9.0", "1.0.0", "1.1.0"} {
			versions[v] = map[string]any{"name": "@fake/memory", "version": v, "dist": map[string]any{
				"integrity": integrity(v), "tarball": "http://" + r.Host + "/@fake/memory/-/memory-" + v + ".tgz"}}
		}
		json.NewEncoder(w).Encode(map[string]any{"name": "@fake/memory", "dist-tags": map[string]string{"latest": latest}, "versions": versions})
	}))
	t.Cleanup(srv.Close)

	useFakeNPX(t, mem, srv.URL)

	r := newRepo(t, true, nil)
	dir := t.TempDir()
	r.writeConfig(map[string]any{"memory": map[string]any{
		"command": "npx", "args": []string{"-y", "@fake/memory"},
		"env": map[string]string{"MEMORY_FILE_PATH": filepath.Join(dir, "memory.jsonl")},
	}})
	r.mustRun(ExitOK, "lock", "--lockfile-version", "2", "--timeout", "60s")
	l, err := lock.Parse(r.read("agentgate.lock"))
	if err != nil {
		t.Fatal(err)
	}
	got := l.Servers["memory"].Package
	want := lock.Package{Ecosystem: "npm", Name: "@fake/memory", Version: "1.0.0", Integrity: integrity("1.0.0"), Registry: srv.URL + "/"}
	if got == nil || *got != want {
		t.Fatalf("package %+v, want %+v", got, want)
	}
	r.commitAll()
	r.mustRun(ExitOK, "diff", "--timeout", "60s")

	// A new release: what npx would run today changed, the tools did not.
	mu.Lock()
	latest = "1.1.0"
	mu.Unlock()
	out, _ := r.mustRun(ExitDrift, "diff", "--timeout", "60s")
	if !strings.Contains(out, "1.0.0") || !strings.Contains(out, "1.1.0") {
		t.Errorf("diff does not show the version change:\n%s", out)
	}
	// ci too: the unpinned spec would run another version than the lock
	// (agentgate guard runs the locked one; ci is where the release shows).
	if out, _ := r.mustRun(ExitDrift, "ci", "--timeout", "60s"); !strings.Contains(out, "1.1.0") {
		t.Errorf("ci does not show the version change:\n%s", out)
	}

	// The registry is down: exit 3, nothing written.
	mu.Lock()
	up = false
	mu.Unlock()
	before := r.read("agentgate.lock")
	_, stderr := r.mustRun(ExitUnverified, "lock", "--lockfile-version", "2", "--timeout", "60s")
	for _, s := range []string{"memory", "@fake/memory", srv.URL, "NPM_CONFIG_REGISTRY", "HTTP 503", "docs/config.md, Package registries"} {
		if !strings.Contains(stderr, s) {
			t.Errorf("stderr does not name %q:\n%s", s, stderr)
		}
	}
	if !bytes.Equal(before, r.read("agentgate.lock")) {
		t.Error("a failed lock changed agentgate.lock")
	}
}

// TestLockRefusesDistTagThatIsNoVersion: a registry whose dist-tag (and
// versions key) is not a semver version, such as a shell payload, is
// could not verify (exit 3) for `agentgate lock --lockfile-version 2`,
// naming the version; no lockfile is written (issue #24 item 17: it was
// recorded as package.version with exit 0).
func TestLockRefusesDistTagThatIsNoVersion(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the npx shim is a shell script")
	}
	mem := testenv.NPMBin(t, "mcp-server-memory")
	for _, bad := range []string{"1.0.0 && touch x", "npm:other@1.0.0", "v1.0.0", `1.0.0"`} {
		t.Run(bad, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				s := sha512.Sum512([]byte("tarball"))
				json.NewEncoder(w).Encode(map[string]any{"name": "@fake/memory", "dist-tags": map[string]string{"latest": bad},
					"versions": map[string]any{bad: map[string]any{"name": "@fake/memory", "version": bad,
						"dist": map[string]any{"integrity": "sha512-" + base64.StdEncoding.EncodeToString(s[:])}}}})
			}))
			t.Cleanup(srv.Close)
			useFakeNPX(t, mem, srv.URL)
			r := newRepo(t, true, nil)
			r.writeConfig(map[string]any{"memory": map[string]any{
				"command": "npx", "args": []string{"-y", "@fake/memory@latest"},
				"env": map[string]string{"MEMORY_FILE_PATH": filepath.Join(t.TempDir(), "memory.jsonl")},
			}})
			_, stderr := r.mustRun(ExitUnverified, "lock", "--lockfile-version", "2", "--timeout", "60s")
			if !strings.Contains(stderr, "which is not a semver version") || !strings.Contains(stderr, "memory") {
				t.Errorf("stderr does not say why:\n%s", stderr)
			}
			if _, err := os.Stat(filepath.Join(r.dir, "agentgate.lock")); err == nil {
				t.Errorf("lock wrote agentgate.lock:\n%s", r.read("agentgate.lock"))
			}
		})
	}
}

// useFakeNPX puts an npx on PATH that runs mem, with npm's registry at
// registry and a fresh cache.
func useFakeNPX(t *testing.T, mem, registry string) {
	t.Helper()
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "npx"), []byte("#!/bin/sh\nexec "+mem+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("NPM_CONFIG_REGISTRY", registry)
	t.Setenv("NPM_CONFIG_CACHE", t.TempDir())
}
