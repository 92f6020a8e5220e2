package config

import (
	"errors"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/mcp/config/syntax"
)

// revFiles is a revision's file set for LoadAt.
func revFiles(files map[string]string) func(string) ([]byte, bool, error) {
	return func(p string) ([]byte, bool, error) {
		if p == "boom" {
			return nil, false, errors.New("object missing")
		}
		s, ok := files[p]
		return []byte(s), ok, nil
	}
}

func TestLoadAt(t *testing.T) {
	files := map[string]string{
		".mcp.json":                    `{"mcpServers": {"a": {"command": "npx", "args": ["-y", "pkg@1"], "env": {"K": "${TOKEN}"}}}}`,
		".vscode/mcp.json":             `{"servers": {"v": {"type": "http", "url": "https://x.example/mcp", "headers": {"Authorization": "Bearer ${env:TOKEN}"}}}}`,
		".continue/mcpServers/c.yaml":  "mcpServers:\n  - name: c\n    command: ./run.sh\n",
		"agentgate.toml":               "[[extra]]\npath = \"tools/mcp.json\"\nformat = \"claude-code\"\n",
		"tools/mcp.json":               `{"mcpServers": {"e": {"command": "e"}}}`,
		"../outside/.mcp.json":         `{"mcpServers": {"o": {"command": "o"}}}`,
		".continue/mcpServers/no.yaml": "mcpServers:\n  - name: hidden\n    command: h\n",
	}
	p, err := LoadAt([]string{".continue/mcpServers/c.yaml", "../outside/.mcp.json"}, revFiles(files))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range p.Servers {
		names = append(names, s.Name)
	}
	// "hidden" is in a file nobody listed: read cannot list directories.
	if got := strings.Join(names, " "); got != "a c e v" || p.Root != "" {
		t.Fatalf("servers %q, root %q", got, p.Root)
	}
	if _, err := LoadAt([]string{"boom"}, revFiles(files)); err == nil {
		t.Error("a read error was ignored")
	}
	if _, err := LoadAt(nil, revFiles(map[string]string{".mcp.json": `{"mcpServers": {`})); err == nil {
		t.Error("a config that does not parse at the revision loaded")
	} else if ce := (*Error)(nil); !errors.As(err, &ce) || ce.File != ".mcp.json" || ce.Line < 1 {
		t.Errorf("error without file and position: %v", err)
	}
}

func TestDefinitionDiff(t *testing.T) {
	base := Server{Name: "a", File: ".mcp.json", Line: 3, Transport: Stdio, Command: "npx", Args: []string{"-y", "pkg@1"},
		Env: map[string]string{"K": "${TOKEN}"}, Syntax: syntax.Claude}
	for _, tc := range []struct {
		name string
		edit func(s *Server)
		want string
	}{
		{"same", func(s *Server) {}, ""},
		{"other file and line", func(s *Server) { s.File, s.Line, s.Name = ".cursor/mcp.json", 9, "b" }, ""},
		{"same reference in another syntax", func(s *Server) { s.Syntax, s.Env = syntax.Cursor, map[string]string{"K": "${env:TOKEN}"} }, ""},
		{"command", func(s *Server) { s.Command = "sh" }, "command"},
		{"args", func(s *Server) { s.Args = []string{"-y", "pkg@2"} }, "args"},
		{"extra arg", func(s *Server) { s.Args = append(s.Args, "--evil") }, "args"},
		{"env literal instead of reference", func(s *Server) { s.Env = map[string]string{"K": "TOKEN"} }, "env"},
		{"env added", func(s *Server) { s.Env = map[string]string{"K": "${TOKEN}", "NODE_OPTIONS": "--require ./x.js"} }, "env"},
		{"cwd", func(s *Server) { s.Cwd = "sub" }, "cwd"},
		{"transport", func(s *Server) { s.Transport, s.URL = StreamableHTTP, "https://x.example" }, "transport"},
		{"sse fallback", func(s *Server) { s.FallbackSSE = true }, "transport"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := base
			b.Args = append([]string(nil), base.Args...)
			tc.edit(&b)
			if got := DefinitionDiff(base, b); got != tc.want {
				t.Errorf("DefinitionDiff = %q, want %q", got, tc.want)
			}
		})
	}
}
