package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentgate/agentgate/internal/testing/testenv"
)

// Issue #3's "done when", end to end against the pinned real servers in
// testdata/npm (scripts/test.sh installs them; under CI=true their absence
// fails the test): one repository whose .mcp.json, .vscode/mcp.json and
// .codex/config.toml name server-filesystem, server-memory and
// server-everything (stdio from Codex, streamable HTTP and SSE from VS
// Code) locks in one `agentgate lock`, in a fresh clone; a hanging server
// among them fails within its timeout, leaves the lockfile as it was and
// nothing running.

// npmToolCounts derives, from the pinned packages' own JavaScript, how many
// tools each server lists to a client without sampling, elicitation or
// roots capabilities (agentgate's): server-filesystem and server-memory
// register every tool with server.registerTool(...) in dist/index.js;
// server-everything registers the tools of registerTools() in
// dist/tools/index.js unconditionally, and of registerConditionalTools()
// only simulate-research-query for such a client (the same derivation as
// mcp/capture's TestNPMEverythingThreeTransports). With the versions in
// testdata/npm/package-lock.json this is 14, 9 and 13.
func npmToolCounts(t *testing.T) (fs, memory, everything int) {
	t.Helper()
	dir := filepath.Join(testenv.RepoRoot(t), "testdata", "npm", "node_modules", "@modelcontextprotocol")
	read := func(p string) string {
		b, err := os.ReadFile(filepath.Join(dir, p))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	fs = strings.Count(read("server-filesystem/dist/index.js"), "registerTool(")
	memory = strings.Count(read("server-memory/dist/index.js"), "registerTool(")
	body, _, _ := strings.Cut(read("server-everything/dist/tools/index.js"), "registerConditionalTools")
	everything = len(regexp.MustCompile(`(?m)^\s+register\w+Tool\(server\);`).FindAllString(body, -1)) + 1
	if fs == 0 || memory == 0 || everything == 1 {
		t.Fatalf("cannot count the tools in the npm packages' sources (%d, %d, %d): did their layout change?", fs, memory, everything-1)
	}
	return fs, memory, everything
}

// startEverything runs server-everything in mode (streamableHttp or sse)
// on a free port, in its own process group and directory, waits until the
// port accepts connections, and kills the group at the end of the test.
func startEverything(t *testing.T, bin, mode string) int {
	t.Helper()
	port := testenv.FreePort(t)
	cmd := exec.Command(bin, mode)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "PORT="+strconv.Itoa(port))
	testenv.NewGroup(cmd)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		testenv.KillGroup(cmd.Process.Pid)
		_ = cmd.Wait()
	})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	testenv.WaitPort(ctx, t, port)
	return port
}

// procsIn returns the live processes whose working directory is dir or
// below it: every stdio server agentgate starts runs in the repository
// root, so after agentgate returns there must be none.
func procsIn(dir string) []string {
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	var out []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || !testenv.Alive(pid) {
			continue
		}
		cwd, err := os.Readlink("/proc/" + e.Name() + "/cwd")
		if err != nil || (cwd != dir && !strings.HasPrefix(cwd, dir+"/")) {
			continue
		}
		cmdline, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		out = append(out, fmt.Sprintf("%d %s", pid, bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '})))
	}
	return out
}

// lockedServer is one server entry of agentgate.lock, as the spec
// (docs/spec/lockfile.md) defines it.
type lockedServer struct {
	SurfaceHash string            `json:"surfaceHash"`
	Tools       []json.RawMessage `json:"tools"`
}

func parseLock(t *testing.T, data []byte) map[string]lockedServer {
	t.Helper()
	var lf struct {
		Servers map[string]lockedServer `json:"servers"`
	}
	if err := json.Unmarshal(data, &lf); err != nil {
		t.Fatalf("agentgate.lock: %v\n%s", err, data)
	}
	return lf.Servers
}

// npmRepo commits, in a new repository, the three client configs naming
// the npm servers, clones it, and returns the clone. memory is configured
// twice, identically in two syntaxes, which makes one server.
func npmRepo(t *testing.T, npmBin string, httpPort, ssePort int) *testRepo {
	t.Helper()
	origin := newRepo(t, true, nil)
	origin.write(".mcp.json", `{"mcpServers": {
  "memory": {"command": "${NPM_BIN}/mcp-server-memory", "env": {"MEMORY_FILE_PATH": "${MEMORY_FILE}"}}
}}
`)
	origin.write(".vscode/mcp.json", fmt.Sprintf(`{
  // VS Code: JSONC, "servers", ${env:X} and ${workspaceFolder}.
  "servers": {
    "fs": {"type": "stdio", "command": "${env:NPM_BIN}/mcp-server-filesystem", "args": ["${workspaceFolder}/files"]},
    "memory": {"command": "${env:NPM_BIN}/mcp-server-memory", "env": {"MEMORY_FILE_PATH": "${env:MEMORY_FILE}"}},
    "everything-http": {"type": "http", "url": "http://127.0.0.1:%d/mcp"},
    "everything-sse": {"type": "sse", "url": "http://127.0.0.1:%d/sse"},
  },
}
`, httpPort, ssePort))
	origin.write(".codex/config.toml", fmt.Sprintf(`# Codex: stdio or streamable HTTP, no interpolation.
[mcp_servers.everything-stdio]
command = %q
args = ["stdio"]
`, filepath.Join(npmBin, "mcp-server-everything")))
	// Declare no client capabilities: every transport, and every client's
	// file, is listed the 13 tools server-everything's sources register
	// for such a client (by default each file's clients' capabilities are
	// declared, issue #25: TestGuardInspectorCapabilities).
	origin.write("agentgate.toml", "client-capabilities = []\n")
	origin.write("files/README", "server-filesystem serves this directory\n")
	origin.commitAll()

	clone := &testRepo{t: t, dir: filepath.Join(t.TempDir(), "clone"), env: map[string]string{}}
	origin.git("clone", "-q", origin.dir, clone.dir)
	clone.env["NPM_BIN"] = npmBin
	clone.env["MEMORY_FILE"] = filepath.Join(t.TempDir(), "memory.jsonl")
	return clone
}

func TestNPMThreeClientsOneLock(t *testing.T) {
	npmBin := filepath.Dir(testenv.NPMBin(t, "mcp-server-everything"))
	for _, b := range []string{"mcp-server-filesystem", "mcp-server-memory"} {
		testenv.NPMBin(t, b)
	}
	wantFS, wantMemory, wantEverything := npmToolCounts(t)
	httpPort := startEverything(t, filepath.Join(npmBin, "mcp-server-everything"), "streamableHttp")
	ssePort := startEverything(t, filepath.Join(npmBin, "mcp-server-everything"), "sse")
	r := npmRepo(t, npmBin, httpPort, ssePort)

	stdout, stderr := r.mustRun(ExitOK, "lock", "--timeout", "60s")
	if left := procsIn(r.dir); len(left) > 0 {
		t.Errorf("processes left running after lock:\n%s", strings.Join(left, "\n"))
	}
	total := wantFS + wantMemory + 3*wantEverything
	for _, w := range []string{
		fmt.Sprintf(`(?m)^locked\s+everything-http\s+%d tools\s+\S+s\s+new$`, wantEverything),
		fmt.Sprintf(`(?m)^locked\s+everything-sse\s+%d tools\s+\S+s\s+new$`, wantEverything),
		fmt.Sprintf(`(?m)^locked\s+everything-stdio\s+%d tools\s+\S+s\s+new$`, wantEverything),
		fmt.Sprintf(`(?m)^locked\s+fs\s+%d tools\s+\S+s\s+new$`, wantFS),
		fmt.Sprintf(`(?m)^locked\s+memory\s+%d tools\s+\S+s\s+new$`, wantMemory),
		fmt.Sprintf(`(?m)^agentgate: wrote agentgate.lock \(5 servers, %d tools\)$`, total),
	} {
		if !regexp.MustCompile(w).MatchString(stdout) {
			t.Errorf("stdout does not match %s:\n%s\nstderr:\n%s", w, stdout, stderr)
		}
	}
	first := r.read("agentgate.lock")
	servers := parseLock(t, first)
	if got := slices.Sorted(maps.Keys(servers)); !slices.Equal(got, []string{"everything-http", "everything-sse", "everything-stdio", "fs", "memory"}) {
		t.Fatalf("agentgate.lock locks %q", got)
	}
	for name, want := range map[string]int{"fs": wantFS, "memory": wantMemory, "everything-stdio": wantEverything,
		"everything-http": wantEverything, "everything-sse": wantEverything} {
		if n := len(servers[name].Tools); n != want {
			t.Errorf("agentgate.lock: %s has %d tools, its sources register %d", name, n, want)
		}
	}
	// The three transports of one server: the same surface, tool for tool.
	stdio := servers["everything-stdio"]
	if !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(stdio.SurfaceHash) {
		t.Errorf("everything-stdio: surfaceHash %q", stdio.SurfaceHash)
	}
	for _, name := range []string{"everything-http", "everything-sse"} {
		if servers[name].SurfaceHash != stdio.SurfaceHash {
			t.Errorf("%s: surfaceHash %s, everything-stdio %s", name, servers[name].SurfaceHash, stdio.SurfaceHash)
		}
		if !slices.EqualFunc(servers[name].Tools, stdio.Tools, func(a, b json.RawMessage) bool { return bytes.Equal(a, b) }) {
			t.Errorf("%s: tool lines differ from everything-stdio's:\n%s\n%s", name, servers[name].Tools, stdio.Tools)
		}
	}

	// A second run agrees byte for byte and rewrites nothing.
	stdout, _ = r.mustRun(ExitOK, "lock", "--timeout", "60s")
	if again := r.read("agentgate.lock"); !bytes.Equal(again, first) {
		t.Errorf("a second lock changed agentgate.lock:\n%s\nwas:\n%s", again, first)
	}
	if !strings.Contains(stdout, "agentgate: agentgate.lock is up to date (5 servers,") {
		t.Errorf("second lock: %s", stdout)
	}
	r.commitAll()
	stdout, _ = r.mustRun(ExitOK, "ci", "--timeout", "60s")
	if want := fmt.Sprintf("agentgate: ci ok: 5 servers, %d tools in sync with agentgate.lock", total); !strings.Contains(stdout, want) {
		t.Errorf("ci: want %q in:\n%s", want, stdout)
	}

	// A server that hangs before initialize, configured next to the npm
	// servers: lock fails on it alone, within its timeout, exit 3; the
	// lockfile stays as it was and nothing agentgate started is left.
	log := filepath.Join(t.TempDir(), "fake.log")
	hang, err := json.Marshal(fakeArgs(log, "-tools", "notes.json", "-misbehave", "hang-init", "-fork-child"))
	if err != nil {
		t.Fatal(err)
	}
	r.write("notes.json", notesTools)
	r.write(".mcp.json", `{"mcpServers": {
  "memory": {"command": "${NPM_BIN}/mcp-server-memory", "env": {"MEMORY_FILE_PATH": "${MEMORY_FILE}"}},
  "hangs": `+string(hang)+`
}}
`)
	// Only the hanging server gets 2s (agentgate.toml's per-server
	// timeout); the npm server keeps the default, so a loaded machine cannot
	// make it time out too.
	r.write("agentgate.toml", "[servers.hangs]\ntimeout = \"2s\"\n")
	code, stdout, stderr := r.agentgate("lock")
	if code != ExitUnverified {
		t.Fatalf("lock with a hanging server: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, ExitUnverified, stdout, stderr)
	}
	for _, w := range []string{
		`agentgate: error: server "hangs" (.mcp.json:3): could not verify: initialize:`,
		"did not answer within 2s",
		"agentgate lock: error: agentgate.lock left unchanged: 1 of 6 servers could not be captured: hangs",
	} {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr does not contain %q:\n%s", w, stderr)
		}
	}
	if strings.Count(stderr, "agentgate: error: server ") != 1 {
		t.Errorf("only the hanging server may fail:\n%s", stderr)
	}
	if after := r.read("agentgate.lock"); !bytes.Equal(after, first) {
		t.Errorf("the failed lock changed agentgate.lock:\n%s", after)
	}
	assertAllGone(t, log, "lock", 2)
	if left := procsIn(r.dir); len(left) > 0 {
		t.Errorf("processes left running after the failed lock:\n%s", strings.Join(left, "\n"))
	}
}
