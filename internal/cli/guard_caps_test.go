//go:build linux

package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentgate/agentgate/internal/testing/testenv"
)

// gatedTools are the tools server-everything lists only to a client with
// the roots, sampling or elicitation capability.
var gatedTools = []string{"get-roots-list", "trigger-elicitation-request", "trigger-sampling-request"}

// rawListing lists server-everything's tools over stdio the way a client
// declaring capabilities does, with a JSON-RPC session of the test's own
// (not agentgate's code): the tools by name, each as the server sent it.
func rawListing(t *testing.T, bin, capabilities string) map[string]json.RawMessage {
	t.Helper()
	cmd := exec.Command(bin, "stdio")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	timer := time.AfterFunc(30*time.Second, func() { _ = cmd.Process.Kill() })
	defer timer.Stop()
	br := bufio.NewReaderSize(stdout, 1<<20)
	await := func(id string) json.RawMessage {
		for {
			line, err := br.ReadBytes('\n')
			if err != nil {
				t.Fatalf("server-everything ended before answering %s: %v", id, err)
			}
			var m struct {
				ID     json.RawMessage
				Result json.RawMessage
			}
			if json.Unmarshal(line, &m) == nil && string(m.ID) == id {
				return m.Result
			}
		}
	}
	write := func(s string) {
		if _, err := stdin.Write([]byte(s + "\n")); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":` + capabilities + `,"clientInfo":{"name":"test","version":"1"}}}`)
	await("1")
	write(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	write(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	var res struct{ Tools []json.RawMessage }
	if err := json.Unmarshal(await("2"), &res); err != nil {
		t.Fatal(err)
	}
	byName := map[string]json.RawMessage{}
	for _, raw := range res.Tools {
		var v struct{ Name string }
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatal(err)
		}
		byName[v.Name] = raw
	}
	return byName
}

// canonicalJSON is the lockfile spec's canonical JSON, by the standard
// library: object keys sorted (encoding/json sorts map keys), no
// whitespace, numbers as written, no HTML escaping.
func canonicalJSON(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// TestGuardInspectorCapabilities is TestGuardInspector's sibling with
// agentgate.toml's client-capabilities: agentgate lock, declaring roots,
// sampling and elicitation, pins the tools server-everything lists only to
// such a client, over stdio and streamable HTTP, with the hashes the
// lockfile spec gives (derived here from a listing of the test's own), and
// every other tool's entry byte for byte as without the key. Then the MCP
// Inspector CLI (it declares roots) lists through guard exactly what it
// lists directly, get-roots-list included, and can call it.
func TestGuardInspectorCapabilities(t *testing.T) {
	ev, ag, httpURL, repo := everythingRepo(t)
	env := builtEnv()
	run := func(args ...string) (string, int) {
		t.Helper()
		cmd := exec.Command(ag, args...)
		cmd.Dir, cmd.Env = repo, env
		out, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); ok {
			return string(out), ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return string(out), 0
	}
	lockPath := filepath.Join(repo, "agentgate.lock")
	entries := func() map[string]map[string]any {
		t.Helper()
		data, err := os.ReadFile(lockPath)
		if err != nil {
			t.Fatal(err)
		}
		var lf struct{ Servers map[string]map[string]any }
		if err := json.Unmarshal(data, &lf); err != nil {
			t.Fatal(err)
		}
		return lf.Servers
	}
	toolsByName := func(entry map[string]any) map[string]map[string]any {
		out := map[string]map[string]any{}
		for _, x := range entry["tools"].([]any) {
			m := x.(map[string]any)
			out[m["name"].(string)] = m
		}
		return out
	}

	writeToml := func(toml string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(repo, "agentgate.toml"), []byte(toml), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// client-capabilities = []: declare none, agentgate's default before
	// issue #25.
	writeToml("client-capabilities = []\n")
	if out, code := run("lock"); code != 0 {
		t.Fatalf("agentgate lock without client-capabilities: exit %d\n%s", code, out)
	}
	before := entries()
	writeToml("client-capabilities = [\"roots\", \"sampling\", \"elicitation\"]\n")
	if out, code := run("diff"); code != 1 {
		t.Errorf("agentgate diff after declaring capabilities, before locking: exit %d, want 1 (new tools)\n%s", code, out)
	}
	if out, code := run("lock"); code != 0 {
		t.Fatalf("agentgate lock with client-capabilities: exit %d\n%s", code, out)
	}
	after := entries()
	// Without the key (issue #25 finding 6), a server of .mcp.json is
	// captured with what its readers declare (Claude Code: roots and
	// elicitation; VS Code: the three): the lockfile just written is in
	// sync.
	if err := os.Remove(filepath.Join(repo, "agentgate.toml")); err != nil {
		t.Fatal(err)
	}
	if out, code := run("diff"); code != 0 {
		t.Errorf("agentgate diff without client-capabilities, after locking with the three: exit %d, want 0 (.mcp.json's clients declare them)\n%s", code, out)
	}
	want := rawListing(t, ev, `{"roots":{},"sampling":{},"elicitation":{}}`)
	for _, server := range []string{"everything", "remote"} {
		old, now := toolsByName(before[server]), toolsByName(after[server])
		for _, g := range gatedTools {
			if _, ok := old[g]; ok {
				t.Errorf("%s: %s pinned without client-capabilities", server, g)
			}
			pin, ok := now[g]
			if !ok {
				t.Errorf("%s: %s not pinned with client-capabilities; pinned: %v", server, g, slices.Sorted(maps.Keys(now)))
				continue
			}
			var def struct {
				Name        string
				Description string
				InputSchema json.RawMessage
			}
			if err := json.Unmarshal(want[g], &def); err != nil || def.Name != g {
				t.Fatalf("%s in the test's own listing: %v %s", g, err, want[g])
			}
			for k, v := range map[string]string{
				"nameHash":        sha256Hex(def.Name),
				"descriptionHash": sha256Hex(def.Description),
				"inputSchemaHash": sha256Hex(canonicalJSON(t, def.InputSchema)),
			} {
				if pin[k] != v {
					t.Errorf("%s: %s %s = %v, derived %s", server, g, k, pin[k], v)
				}
			}
		}
		if len(now) != len(old)+len(gatedTools) || len(now) != len(want) {
			t.Errorf("%s: %d tools pinned, %d before, the server lists %d to such a client", server, len(now), len(old), len(want))
		}
		for name, pin := range old {
			if b1, b2 := mustJSON(t, pin), mustJSON(t, now[name]); b1 != b2 {
				t.Errorf("%s: %s's entry changed with client-capabilities:\n%s\n%s", server, name, b1, b2)
			}
		}
		if got := surfaceOf(after[server]["tools"].([]any)); got != after[server]["surfaceHash"] {
			t.Errorf("%s: surfaceHash %v, derived %s", server, after[server]["surfaceHash"], got)
		}
	}
	if out, code := run("diff"); code != 0 {
		t.Errorf("agentgate diff with the capabilities locked: exit %d\n%s", code, out)
	}

	// The Inspector through guard: everything it lists directly is pinned
	// now, get-roots-list included, and passes unchanged.
	direct, _, err := testenv.RunInspector(t, repo, env, "--cli", ev, "stdio", "--method", "tools/list")
	if err != nil {
		t.Fatalf("Inspector against server-everything directly: %v", err)
	}
	directNames, directTools := inspectorTools(t, direct)
	if !slices.Contains(directNames, "get-roots-list") {
		t.Fatalf("the Inspector is not listed get-roots-list directly (does it still declare roots?): %v", directNames)
	}
	guarded := guardedInspector(ag, ev, httpURL)
	for _, how := range []string{"stdio", "http"} {
		t.Run(how, func(t *testing.T) {
			out, stderr, err := testenv.RunInspector(t, repo, env, append([]string{"--cli", "--method", "tools/list"}, guarded[how]...)...)
			if err != nil {
				t.Fatalf("tools/list through guard: %v\n%s\n%s", err, out, stderr)
			}
			names, tools := inspectorTools(t, out)
			if !slices.Equal(names, directNames) || strings.Contains(stderr, "withheld") || strings.Contains(stderr, "hint:") {
				t.Errorf("through guard: %v\nwant every tool listed directly: %v\nstderr: %s", names, directNames, stderr)
			}
			for name, raw := range tools {
				if !bytes.Equal(raw, directTools[name]) {
					t.Errorf("%s differs through guard", name)
				}
			}
			out, stderr, err = testenv.RunInspector(t, repo, env, append([]string{"--cli", "--method", "tools/call", "--tool-name", "get-roots-list"}, guarded[how]...)...)
			// server-everything's answer (dist/tools/get-roots-list.js), not
			// guard's refusal.
			answered := strings.Contains(out, "The client supports roots") || strings.Contains(out, "Current MCP Roots")
			if err != nil || !answered || strings.Contains(out+stderr, "refused") {
				t.Errorf("get-roots-list through guard: %v\nstdout: %s\nstderr: %s", err, out, stderr)
			}
		})
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
