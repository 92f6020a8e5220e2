package cli

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentgate/agentgate/lock"
)

// writePackageLock writes a version 2 agentgate.lock in r that pins, for
// each server, the given package (and no tools: pin reads only packages).
func writePackageLock(t *testing.T, r *testRepo, pkgs map[string]*lock.Package) {
	t.Helper()
	servers := map[string]lock.Server{}
	for name, p := range pkgs {
		srv, err := lock.BuildServer(lock.Version2, nil, lock.BuildOptions{Definitions: true})
		if err != nil {
			t.Fatal(err)
		}
		srv.Package = p
		servers[name] = srv
	}
	lf := lock.New(lock.Version2, servers, lock.Stamp{By: "agentgate@test", At: time.Date(2026, 8, 3, 12, 0, 0, 0, time.UTC)}, nil)
	r.write("agentgate.lock", string(lock.Format(lf)))
}

var (
	pinMemIntegrity   = "sha512-" + base64.StdEncoding.EncodeToString(make([]byte, 64))
	pinTimeIntegrity  = "sha256-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="
	pinFetchDigest    = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	pinGoModIntegrity = "h1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="
)

// pinRepo has one unpinned server in each format agentgate reads (JSON,
// JSONC with comments, Codex TOML, Continue YAML), an exact one, a script
// and a version 2 lockfile pinning their packages.
func pinRepo(t *testing.T) *testRepo {
	r := newRepo(t, true, nil)
	r.write(".mcp.json", `{
  "mcpServers": {
    "memory": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"]},
    "exact": {"command": "npx", "args": ["-y", "pkg@1.0.0"]}
  }
}
`)
	r.write(".vscode/mcp.json", "// workspace servers\r\n{\r\n  \"servers\": {\r\n    \"fetch\": {\r\n      \"command\": \"docker\", // image\r\n      \"args\": [\"run\", \"-i\", \"--rm\", \"mcp/fetch:latest\",],\r\n    },\r\n  },\r\n}\r\n")
	r.write(".codex/config.toml", "# Codex\n[mcp_servers.time]\ncommand = \"uvx\" # launcher\nargs = ['mcp-server-time', \"--local-timezone=UTC\"]\n")
	r.write(".continue/mcpServers/go.yaml", "name: go\nversion: 0.0.1\nschema: v1\nmcpServers:\n  - name: gosrv\n    command: go\n    args:\n      - run\n      - example.com/mcp/cmd/server@latest # module\n")
	writePackageLock(t, r, map[string]*lock.Package{
		"memory": {Ecosystem: "npm", Name: "@modelcontextprotocol/server-memory", Version: "2026.8.31", Integrity: pinMemIntegrity},
		"exact":  {Ecosystem: "npm", Name: "pkg", Version: "1.0.0", Integrity: pinMemIntegrity},
		"fetch":  {Ecosystem: "oci", Name: "mcp/fetch", Version: "latest", Integrity: pinFetchDigest},
		"time":   {Ecosystem: "pypi", Name: "mcp-server-time", Version: "2026.1.0", Integrity: pinTimeIntegrity},
		"gosrv":  {Ecosystem: "go", Name: "example.com/mcp", Version: "v1.2.3", Integrity: pinGoModIntegrity},
	})
	return r
}

// TestPin: every format gets its minimal edit (expected files written by
// hand: only the spec's bytes change); a second pin changes nothing; the
// lockfile is not touched; verify still passes.
func TestPin(t *testing.T) {
	r := pinRepo(t)
	before := string(r.read("agentgate.lock"))
	r.mustRun(ExitOK, "pin")
	want := map[string]string{
		".mcp.json": `{
  "mcpServers": {
    "memory": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory@2026.8.31"]},
    "exact": {"command": "npx", "args": ["-y", "pkg@1.0.0"]}
  }
}
`,
		".vscode/mcp.json":             "// workspace servers\r\n{\r\n  \"servers\": {\r\n    \"fetch\": {\r\n      \"command\": \"docker\", // image\r\n      \"args\": [\"run\", \"-i\", \"--rm\", \"mcp/fetch:latest@" + pinFetchDigest + "\",],\r\n    },\r\n  },\r\n}\r\n",
		".codex/config.toml":           "# Codex\n[mcp_servers.time]\ncommand = \"uvx\" # launcher\nargs = ['mcp-server-time==2026.1.0', \"--local-timezone=UTC\"]\n",
		".continue/mcpServers/go.yaml": "name: go\nversion: 0.0.1\nschema: v1\nmcpServers:\n  - name: gosrv\n    command: go\n    args:\n      - run\n      - example.com/mcp/cmd/server@v1.2.3 # module\n",
	}
	for f, w := range want {
		if got := string(r.read(f)); got != w {
			t.Errorf("%s:\n%q\nwant\n%q", f, got, w)
		}
	}
	if after := string(r.read("agentgate.lock")); after != before {
		t.Error("pin changed the lockfile")
	}
	_, stdout, _ := r.agentgate("pin")
	if !strings.Contains(stdout, "nothing to change") {
		t.Errorf("second pin: %q", stdout)
	}
	r.mustRun(ExitOK, "verify", "--no-config")
}

// TestPinWrapped: a wrapped config is pinned inside the wrapper, and
// unwrapping it gives the unwrapped config pinned.
func TestPinWrapped(t *testing.T) {
	plain := pinRepo(t)
	plain.mustRun(ExitOK, "pin")
	r := pinRepo(t)
	r.mustRun(ExitOK, "wrap")
	r.mustRun(ExitOK, "pin")
	r.mustRun(ExitOK, "unwrap")
	for _, f := range []string{".mcp.json", ".vscode/mcp.json", ".codex/config.toml", ".continue/mcpServers/go.yaml"} {
		if got, want := string(r.read(f)), string(plain.read(f)); got != want {
			t.Errorf("%s: wrap, pin, unwrap gives\n%s\nwant\n%s", f, got, want)
		}
	}
}

// TestPinErrors: a server without a locked package, a version 1 lockfile,
// a config whose package is not the locked one: exit 2, every server
// named with the fix, and no file written.
func TestPinErrors(t *testing.T) {
	r := pinRepo(t)
	writePackageLock(t, r, map[string]*lock.Package{
		"memory": {Ecosystem: "npm", Name: "@modelcontextprotocol/server-everything", Version: "1.0.0", Integrity: pinMemIntegrity},
		"fetch":  nil,
		"time":   {Ecosystem: "pypi", Name: "mcp-server-time", Version: "2026.1.0", Integrity: pinTimeIntegrity},
		"gosrv":  {Ecosystem: "go", Name: "example.com/mcp", Version: "v1.2.3", Integrity: pinGoModIntegrity},
		"exact":  {Ecosystem: "npm", Name: "pkg", Version: "1.0.0", Integrity: pinMemIntegrity},
	})
	before := map[string]string{}
	for _, f := range []string{".mcp.json", ".vscode/mcp.json", ".codex/config.toml"} {
		before[f] = string(r.read(f))
	}
	code, _, stderr := r.agentgate("pin")
	if code != ExitInvalid {
		t.Fatalf("exit %d, want 2\n%s", code, stderr)
	}
	for _, w := range []string{
		`.mcp.json:3:5: server "memory": args[1]: runs npm package @modelcontextprotocol/server-memory, but agentgate.lock pins npm package @modelcontextprotocol/server-everything@1.0.0`,
		`.vscode/mcp.json:4:5: server "fetch": args[3]: agentgate.lock pins no package for this server (lockfile version 2)`,
		"agentgate: hint: run 'agentgate lock --lockfile-version 2'",
	} {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr does not contain %q:\n%s", w, stderr)
		}
	}
	for f, b := range before {
		if string(r.read(f)) != b {
			t.Errorf("%s was written", f)
		}
	}
	// No lockfile at all.
	r2 := pinRepo(t)
	if err := os.Remove(filepath.Join(r2.dir, "agentgate.lock")); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = r2.agentgate("pin")
	if code != ExitInvalid || !strings.Contains(stderr, "agentgate.lock: no lockfile") {
		t.Errorf("no lockfile: exit %d\n%s", code, stderr)
	}
}
