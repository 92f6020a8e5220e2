package capture

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/internal/testing/testenv"
	"github.com/agentgate/agentgate/mcp/config"
	"github.com/agentgate/agentgate/mcp/wire"
)

// Integration tests against the pinned real servers in testdata/npm
// (installed by scripts/test.sh; in CI they must run, never skip).

// byName returns the tools sorted by name, and their names.
func byName(t *testing.T, tools []json.RawMessage) ([]json.RawMessage, []string) {
	t.Helper()
	type named struct {
		name string
		raw  json.RawMessage
	}
	var ns []named
	for _, raw := range tools {
		var v struct{ Name string }
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatal(err)
		}
		ns = append(ns, named{v.Name, raw})
	}
	slices.SortFunc(ns, func(a, b named) int { return strings.Compare(a.name, b.name) })
	var out []json.RawMessage
	var names []string
	for _, n := range ns {
		out, names = append(out, n.raw), append(names, n.name)
	}
	return out, names
}

// registerToolCount counts tool registrations in a package's JS: the
// independent source for the number of tools it lists.
func registerToolCount(t *testing.T, file string) int {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "testdata/npm/node_modules/@modelcontextprotocol", file))
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Count(data, []byte("registerTool("))
}

func TestNPMEverythingThreeTransports(t *testing.T) {
	bin := testenv.NPMBin(t, "mcp-server-everything")
	httpPort := testenv.StartNPMServer(t, bin, "streamableHttp")
	ssePort := testenv.StartNPMServer(t, bin, "sse")
	stdio := config.Resolved{Server: config.Server{Name: "everything-stdio", Transport: config.Stdio, Command: bin, Args: []string{"stdio"}}}
	servers := []config.Resolved{
		stdio,
		{Server: config.Server{Name: "everything-http", Transport: config.StreamableHTTP, URL: "http://127.0.0.1:" + strconv.Itoa(httpPort) + "/mcp"}},
		{Server: config.Server{Name: "everything-sse", Transport: config.SSE, URL: "http://127.0.0.1:" + strconv.Itoa(ssePort) + "/sse"}},
		stdio, // a second run must agree byte for byte
	}
	results := CaptureAll(context.Background(), servers, wire.Options{})
	var first []json.RawMessage
	for i, res := range results {
		if res.Err != nil {
			t.Fatalf("%s: %v\nstderr: %s", res.Server, res.Err, res.StderrTail)
		}
		sorted, names := byName(t, res.Tools)
		if i == 0 {
			first = sorted
			// The tools registerTools() in dist/tools/index.js registers
			// unconditionally; a client without sampling, elicitation or
			// roots capabilities gets those and nothing else but the
			// task-based research tool.
			index, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "testdata/npm/node_modules/@modelcontextprotocol/server-everything/dist/tools/index.js"))
			if err != nil {
				t.Fatal(err)
			}
			body, _, _ := strings.Cut(string(index), "registerConditionalTools")
			calls := regexp.MustCompile(`(?m)^\s+register\w+Tool\(server\);`).FindAllString(body, -1)
			if len(calls) == 0 || len(names) != len(calls)+1 || !slices.Contains(names, "echo") || !slices.Contains(names, "simulate-research-query") {
				t.Errorf("listed %d tools %v; registerTools registers %d (+1 task tool)", len(names), names, len(calls))
			}
			continue
		}
		if !equalRaw(sorted, first) {
			t.Errorf("%s listed other tools than %s:\n%s\n%s", res.Server, results[0].Server, sorted, first)
		}
	}
}

func TestNPMFilesystemAndMemory(t *testing.T) {
	fsBin := testenv.NPMBin(t, "mcp-server-filesystem")
	memBin := testenv.NPMBin(t, "mcp-server-memory")
	dir := t.TempDir()
	servers := []config.Resolved{
		{Server: config.Server{Name: "filesystem", Transport: config.Stdio, Command: fsBin, Args: []string{dir}}},
		{Server: config.Server{Name: "memory", Transport: config.Stdio, Command: memBin, Cwd: dir,
			Env: map[string]string{"MEMORY_FILE_PATH": filepath.Join(dir, "memory.jsonl")}}},
	}
	want := []int{
		registerToolCount(t, "server-filesystem/dist/index.js"),
		registerToolCount(t, "server-memory/dist/index.js"),
	}
	results := CaptureAll(context.Background(), servers, wire.Options{})
	for i, res := range results {
		if res.Err != nil {
			t.Fatalf("%s: %v\nstderr: %s", res.Server, res.Err, res.StderrTail)
		}
		if len(res.Tools) != want[i] || want[i] == 0 {
			t.Errorf("%s: %d tools, its JS registers %d", res.Server, len(res.Tools), want[i])
		}
		if res.Protocol != "2025-11-25" {
			t.Errorf("%s: protocol %q", res.Server, res.Protocol)
		}
	}
}

// TestNPMEverythingClientCapabilities: with client-capabilities roots,
// sampling and elicitation (agentgate.toml), server-everything lists the
// tools it registers only for such a client (registerConditionalTools in
// dist/tools/index.js, each behind a check of the client's capabilities),
// over stdio, streamable HTTP and SSE alike, and byte for byte the same;
// the tools needing more (tasks, elicitation.url) stay out. Without the
// key the listing is the one TestNPMEverythingThreeTransports checks.
func TestNPMEverythingClientCapabilities(t *testing.T) {
	bin := testenv.NPMBin(t, "mcp-server-everything")
	httpPort := testenv.StartNPMServer(t, bin, "streamableHttp")
	ssePort := testenv.StartNPMServer(t, bin, "sse")
	caps := []string{config.CapElicitation, config.CapRoots, config.CapSampling}
	servers := []config.Resolved{
		{Server: config.Server{Name: "plain", Transport: config.Stdio, Command: bin, Args: []string{"stdio"}}},
		{Server: config.Server{Name: "stdio", Transport: config.Stdio, Command: bin, Args: []string{"stdio"}, ClientCapabilities: caps}},
		{Server: config.Server{Name: "http", Transport: config.StreamableHTTP, URL: "http://127.0.0.1:" + strconv.Itoa(httpPort) + "/mcp", ClientCapabilities: caps}},
		{Server: config.Server{Name: "sse", Transport: config.SSE, URL: "http://127.0.0.1:" + strconv.Itoa(ssePort) + "/sse", ClientCapabilities: caps}},
	}
	// The conditional tools and the capability each checks, read from the
	// package's own JS (the independent source).
	dir := filepath.Join(testenv.RepoRoot(t), "testdata/npm/node_modules/@modelcontextprotocol/server-everything/dist/tools")
	gated := map[string]string{}
	for _, f := range []string{"get-roots-list", "trigger-sampling-request", "trigger-elicitation-request"} {
		js, err := os.ReadFile(filepath.Join(dir, f+".js"))
		if err != nil {
			t.Fatal(err)
		}
		m := regexp.MustCompile(`clientCapabilities\.(\w+) !== undefined`).FindSubmatch(js)
		if m == nil || !bytes.Contains(js, []byte(`"`+f+`"`)) {
			t.Fatalf("%s.js: no capability check for tool %s", f, f)
		}
		gated[f] = string(m[1])
	}
	if gated["get-roots-list"] != "roots" || gated["trigger-sampling-request"] != "sampling" || gated["trigger-elicitation-request"] != "elicitation" {
		t.Fatalf("server-everything gates its tools otherwise than the test expects: %v", gated)
	}
	results := CaptureAll(context.Background(), servers, wire.Options{Root: t.TempDir()})
	_, plain := byName(t, results[0].Tools)
	var first []json.RawMessage
	for _, res := range results[1:] {
		if res.Err != nil {
			t.Fatalf("%s: %v\nstderr: %s", res.Server, res.Err, res.StderrTail)
		}
		sorted, names := byName(t, res.Tools)
		want := slices.Sorted(slices.Values(append(slices.Clone(plain), "get-roots-list", "trigger-sampling-request", "trigger-elicitation-request")))
		if !slices.Equal(names, want) {
			t.Errorf("%s: listed %v\nwant the plain listing plus the three gated tools: %v", res.Server, names, want)
		}
		if first == nil {
			first = sorted
		} else if !equalRaw(sorted, first) {
			t.Errorf("%s listed other bytes than %s", res.Server, results[1].Server)
		}
	}
	for _, n := range []string{"get-roots-list", "trigger-sampling-request", "trigger-elicitation-request"} {
		if slices.Contains(plain, n) {
			t.Errorf("without client-capabilities, %s is listed: %v", n, plain)
		}
	}
}
