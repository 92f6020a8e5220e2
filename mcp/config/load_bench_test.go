package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/internal/testing/archive"
)

// BenchmarkLoad reads a repository with five client configs (ten servers in
// .mcp.json, the same ten in .cursor/mcp.json and .vscode/mcp.json, three in
// Codex TOML and two in a Continue YAML block), as every commit hook does.
func BenchmarkLoad(b *testing.B) {
	root := b.TempDir()
	var js []string
	for i := range 10 {
		js = append(js, fmt.Sprintf(`"s%d": {"command": "npx", "args": ["-y", "@scope/server-%d", "--flag"], "env": {"TOKEN": "${env:T%d}"}}`, i, i, i))
	}
	body := "{\n" + strings.Join(js, ",\n") + "\n}"
	files := map[string]string{
		".mcp.json":                   `{"mcpServers": ` + strings.ReplaceAll(body, "${env:", "${") + `}`,
		".cursor/mcp.json":            `{"mcpServers": ` + body + `}`,
		".vscode/mcp.json":            `{"servers": ` + body + `}`,
		".codex/config.toml":          "[mcp_servers.c1]\ncommand = \"x\"\n[mcp_servers.c2]\ncommand = \"y\"\nargs = [\"a\"]\n[mcp_servers.c3]\nurl = \"https://example.com/mcp\"\n",
		".continue/mcpServers/a.yaml": "mcpServers:\n  - name: y1\n    command: a\n  - name: y2\n    url: https://example.com/y\n",
	}
	for rel, data := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		p, err := Load(root)
		if err != nil || len(p.Servers) != 15 {
			b.Fatalf("%v %d", err, len(p.Servers))
		}
	}
}

// BenchmarkParseTOML reads the largest Codex config of the corpus (330
// lines, mostly comments) into a tree with positions.
func BenchmarkParseTOML(b *testing.B) {
	a, err := archive.Read("testdata/corpus/codex-memvid-sdk.txtar")
	if err != nil {
		b.Fatal(err)
	}
	var data []byte
	for _, f := range a.Files {
		if strings.HasSuffix(f.Name, ".toml") {
			data = f.Data
		}
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := parseTOML("config.toml", data); err != nil {
			b.Fatal(err)
		}
	}
}
