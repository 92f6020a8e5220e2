package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A few megabytes of "[" used to overflow the goroutine stack inside
// hujson and BurntSushi/toml (a fatal error that no recover catches).
// Every reader checks the depth before it recurses (issue #17 item 8).
func TestHostileDeepNesting(t *testing.T) {
	deep := strings.Repeat("[", 2<<20)
	for _, tc := range []struct{ client, file, data string }{
		{"claude-code", ".mcp.json", deep},
		{"vscode", ".vscode/mcp.json", `{"servers": ` + strings.Repeat(`{"a": `, 100000)},
		{"codex", ".codex/config.toml", "a = " + deep},
		{"codex", ".codex/config.toml", "a = " + strings.Repeat("{b = ", 100000)},
		{"continue", ".continue/mcpServers/a.yaml", "a: " + deep},
		{"continue", ".continue/mcpServers/a.yaml", strings.Repeat("- ", 100000) + "x"},
	} {
		_, err := parseFile(tc.client, tc.file, []byte(tc.data))
		var ce *Error
		if !errors.As(err, &ce) || ce.File != tc.file || ce.Line < 1 ||
			!strings.Contains(err.Error(), "nested") && !strings.Contains(err.Error(), "depth") {
			t.Errorf("%s: got %v, want a nesting error with a position", tc.file, err)
		}
	}
	_, err := ParseSettings(SettingsFile, []byte("a = "+deep))
	if err == nil || !strings.Contains(err.Error(), "nested more than 64 levels") {
		t.Errorf("agentgate.toml: got %v", err)
	}
	// Brackets inside strings and comments do not count.
	ok := `{"mcpServers": {"a": {"command": "x", "args": ["` + strings.Repeat("[", 500) + `"]}}} // ` + strings.Repeat("{", 500) + "\n"
	if _, err := parseFile("claude-code", ".mcp.json", []byte(ok)); err != nil {
		t.Errorf("brackets in strings and comments counted: %v", err)
	}
	okTOML := "[mcp_servers.a]\ncommand = \"" + strings.Repeat("[", 500) + "\" # " + strings.Repeat("[", 500) + "\nargs = ['''" + strings.Repeat("{", 500) + "''']\n"
	if _, err := parseFile("codex", ".codex/config.toml", []byte(okTOML)); err != nil {
		t.Errorf("brackets in TOML strings and comments counted: %v", err)
	}
}

const secretText = "eyJhbGciOiJSUzI1NiJ9.c2VjcmV0LXBheWxvYWQ.sig" // what a mounted token looks like

// An [[extra]] file outside the repository, or a committed symlink that
// leaves the work tree, must not make an offline run print the file's
// bytes (issue #17 item 2).
func TestHostileOutsideFilesAreNotQuoted(t *testing.T) {
	outside := t.TempDir()
	secret := filepath.Join(outside, "token")
	if err := os.WriteFile(secret, []byte(secretText+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	yamlSecret := filepath.Join(outside, "creds.yaml")
	if err := os.WriteFile(yamlSecret, []byte("mcpServers:\n  - name: "+secretText+"\n    type: "+secretText+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	t.Run("extra", func(t *testing.T) {
		root := t.TempDir()
		tomlSecret := filepath.Join(outside, "creds.toml")
		if err := os.WriteFile(tomlSecret, []byte("[mcp_servers."+secretText[:10]+"]\ncommand = 5\nkey = \""+secretText+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		write(t, root, SettingsFile, "[[extra]]\npath = \""+filepath.ToSlash(secret)+"\"\nformat = \"claude-code\"\n\n"+
			"[[extra]]\npath = \""+filepath.ToSlash(yamlSecret)+"\"\nformat = \"continue\"\n\n"+
			"[[extra]]\npath = \""+filepath.ToSlash(tomlSecret)+"\"\nformat = \"codex\"\n")
		_, err := Load(root)
		if err == nil {
			t.Fatal("Load accepted a token as a config")
		}
		msg := errorText(err) // messages and their hints
		for _, frag := range []string{secretText, secretText[:6], "eyJ", "c2Vj"} {
			if strings.Contains(msg, frag) {
				t.Fatalf("error quotes the outside file (%q):\n%s", frag, msg)
			}
		}
		for _, want := range []string{filepath.ToSlash(secret) + ":1:1: invalid JSON", filepath.ToSlash(yamlSecret) + ":3:11: invalid configuration",
			filepath.ToSlash(tomlSecret) + ":3:"} {
			if !strings.Contains(msg, want) {
				t.Errorf("missing %q in:\n%s", want, msg)
			}
		}
	})

	t.Run("symlink", func(t *testing.T) {
		root := t.TempDir()
		if err := os.Symlink(secret, filepath.Join(root, ".mcp.json")); err != nil {
			t.Skip("no symlinks here:", err)
		}
		if err := os.Symlink(outside, filepath.Join(root, ".cursor")); err != nil {
			t.Fatal(err)
		}
		write(t, outside, "mcp.json", `{"mcpServers": {"x": {"command": "`+secretText+`", "args": 5}}}`)
		_, err := Load(root)
		if err == nil {
			t.Fatal("Load followed a symlink out of the work tree")
		}
		msg := errorText(err) // messages and their hints
		if strings.Contains(msg, secretText[:6]) {
			t.Fatalf("error quotes the outside file:\n%s", msg)
		}
		for _, want := range []string{".mcp.json: is a symbolic link", ".cursor/mcp.json: is a symbolic link", `[[extra]] path = ".cursor/mcp.json", format = "cursor"`} {
			if !strings.Contains(msg, want) {
				t.Errorf("missing %q in:\n%s", want, msg)
			}
		}
		// Named explicitly in [[extra]], the link is read, and its errors
		// are opaque.
		write(t, root, SettingsFile, "ignore = [\".mcp.json\"]\n[[extra]]\npath = \".cursor/mcp.json\"\nformat = \"cursor\"\n")
		_, err = Load(root)
		if err == nil || !strings.Contains(err.Error(), ".cursor/mcp.json:1:") || strings.Contains(err.Error(), secretText[:6]) ||
			strings.Contains(err.Error(), `server "x"`) {
			t.Fatalf("got %v", err)
		}
		write(t, outside, "mcp.json", `{"mcpServers": {"x": {"command": "srv"}}}`)
		p, err := Load(root)
		if err != nil || len(p.Servers) != 1 || p.Servers[0].Command != "srv" {
			t.Fatalf("named link not read: %v %+v", err, p)
		}
	})
}

func write(t *testing.T, root, rel, data string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}
