//go:build linux

package cli

import (
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/agentgate/agentgate/internal/testing/testenv"
)

// TestWrapRemoteClients: issue #12's "remote servers become a stdio guard
// with --url", end to end. A repository whose Claude Code and Codex
// configs reach the real server-everything over streamable HTTP, with
// header variables written each client's way (Claude Code ${VAR} in
// "headers"; Codex bearer_token_env_var and env_http_headers), is locked,
// wrapped with the built agentgate, and locked again: the same lockfile
// bytes. Then each wrapped entry is started the way its client starts a
// stdio server, by the official MCP Inspector as the client: the command
// and args read from the wrapped file (Claude Code's ${VAR} in args
// expanded from the client's environment, as Claude Code does; Codex
// expands nothing and gives the server only the variables env_vars
// names), and the pinned tools are listed and callable through guard.
// Codex started without the variables env_vars names cannot start guard
// (the header variable is unset: exit 3 naming it), which shows the
// headers reach guard through env_vars. unwrap restores both files byte
// for byte.
func TestWrapRemoteClients(t *testing.T) {
	ev := testenv.NPMBin(t, "mcp-server-everything")
	ag := buildAgentgate(t)
	port := strconv.Itoa(testenv.StartNPMServer(t, ev, "streamableHttp"))
	repo := testenv.NewGitRepo(t)
	files := map[string]string{
		".mcp.json": `{
  "mcpServers": {
    "claude-remote": {
      "type": "http",
      "url": "http://127.0.0.1:${AG_PORT}/mcp",
      "headers": {"Authorization": "Bearer ${AG_TOKEN}", "X-Team": "${AG_TEAM:-core}"}
    }
  }
}
`,
		".codex/config.toml": `[mcp_servers.codex-remote]
url = "http://127.0.0.1:` + port + `/mcp"
bearer_token_env_var = "AG_TOKEN"
env_http_headers = { "X-Team" = "AG_TEAM" }
startup_timeout_sec = 30
`,
		// The client of this test, the MCP Inspector CLI, declares roots:
		// pin what it is listed (by default each entry would be captured
		// with its own clients' capabilities, issue #25, and the two
		// entries would differ).
		"agentgate.toml": "client-capabilities = [\"roots\"]\n",
	}
	for name, data := range files {
		p := filepath.Join(repo, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	clientEnv := map[string]string{"AG_PORT": port, "AG_TOKEN": "secret-token", "AG_TEAM": "core"}
	env := builtEnv()
	for k, v := range clientEnv {
		env = append(env, k+"="+v)
	}
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(ag, args...)
		cmd.Dir, cmd.Env = repo, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("agentgate %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	run("lock")
	unwrapped, err := os.ReadFile(filepath.Join(repo, "agentgate.lock"))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(lockedTools(t, filepath.Join(repo, "agentgate.lock"), "codex-remote")); n == 0 ||
		!slices.Equal(lockedTools(t, filepath.Join(repo, "agentgate.lock"), "claude-remote"), lockedTools(t, filepath.Join(repo, "agentgate.lock"), "codex-remote")) {
		t.Fatalf("the two entries of one server lock different tools:\n%s", unwrapped)
	}
	out := run("wrap")
	if !strings.Contains(out, `.mcp.json: wrapped "claude-remote"`) || !strings.Contains(out, `.codex/config.toml: wrapped "codex-remote"`) {
		t.Fatalf("agentgate wrap:\n%s", out)
	}
	run("lock")
	if again, _ := os.ReadFile(filepath.Join(repo, "agentgate.lock")); string(again) != string(unwrapped) {
		t.Fatalf("the wrapped configs lock other bytes:\n%s\nwant\n%s", again, unwrapped)
	}

	// The entries as written by wrap.
	var claude struct {
		MCPServers map[string]struct {
			Type    string
			Command string
			Args    []string
			Env     map[string]string
			URL     string `json:"url"`
		} `json:"mcpServers"`
	}
	data, _ := os.ReadFile(filepath.Join(repo, ".mcp.json"))
	if err := json.Unmarshal(data, &claude); err != nil {
		t.Fatal(err)
	}
	ce := claude.MCPServers["claude-remote"]
	if ce.Type != "stdio" || ce.URL != "" || filepath.Base(ce.Command) != "agentgate" || len(ce.Env) != 1 {
		t.Fatalf("wrapped Claude Code entry: %+v", ce)
	}
	var codex struct {
		MCPServers map[string]struct {
			Command string            `toml:"command"`
			Args    []string          `toml:"args"`
			Env     map[string]string `toml:"env"`
			EnvVars []string          `toml:"env_vars"`
			URL     string            `toml:"url"`
		} `toml:"mcp_servers"`
	}
	if _, err := toml.DecodeFile(filepath.Join(repo, ".codex", "config.toml"), &codex); err != nil {
		t.Fatal(err)
	}
	xe := codex.MCPServers["codex-remote"]
	if xe.URL != "" || filepath.Base(xe.Command) != "agentgate" || !slices.Equal(xe.EnvVars, []string{"AG_TEAM", "AG_TOKEN"}) {
		t.Fatalf("wrapped Codex entry: %+v", xe)
	}

	// Claude Code expands ${VAR} and ${VAR:-default} in args from its
	// environment before it starts the server (its documented rule).
	claudeVar := regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(:-([^}]*))?\}`)
	expand := func(s string) string {
		return claudeVar.ReplaceAllStringFunc(s, func(m string) string {
			g := claudeVar.FindStringSubmatch(m)
			if v, ok := clientEnv[g[1]]; ok {
				return v
			}
			return g[3]
		})
	}
	var claudeArgs []string
	for _, a := range ce.Args {
		claudeArgs = append(claudeArgs, expand(a))
	}
	// The program "agentgate" is the built one, as if on the client's PATH.
	inspector := func(t *testing.T, entryEnv map[string]string, args []string, method ...string) (string, string, error) {
		t.Helper()
		a := append([]string{"--cli"}, method...)
		for _, k := range slices.Sorted(maps.Keys(entryEnv)) {
			a = append(a, "-e", k+"="+entryEnv[k])
		}
		a = append(append(a, "--", ag), args...)
		return testenv.RunInspector(t, repo, env, a...)
	}
	pinned := lockedTools(t, filepath.Join(repo, "agentgate.lock"), "claude-remote")
	codexEnv := map[string]string{}
	for k, v := range xe.Env {
		codexEnv[k] = v
	}
	for _, k := range xe.EnvVars {
		codexEnv[k] = clientEnv[k]
	}
	for _, c := range []struct {
		name string
		env  map[string]string
		args []string
	}{{"claude-code", ce.Env, claudeArgs}, {"codex", codexEnv, xe.Args}} {
		t.Run(c.name, func(t *testing.T) {
			out, stderr, err := inspector(t, c.env, c.args, "--method", "tools/list")
			if err != nil {
				t.Fatalf("tools/list through the wrapped entry: %v\n%s\n%s", err, out, stderr)
			}
			names, _ := inspectorTools(t, out)
			for _, n := range names {
				if !slices.Contains(pinned, n) {
					t.Errorf("guard let through %q, which the lockfile does not pin", n)
				}
			}
			if !slices.Contains(names, "echo") || len(names) < len(pinned)-1 {
				t.Errorf("through the wrapped entry: %v, the lockfile pins %v", names, pinned)
			}
			out, stderr, err = inspector(t, c.env, c.args, "--method", "tools/call", "--tool-name", "echo", "--tool-arg", "message=wrapped")
			if err != nil || !strings.Contains(out, `"text": "Echo: wrapped"`) {
				t.Errorf("echo through the wrapped entry: %v\n%s\n%s", err, out, stderr)
			}
		})
	}
	t.Run("codex without env_vars", func(t *testing.T) {
		out, stderr, err := inspector(t, xe.Env, xe.Args, "--method", "tools/list")
		t.Logf("Inspector's stderr: %s", stderr)
		if err == nil || !strings.Contains(stderr, "AG_TEAM") && !strings.Contains(stderr, "AG_TOKEN") {
			t.Errorf("guard started without the header variables: %v\n%s\n%s", err, out, stderr)
		}
	})

	run("unwrap")
	for name, want := range files {
		if got, _ := os.ReadFile(filepath.Join(repo, filepath.FromSlash(name))); string(got) != want {
			t.Errorf("%s after unwrap:\n%s\nwant\n%s", name, got, want)
		}
	}
}
