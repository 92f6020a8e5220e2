package capture

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/internal/testing/testenv"
	"github.com/agentgate/agentgate/mcp/config"
	"github.com/agentgate/agentgate/mcp/registry"
	"github.com/agentgate/agentgate/mcp/wire"
)

// sri is the SHA-256 Subresource Integrity string of data, computed here
// with crypto/sha256 (the code under test uses launcher.FileIntegrity).
func sri(data []byte) string {
	s := sha256.Sum256(data)
	return "sha256-" + base64.StdEncoding.EncodeToString(s[:])
}

// TestResolvePackageFile: a script or binary inside the repository is
// pinned by its root-relative path and the SHA-256 of its bytes, whether
// it is the command or an interpreter's script argument, relative to the
// server's working directory; what is not inside the repository, or not
// attributable, is not pinned (and is no error).
func TestResolvePackageFile(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	files := map[string]string{
		"server.js":         "console.log('top')\n",
		"tools/x.py":        "print('x')\n",
		"sub/bin/server":    "#!/bin/sh\necho hi\n",
		"sub/lib/script.sh": "echo sub\n",
	}
	for name, body := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(outside, "o.js"), []byte("x"), 0o644)
	stdio := func(command, cwd string, args ...string) config.Resolved {
		if cwd == "" {
			cwd = root
		}
		return config.Resolved{Server: config.Server{Name: "s", File: ".mcp.json", Transport: config.Stdio, Command: command, Args: args, Cwd: cwd}}
	}
	file := func(name string) *wire.Package {
		return &wire.Package{Ecosystem: "file", Name: name, Integrity: sri([]byte(files[name]))}
	}
	for _, c := range []struct {
		name string
		r    config.Resolved
		want *wire.Package
	}{
		{"node script", stdio("node", "", "./server.js"), file("server.js")},
		{"python script with flags", stdio("/usr/bin/python3", "", "-u", "tools/x.py", "--port", "1"), file("tools/x.py")},
		{"command made absolute by Resolve", stdio(filepath.Join(root, "sub", "bin", "server"), ""), file("sub/bin/server")},
		{"script relative to cwd", stdio("bash", filepath.Join(root, "sub"), "lib/script.sh"), file("sub/lib/script.sh")},
		{"script outside the repository", stdio("node", outside, "o.js"), nil},
		{"absolute script", stdio("node", "", filepath.Join(outside, "o.js")), nil},
		{"python -m", stdio("python", "", "-m", "mod"), nil},
		{"bare command on PATH", stdio("server.sh", ""), nil},
		{"remote server", config.Resolved{Server: config.Server{Name: "r", Transport: config.StreamableHTTP, URL: "http://127.0.0.1:1/mcp"}}, nil},
	} {
		got, err := resolvePackage(context.Background(), c.r, root, nil)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if (got == nil) != (c.want == nil) || got != nil && *got != *c.want {
			t.Errorf("%s: got %+v, want %+v", c.name, got, c.want)
		}
	}
	// A missing file inside the repository fails the server (could not
	// verify), naming the file.
	_, err := resolvePackage(context.Background(), stdio("node", "", "missing.js"), root, nil)
	if err == nil || !errors.Is(packageError(stdio("node", "", "missing.js"), err), wire.ErrPackage) {
		t.Fatalf("missing file: %v", err)
	}
	if e := packageError(stdio("node", "", "missing.js"), err); e.Stage != wire.StagePackage || e.Msg != "the server's file missing.js does not exist" {
		t.Errorf("missing file: %+v", e)
	}
	// A registry package is resolved (mcp/registry) with the server's own
	// environment: its registry being down fails the server (could not
	// verify), naming the spec, the registry and where it was configured.
	down := stdio("npx", "", "-y", "pkg@1.0.0")
	down.Env = map[string]string{"NPM_CONFIG_REGISTRY": "http://127.0.0.1:1/"}
	_, err = resolvePackage(context.Background(), down, root, nil)
	if e := packageError(down, err); !errors.Is(e, wire.ErrPackage) || e.Stage != wire.StagePackage ||
		!strings.Contains(e.Msg, "npm package pkg@1.0.0 from http://127.0.0.1:1/ (configured by NPM_CONFIG_REGISTRY)") {
		t.Errorf("registry down: %+v", e)
	}
}

// The servers of one capture share the launchers' configuration answers
// (Capture gives each the same registry.Runs): npm is asked for its
// registry once, not once per server.
func TestResolvePackageSharesRuns(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("a shell script stands in for npm")
	}
	bin, count := t.TempDir(), filepath.Join(t.TempDir(), "count")
	script := "#!/bin/sh\necho asked >> '" + count + "'\necho http://127.0.0.1:1/\n"
	if err := os.WriteFile(filepath.Join(bin, "npm"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"PATH": bin, "HOME": t.TempDir(),
		"NPM_CONFIG_REGISTRY": "", "npm_config_registry": "", "NPM_CONFIG_USERCONFIG": "", "npm_config_userconfig": ""}
	root := t.TempDir()
	runs := &registry.Runs{}
	for _, spec := range []string{"pkg@1.0.0", "other@2.0.0"} {
		r := config.Resolved{Server: config.Server{Name: spec, Transport: config.Stdio, Command: "npx", Args: []string{"-y", spec}, Env: env}}
		if _, err := resolvePackage(context.Background(), r, root, runs); err == nil || !strings.Contains(err.Error(), "configured by `npm config get registry`") {
			t.Fatalf("%s: %v", spec, err)
		}
	}
	if data, _ := os.ReadFile(count); strings.Count(string(data), "asked") != 1 {
		t.Errorf("npm asked %d times for two servers, want once", strings.Count(string(data), "asked"))
	}
}

// TestCapturePackageFile runs a real server (server-memory, from
// testdata/npm) as `node <script>` with the repository as root: the
// result carries the script's path and hash next to its tools; without
// Options.Packages it carries none.
func TestCapturePackageFile(t *testing.T) {
	root := testenv.RepoRoot(t)
	testenv.NPMBin(t, "mcp-server-memory") // installed by scripts/test.sh
	script := "testdata/npm/node_modules/@modelcontextprotocol/server-memory/dist/index.js"
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(script)))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	r := config.Resolved{Server: config.Server{Name: "memory", Transport: config.Stdio, Command: "node", Args: []string{script}, Cwd: root,
		Env: map[string]string{"MEMORY_FILE_PATH": filepath.Join(dir, "memory.jsonl")}}}
	for _, packages := range []bool{true, false} {
		res := CaptureAll(context.Background(), []config.Resolved{r}, wire.Options{Packages: packages, Root: root})
		if res[0].Err != nil {
			t.Fatal(res[0].Err)
		}
		if len(res[0].Tools) == 0 {
			t.Errorf("no tools")
		}
		want := &wire.Package{Ecosystem: "file", Name: script, Integrity: sri(data)}
		if got := res[0].Package; packages && (got == nil || *got != *want) || !packages && got != nil {
			t.Errorf("packages=%v: got %+v, want %+v", packages, got, want)
		}
	}
	// A script that does not exist: the server fails to start, and that
	// failure (not the package's) is reported.
	r.Args = []string{"testdata/does-not-exist.js"}
	res := CaptureAll(context.Background(), []config.Resolved{r}, wire.Options{Packages: true, Root: root})
	var e *wire.Error
	if !errors.As(res[0].Err, &e) || e.Stage == wire.StagePackage {
		t.Errorf("missing script: %+v", res[0].Err)
	}
}
