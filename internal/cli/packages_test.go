package cli

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentgate/agentgate/lock"
)

// Real published values, read from this repository's own files (not
// computed by agentgate): the npm registry's dist.integrity of
// @modelcontextprotocol/server-memory@2026.8.31 as
// testdata/npm/package-lock.json records it.
const (
	memName      = "@modelcontextprotocol/server-memory"
	memVersion   = "2026.8.31"
	memIntegrity = "sha512-ljj/3S4aGjxdNSQWw6gucKKGnTLdBPWxzapyY/MT2tOVyZwvxChvevXSLPwx59nKJAlVpUVW+cOlnVRXRwiqMQ=="
)

// ociDigest is a manifest digest: the SHA-256 of some bytes, as hex.
func ociDigest(s string) string { return fmt.Sprintf("sha256:%x", sha256.Sum256([]byte(s))) }

// pkgRepo is a git repository whose .mcp.json defines servers and whose
// committed version 2 lockfile (written here, no server started: verify
// and the offline hook start none) locks each with no tools and the
// package in pkgs (none when absent).
func pkgRepo(t *testing.T, servers map[string]any, pkgs map[string]*lock.Package) *testRepo {
	t.Helper()
	r := newRepo(t, true, servers)
	locked := map[string]lock.Server{}
	for name := range servers {
		srv, err := lock.BuildServer(lock.Version2, nil, lock.BuildOptions{Definitions: true})
		if err != nil {
			t.Fatal(err)
		}
		srv.Package = pkgs[name]
		locked[name] = srv
	}
	r.write("agentgate.lock", string(lock.Format(lock.New(lock.Version2, locked, lock.Stamp{By: "agentgate@test", At: time.Date(2026, 8, 3, 12, 0, 0, 0, time.UTC)}, nil))))
	r.commitAll()
	return r
}

func stdio(command string, args ...string) map[string]any {
	return map[string]any{"command": command, "args": args}
}

// TestVerifyPackages: verify names every unpinned spec with its server,
// file:line, the spec as written and the exact spec `agentgate pin` would
// write (from the lockfile's package; "not locked yet" without one), and
// every unpinnable command; require-pinned-packages makes them exit 1;
// an exact spec that names another version, digest or package than the
// lockfile pins is drift (exit 1) offline.
func TestVerifyPackages(t *testing.T) {
	mem := &lock.Package{Ecosystem: "npm", Name: memName, Version: memVersion, Integrity: memIntegrity}
	fetch := &lock.Package{Ecosystem: "pypi", Name: "mcp-server-fetch", Version: "2025.4.7", Integrity: "sha256-yUqH3YpMyl8RI5k/hJwA9SMvfVPuJPErtFleyyPzoaU="}
	gh := &lock.Package{Ecosystem: "oci", Name: "ghcr.io/github/github-mcp-server", Version: "latest", Integrity: ociDigest("manifest A")}
	unpinned := map[string]any{
		"mem":    stdio("npx", "-y", memName),
		"fetch":  stdio("uvx", "mcp-server-fetch"),
		"gh":     stdio("docker", "run", "-i", "--rm", "ghcr.io/github/github-mcp-server"),
		"new":    stdio("npx", "-y", "--package=@scope/other", "other"),
		"script": stdio("python", "-m", "tools.server"),
	}
	pkgs := map[string]*lock.Package{"mem": mem, "fetch": fetch, "gh": gh}

	r := pkgRepo(t, unpinned, pkgs)
	stdout, stderr := r.mustRun(ExitOK, "verify")
	if !strings.Contains(stdout, "integrity ok, matches configs") {
		t.Errorf("stdout %q", stdout)
	}
	// .mcp.json is written by json.MarshalIndent with sorted keys: fetch
	// is on line 3, gh 9, mem 18, new 25, script 33 (counted here).
	for name, want := range map[string]int{"fetch": 3, "gh": 9, "mem": 18, "new": 25, "script": 33} {
		if got := lineOf(t, r.read(".mcp.json"), `"`+name+`": {`); got != want {
			t.Fatalf("%s is on line %d of .mcp.json, not %d", name, got, want)
		}
	}
	for _, want := range []string{
		`agentgate: note: server "fetch" (.mcp.json:3) runs pypi package "mcp-server-fetch" with no exact version; agentgate pin would write mcp-server-fetch==2025.4.7`,
		`agentgate: note: server "gh" (.mcp.json:9) runs oci package "ghcr.io/github/github-mcp-server" with no exact version; agentgate pin would write ghcr.io/github/github-mcp-server:latest@` + gh.Integrity,
		`agentgate: note: server "mem" (.mcp.json:18) runs npm package "` + memName + `" with no exact version; agentgate pin would write ` + memName + `@` + memVersion +
			`; agentgate guard starts ` + memName + `@` + memVersion + `, not what the registry serves today (a newer release is drift for agentgate ci)` + "\n",
		`agentgate: note: server "new" (.mcp.json:25) runs npm package "@scope/other" with no exact version; not locked yet`,
		`agentgate: note: server "script" (.mcp.json:33) is unpinnable: python runs inline code or a module, not a file`,
	} {
		if !strings.Contains(stderr, want+"\n") && !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks\n%s\ngot:\n%s", want, stderr)
		}
	}

	// An exact spec the lockfile pins no package for is named too.
	r.writeConfig(map[string]any{"mem": stdio("npx", "-y", memName+"@"+memVersion), "fetch": unpinned["fetch"], "gh": unpinned["gh"], "new": stdio("npx", "-y", "@scope/other@1.0.0"), "script": unpinned["script"]})
	_, stderr = r.mustRun(ExitOK, "verify")
	if want := `runs npm package @scope/other@1.0.0, which the lockfile pins no package for yet`; !strings.Contains(stderr, want) || strings.Contains(stderr, `"mem"`) {
		t.Errorf("stderr lacks %q (or names mem):\n%s", want, stderr)
	}
	r.git("checkout", "--", ".mcp.json")
	r.write("agentgate.toml", "require-pinned-packages = true\n")
	_, stderr = r.mustRun(ExitDrift, "verify")
	for _, want := range []string{"agentgate.toml requires pinned packages:", "agentgate pin would write " + memName + "@" + memVersion, `server "script" (.mcp.json:33) is unpinnable`} {
		if !strings.Contains(stderr, want) {
			t.Errorf("require-pinned-packages: stderr lacks %q:\n%s", want, stderr)
		}
	}

	// Exact specs: the locked version is in sync; another version, digest
	// or package is drift, offline.
	for _, c := range []struct {
		name   string
		server map[string]any
		pkg    *lock.Package
		want   int
		msg    string
	}{
		{"npm same", stdio("npx", "-y", memName+"@"+memVersion), mem, ExitOK, ""},
		{"npm loose v", stdio("npx", "-y", memName+"@v"+memVersion), mem, ExitOK, ""},
		{"npm other version", stdio("npx", "-y", memName+"@2026.8.30"), mem, ExitDrift, "(package: 2026.8.31 -> 2026.8.30)"},
		{"npm other package", stdio("npx", "-y", "@scope/evil@1.0.0"), mem, ExitDrift, "runs npm package @scope/evil@1.0.0; the lockfile pins npm package " + memName + "@" + memVersion},
		{"pypi same", stdio("uvx", "mcp-server-fetch==2025.4.7"), fetch, ExitOK, ""},
		{"pypi other", stdio("uvx", "--from", "mcp-server-fetch==2025.5.0", "mcp-server-fetch"), fetch, ExitDrift, "(package: 2025.4.7 -> 2025.5.0)"},
		// PEP 440 equality, not text: trailing zeros, case, a "v", spellings.
		{"pypi trailing zeros", stdio("uvx", "mcp-server-fetch==2025.4.7.0"), fetch, ExitOK, ""},
		{"pypi v prefix and @", stdio("uvx", "mcp-server-fetch@v2025.4.7"), fetch, ExitOK, ""},
		{"pypi locked 1.0rc1 written 1.0.RC1", stdio("uvx", "tool==1.0.RC1"), &lock.Package{Ecosystem: "pypi", Name: "tool", Version: "1.0rc1", Integrity: fetch.Integrity}, ExitOK, ""},
		{"pypi locked 1.0.post1 written 1.0-1", stdio("pipx", "run", "tool==1.0-1"), &lock.Package{Ecosystem: "pypi", Name: "tool", Version: "1.0.post1", Integrity: fetch.Integrity}, ExitOK, ""},
		{"pypi post-release is another version", stdio("uvx", "mcp-server-fetch==2025.4.7.post1"), fetch, ExitDrift, "(package: 2025.4.7 -> 2025.4.7.post1)"},
		{"pypi dev release is another version", stdio("uvx", "mcp-server-fetch==2025.4.7.dev0"), fetch, ExitDrift, "(package: 2025.4.7 -> 2025.4.7.dev0)"},
		{"pypi pre-release is another version", stdio("uvx", "mcp-server-fetch==2025.4.7a1"), fetch, ExitDrift, "(package: 2025.4.7 -> 2025.4.7a1)"},
		{"pypi === compares text", stdio("uvx", "mcp-server-fetch===2025.4.7.0"), fetch, ExitDrift, "(package: 2025.4.7 -> 2025.4.7.0)"},
		{"oci same digest", stdio("docker", "run", "-i", "ghcr.io/github/github-mcp-server:latest@"+gh.Integrity), gh, ExitOK, ""},
		{"oci other digest", stdio("docker", "run", "-i", "ghcr.io/github/github-mcp-server@"+ociDigest("manifest B")), gh, ExitDrift, "(package: " + gh.Integrity + " -> " + ociDigest("manifest B") + ")"},
		{"unpinned spec: the registry decides, not verify", stdio("npx", "-y", memName+"@latest"), mem, ExitOK, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := pkgRepo(t, map[string]any{"s": c.server}, map[string]*lock.Package{"s": c.pkg})
			before := r.read("agentgate.lock")
			code, stdout, stderr := r.agentgate("verify")
			if code != c.want || c.msg != "" && !strings.Contains(stderr, c.msg) {
				t.Errorf("exit %d, want %d; stderr lacks %q:\n%s%s", code, c.want, c.msg, stdout, stderr)
			}
			if c.want == ExitDrift && !strings.Contains(stderr, "agentgate.lock does not pin the packages the configs run:") {
				t.Errorf("stderr:\n%s", stderr)
			}
			if string(r.read("agentgate.lock")) != string(before) {
				t.Errorf("verify changed the lockfile")
			}
			// The offline hook (nothing but README staged) says the same
			// from the staged config.
			r.write("README", "x")
			r.git("add", "README")
			code, _, stderr = r.agentgate("hook")
			if code != c.want || c.msg != "" && !strings.Contains(stderr, c.msg) {
				t.Errorf("hook: exit %d, want %d; stderr lacks %q:\n%s", code, c.want, c.msg, stderr)
			}
		})
	}
}

// lineOf is the 1-based line of the first occurrence of s in data.
func lineOf(t *testing.T, data []byte, s string) int {
	t.Helper()
	i := strings.Index(string(data), s)
	if i < 0 {
		t.Fatalf("%q not in\n%s", s, data)
	}
	return 1 + strings.Count(string(data[:i]), "\n")
}

// TestVerifyFilePackages: a file package is checked offline by path (the
// config's script, joined to a plain relative cwd) and by the SHA-256 of
// its bytes, computed here with crypto/sha256.
func TestVerifyFilePackages(t *testing.T) {
	script := "#!/bin/sh\nexec server\n"
	sum := sha256.Sum256([]byte(script))
	pin := &lock.Package{Ecosystem: "file", Name: "sub/run.sh", Integrity: "sha256-" + base64.StdEncoding.EncodeToString(sum[:])}
	for _, c := range []struct {
		name   string
		server map[string]any
		body   string // written to sub/run.sh
		want   int
		msg    string
	}{
		{"same", stdio("sh", "sub/run.sh"), script, ExitOK, ""},
		{"same through cwd", map[string]any{"command": "sh", "args": []string{"run.sh"}, "cwd": "sub"}, script, ExitOK, ""},
		{"bytes changed", stdio("sh", "sub/run.sh"), script + "# more\n", ExitDrift, `runs sub/run.sh, whose bytes changed: integrity sha256-`},
		{"another script", stdio("sh", "sub/other.sh"), script, ExitDrift, `runs the file sub/other.sh; the lockfile pins the file sub/run.sh`},
		{"another script through cwd", map[string]any{"command": "sh", "args": []string{"other.sh"}, "cwd": "sub"}, script, ExitDrift, `runs the file sub/other.sh; the lockfile pins the file sub/run.sh`},
		{"templated cwd: checked by content", map[string]any{"command": "sh", "args": []string{"run.sh"}, "cwd": "${workspaceFolder}/sub"}, script + "#\n", ExitDrift, `runs sub/run.sh, whose bytes changed`},
		{"another package", stdio("npx", "-y", "pkg@1.0.0"), script, ExitDrift, `runs npm package pkg@1.0.0; the lockfile pins file package sub/run.sh`},
		{"not built", stdio("sh", "sub/run.sh"), "", ExitOK, `the file sub/run.sh is not there to check`},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newRepo(t, true, nil)
			cfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"s": c.server}})
			if _, ok := c.server["cwd"]; ok {
				r.write(".gemini/settings.json", string(cfg)) // Gemini CLI reads cwd; Claude Code's .mcp.json has none
			} else {
				r.write(".mcp.json", string(cfg))
			}
			srv, _ := lock.BuildServer(lock.Version2, nil, lock.BuildOptions{Definitions: true})
			srv.Package = pin
			r.write("agentgate.lock", string(lock.Format(lock.New(lock.Version2, map[string]lock.Server{"s": srv}, lock.Stamp{By: "x", At: time.Date(2026, 8, 3, 12, 0, 0, 0, time.UTC)}, nil))))
			if c.body != "" {
				r.write("sub/run.sh", c.body)
			}
			code, stdout, stderr := r.agentgate("verify")
			if code != c.want || c.msg != "" && !strings.Contains(stderr, c.msg) {
				t.Errorf("exit %d, want %d; stderr lacks %q:\n%s%s", code, c.want, c.msg, stdout, stderr)
			}
		})
	}
	// An npm alias keeps its alias in the spec pin would write.
	mem := &lock.Package{Ecosystem: "npm", Name: memName, Version: memVersion, Integrity: memIntegrity}
	r := pkgRepo(t, map[string]any{"m": stdio("npx", "-y", "mem@npm:"+memName+"@^2026")}, map[string]*lock.Package{"m": mem})
	_, stderr := r.mustRun(ExitOK, "verify")
	if want := "agentgate pin would write mem@npm:" + memName + "@" + memVersion; !strings.Contains(stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
}
