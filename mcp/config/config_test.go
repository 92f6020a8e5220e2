package config

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/mcp/config/syntax"
)

func TestFindRoot(t *testing.T) {
	base := t.TempDir()
	repo := filepath.Join(base, "repo")
	deep := filepath.Join(repo, "a", "b")
	wt := filepath.Join(base, "worktree")
	wtDeep := filepath.Join(wt, "x")
	plain := filepath.Join(base, "plain", "dir")
	for _, d := range []string{filepath.Join(repo, ".git"), deep, wtDeep, plain} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// A worktree's .git is a file.
	if err := os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: /elsewhere\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A .git link leading nowhere is no .git (internal/reporoot's rule,
	// gitint's): the walk goes on up to repo.
	if err := os.Symlink(filepath.Join(base, "missing"), filepath.Join(deep, ".git")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ dir, want string }{
		{repo, repo},
		{deep, repo},
		{wtDeep, wt},
		{plain, plain},
	} {
		got, err := FindRoot(tc.dir)
		if err != nil || got != tc.want {
			t.Errorf("FindRoot(%s) = %q, %v; want %q", tc.dir, got, err, tc.want)
		}
	}
	if _, err := FindRoot(filepath.Join(base, "missing")); err == nil {
		t.Error("FindRoot of a missing directory: no error")
	}
}

func TestIsConfigPath(t *testing.T) {
	for _, tc := range []struct {
		path string
		want bool
	}{
		{".mcp.json", true},
		{"./.mcp.json", true},
		{".cursor/mcp.json", true},
		{".vscode/mcp.json", true},
		{".codex/config.toml", true},
		{".gemini/settings.json", true},
		{".qwen/settings.json", true},
		{".github/mcp.json", true},
		{".github/workflows/ci.yml", false},
		{".zed/settings.json", true},
		{".roo/mcp.json", true},
		{".kiro/settings/mcp.json", true},
		{".amazonq/mcp.json", true},
		{".junie/mcp/mcp.json", true},
		{"opencode.json", true},
		{"opencode.jsonc", true},
		{".continue/mcpServers/a.yaml", true},
		{".continue/mcpServers/b.yml", true},
		{".continue/mcpServers/c.json", true},
		{"agentgate.toml", true},
		{".continue/mcpServers/sub/a.yaml", false},
		{".continue/mcpServers/readme.md", false},
		{"sub/.mcp.json", false},
		{"agentgate.lock", false},
		{".vscode/settings.json", false},
		{"mcp.json", false},
	} {
		if got := IsConfigPath(tc.path); got != tc.want {
			t.Errorf("IsConfigPath(%q) = %v, want %v", tc.path, got, tc.want)
		}
	}
	// Every glob names config paths, and ConfigGlobs covers every default file.
	for _, g := range ConfigGlobs() {
		if !IsConfigPath(strings.ReplaceAll(g, "*", "x")) {
			t.Errorf("ConfigGlobs entry %q is not a config path", g)
		}
	}
	if n := len(ConfigGlobs()); n != len(projectFiles)+len(continueExts)+1 {
		t.Errorf("ConfigGlobs has %d entries", n)
	}
	p := &Project{Settings: Settings{
		Ignore: []string{".cursor/*"},
		Extra:  []ExtraFile{{Path: "./configs/desktop.json", Format: "claude-desktop"}},
	}}
	for path, want := range map[string]bool{
		".cursor/mcp.json":     false,
		"configs/desktop.json": true,
		".mcp.json":            true,
		"agentgate.toml":       true,
		"configs/other.json":   false,
	} {
		if got := p.IsConfigPath(path); got != want {
			t.Errorf("Project.IsConfigPath(%q) = %v, want %v", path, got, want)
		}
	}
}

func TestErrorFormat(t *testing.T) {
	for _, tc := range []struct {
		e    Error
		want string
	}{
		{Error{File: "a.json", Line: 3, Column: 7, Server: "s", Field: "args[1]", Msg: "bad", Hint: "fix it"},
			"a.json:3:7: server \"s\": args[1]: bad"},
		{Error{File: "a.json", Line: 3, Msg: "bad"}, "a.json:3: bad"},
		{Error{File: "a.json", Column: 9, Msg: "bad"}, "a.json: bad"},
		{Error{Msg: "bad"}, "bad"},
	} {
		if got := tc.e.Error(); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
	// The hint is a value of its own, not text in the message.
	e := &Error{Msg: "bad", Hint: "fix it"}
	if h := e.Hints(); len(h) != 1 || h[0] != "fix it" {
		t.Errorf("Hints() = %q", h)
	}
	if h := (&Error{Msg: "bad"}).Hints(); h != nil {
		t.Errorf("no hint: Hints() = %q", h)
	}
}

func TestRedact(t *testing.T) {
	r := Resolved{Secrets: []string{"abc", "token-1", "token-123", `q"uote`, "a b&c"}}
	for _, tc := range []struct{ in, want string }{
		{"x token-123 y", "x [redacted] y"}, // longest first: no "[redacted]23"
		{"token-1 token-12", "[redacted] [redacted]2"},
		{"abc stays: too short", "abc stays: too short"},
		{`{"v":"q\"uote"}`, `{"v":"[redacted]"}`}, // JSON-escaped form
		{"?k=a+b%26c", "?k=[redacted]"},           // query-escaped form
		{"/a%20b&c/", "/[redacted]/"},             // path-escaped form
	} {
		if got := r.Redact(tc.in); got != tc.want {
			t.Errorf("Redact(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := (Resolved{}).Redact("same"); got != "same" {
		t.Errorf("no secrets: %q", got)
	}
}

func TestStripURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://u:p@h.example/x?k=v#f": "https://h.example/x",
		"https://h.example":             "https://h.example",
		"https://${U}@${HOST}/p?q=1":    "https://${HOST}/p",
		"h.example/a@b":                 "h.example/a@b",
		"https://a@b@c/d":               "https://c/d",
	} {
		if got := stripURL(in); got != want {
			t.Errorf("stripURL(%q) = %q, want %q", in, got, want)
		}
	}
}

// A secret that reaches a Resolve error's template or Describe never shows.
func TestSecretNeverShown(t *testing.T) {
	const secret = "s3cr3t-value-never-shown"
	p := &Project{Root: t.TempDir()}
	s := Server{Name: "x", File: ".mcp.json", Line: 1, Transport: StreamableHTTP, Syntax: syntax.Claude,
		URL: "https://${U}@h.example/${SEG}?t=${T}", Headers: map[string]string{"A": "${T}", "B": "${MISSING}"}}
	env := map[string]string{"U": secret, "T": secret, "SEG": secret}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	_, err := p.Resolve(s, lookup)
	var ce *Error
	if !errors.As(err, &ce) || !ce.Unverifiable || ce.Field != "headers.B" || !strings.Contains(err.Error(), "${MISSING}") {
		t.Fatalf("want unverifiable error for headers.B naming ${MISSING}, got %v", err)
	}
	if strings.Contains(errorText(err), secret) {
		t.Errorf("error shows the secret: %v", err)
	}
	delete(s.Headers, "B")
	r, err := p.Resolve(s, lookup)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(r.Secrets, secret) {
		t.Errorf("secret not in Secrets: %q", r.Secrets)
	}
	if d := r.Describe(); strings.Contains(d, secret) || !strings.Contains(d, "h.example") {
		t.Errorf("Describe = %q", d)
	}
	if got := r.Redact("GET " + r.URL); strings.Contains(got, secret) {
		t.Errorf("Redact(url) = %q", got)
	}
}

func TestLoadErrors(t *testing.T) {
	if _, err := Load(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("Load of a missing root: no error")
	}
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".mcp.json"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := Load(root)
	var ce *Error
	if !errors.As(err, &ce) || ce.File != ".mcp.json" {
		t.Errorf("directory named .mcp.json: %v", err)
	}
}

// A Server built by hand (no Syntax, no Transport) has no variables.
func TestResolveZeroSyntax(t *testing.T) {
	p := &Project{Root: t.TempDir()}
	r, err := p.Resolve(Server{Name: "x", Command: "srv", Args: []string{"${A}"}}, func(string) (string, bool) { return "", false })
	if err != nil || r.Args[0] != "${A}" || r.Cwd != p.Root {
		t.Fatalf("got %+v, %v", r, err)
	}
	if d := r.Describe(); d != "stdio: srv '${A}' [cwd: "+syntax.ShellQuote(p.Root)+"]" {
		t.Errorf("Describe = %q", d)
	}
}
