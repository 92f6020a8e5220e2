package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/internal/testing/testenv"
	"github.com/agentgate/agentgate/lock"
)

// TestNPMEverythingV2: the real server-everything, locked as version 2
// over stdio, streamable HTTP and SSE (resources too, as agentgate.toml
// asks): its prompts, resource templates, resources and instructions are
// pinned, as many as its sources register, with the instructions hash
// being the sha256 of the instructions file it serves; each remote
// transport gives the hashes stdio gives, entry for entry; diff then
// finds it in sync.
func TestNPMEverythingV2(t *testing.T) {
	bin := testenv.NPMBin(t, "mcp-server-everything")
	dist := filepath.Join(testenv.RepoRoot(t), "testdata/npm/node_modules/@modelcontextprotocol/server-everything/dist")
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dist, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	wantPrompts := len(regexp.MustCompile(`(?m)^\s+register\w*Prompt\w*\(server\);`).FindAllString(read("prompts/index.js"), -1))
	wantTemplates := strings.Count(read("resources/templates.js"), "new ResourceTemplate(")
	docs, err := os.ReadDir(filepath.Join(dist, "docs"))
	if err != nil {
		t.Fatal(err)
	}
	wantResources := len(docs)
	sum := sha256.Sum256([]byte(read("docs/instructions.md")))
	wantInstructions := hex.EncodeToString(sum[:])
	if wantPrompts == 0 || wantTemplates == 0 || wantResources == 0 {
		t.Fatalf("cannot count server-everything's prompts (%d), templates (%d), docs (%d): did its layout change?", wantPrompts, wantTemplates, wantResources)
	}

	port := startEverything(t, bin, "streamableHttp")
	ssePort := startEverything(t, bin, "sse")
	r := newRepo(t, true, nil)
	r.write(".vscode/mcp.json", fmt.Sprintf(`{"servers": {
  "everything-stdio": {"type": "stdio", "command": %q, "args": ["stdio"]},
  "everything-http": {"type": "http", "url": "http://127.0.0.1:%d/mcp"},
  "everything-sse": {"type": "sse", "url": "http://127.0.0.1:%d/sse"}
}}
`, bin, port, ssePort))
	r.write("agentgate.toml", "[servers.everything-stdio]\nresources = true\n\n[servers.everything-http]\nresources = true\n\n[servers.everything-sse]\nresources = true\n")
	r.mustRun(ExitOK, "lock", "--lockfile-version", "2", "--timeout", "60s")
	data := r.read("agentgate.lock")
	l, err := lock.Parse(data)
	if err != nil || l.LockfileVersion != 2 {
		t.Fatalf("agentgate.lock: %v", err)
	}
	stdio := l.Servers["everything-stdio"]
	if len(stdio.Prompts) != wantPrompts || len(stdio.ResourceTemplates) != wantTemplates || len(stdio.Resources) != wantResources {
		t.Errorf("everything-stdio: %d prompts, %d templates, %d resources; its sources register %d, %d, %d",
			len(stdio.Prompts), len(stdio.ResourceTemplates), len(stdio.Resources), wantPrompts, wantTemplates, wantResources)
	}
	if stdio.InstructionsHash == nil || *stdio.InstructionsHash != wantInstructions {
		t.Errorf("everything-stdio: instructionsHash %v, want sha256 of docs/instructions.md %s", stdio.InstructionsHash, wantInstructions)
	}
	for _, name := range []string{"everything-http", "everything-sse"} {
		remote, ok := l.Servers[name]
		if !ok {
			t.Errorf("%s is not in agentgate.lock", name)
			continue
		}
		if stdio.ToolsSetHash != remote.ToolsSetHash || stdio.PromptsSetHash != remote.PromptsSetHash ||
			stdio.InstructionsHash == nil || remote.InstructionsHash == nil || *stdio.InstructionsHash != *remote.InstructionsHash ||
			!slices.Equal(stdio.Tools, remote.Tools) || !slices.Equal(stdio.Prompts, remote.Prompts) ||
			!slices.Equal(stdio.ResourceTemplates, remote.ResourceTemplates) || !slices.Equal(stdio.Resources, remote.Resources) {
			t.Errorf("stdio and %s differ:\nstdio %+v\n%s %+v", name, stdio.ServerV2Fields, name, remote.ServerV2Fields)
		}
	}
	r.commitAll()
	r.mustRun(ExitOK, "diff", "--timeout", "60s")
	out, _ := r.mustRun(ExitOK, "lock", "--timeout", "60s")
	if !strings.Contains(out, "is up to date") {
		t.Errorf("a second lock is not up to date:\n%s", out)
	}
}
