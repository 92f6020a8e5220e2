package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/tailscale/hujson"
)

// checkParse runs one parser on fuzzed input: it must not panic, every
// error must be an *Error with a file and a line, and every server it
// returns must survive identity, Describe and Resolve.
func checkParse(t *testing.T, client, file string, data []byte) {
	res, err := parseFile(client, file, data)
	if err != nil {
		var ce *Error
		if !errors.As(err, &ce) || ce.File != file || ce.Line < 1 {
			t.Fatalf("%s: error without position: %#v", client, err)
		}
		return
	}
	p := &Project{Root: "/repo"}
	lookup := func(k string) (string, bool) { return "value-of-" + k, len(k)%2 == 0 }
	for _, s := range res.servers {
		if s.File != file || s.Line < 1 {
			t.Fatalf("%s: server %q without position", client, s.Name)
		}
		_ = differ(s, s)
		_ = s.Describe()
		if r, err := p.Resolve(s, lookup); err == nil {
			_ = r.Describe()
		}
	}
}

var jsonFormats = []string{"claude-code", "claude-desktop", "cursor", "vscode", "gemini", "zed", "roo", "kiro",
	"amazonq", "junie", "opencode", "windsurf", "cline", "continue"}

func FuzzParseJSONC(f *testing.F) {
	f.Add([]byte(`{"mcpServers": {"a": {"command": "x", /* c */ "args": ["${A}",],},}}`))
	f.Add([]byte(`{"mcpServers": {"s": {"command": "python3", "command": "evil-cmd"}}}`))
	f.Add([]byte(`[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[`))
	// opencode's V2 shapes and VS Code's reading of .mcp.json (issue #16).
	f.Add([]byte(`{"mcp": {"a": {"type": "local", "command": ["x"], "disabled": true}, "t": {"enabled": false}, "timeout": {"catalog": 1}, "servers": {"b": {"type": "remote", "url": "https://x", "disabled": false}, "a": {"type": "local", "command": ["y"]}}}}`))
	f.Add([]byte(`{"mcpServers": {"r": {"type": "http", "url": "https://${H}/mcp", "headers": {"A": "${T}"}}, "s": {"command": "${C}", "args": ["${A:-1}"], "env": {"E": "${E}"}}}}`))
	corpusSeeds(f, func(c string) bool { return c != "codex" })
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, c := range jsonFormats {
			checkParse(t, c, "f.json", data)
		}
		checkParse(t, "claude-code", dotMcpFile, data) // with VS Code's notes
	})
}

func FuzzCodexTOML(f *testing.F) {
	f.Add([]byte("[mcp_servers.a]\ncommand = \"x\"\nargs = [\"y\"]\n"))
	f.Add([]byte("[mcp_servers.a]\ncommand = \"x\"\ncommand = \"y\"\n"))
	corpusSeeds(f, func(c string) bool { return c == "codex" })
	f.Fuzz(func(t *testing.T, data []byte) {
		checkParse(t, "codex", ".codex/config.toml", data)
	})
}

func FuzzContinueYAML(f *testing.F) {
	f.Add([]byte("mcpServers:\n  - name: a\n    command: x\n"))
	f.Add([]byte("b: &b\n  command: x\nmcpServers:\n  - name: a\n    <<: *b\n    command: y\n    command: z\n"))
	corpusSeeds(f, func(c string) bool { return c == "continue" })
	f.Fuzz(func(t *testing.T, data []byte) {
		checkParse(t, "continue", ".continue/mcpServers/a.yaml", data)
	})
}

func FuzzSettings(f *testing.F) {
	f.Add([]byte("timeout = \"30s\"\n[servers.a]\nexclude = \"why\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := ParseSettings(SettingsFile, data)
		if err != nil {
			var ce *Error
			if !errors.As(err, &ce) || ce.File != SettingsFile || ce.Line < 1 {
				t.Fatalf("error without position: %#v", err)
			}
		}
	})
}

// FuzzDuplicateMembers checks parseJSONC against an independent reader: a
// document that encoding/json's token stream shows to repeat a member name
// in some object (after hujson removes comments and trailing commas) must
// be refused, and one that does not must not be refused for that reason.
func FuzzDuplicateMembers(f *testing.F) {
	f.Add([]byte(`{"a": 1, "a": 2}`))
	f.Add([]byte(`{"a": {"b": 1}, "c": {"b": 2}}`))
	f.Add([]byte(`{"s": {"command": "python3", /* x */ "command": "evil"},}`))
	f.Add([]byte(`[{"k": 1}, {"k": 1}]`))
	corpusSeeds(f, func(c string) bool { return c != "codex" && c != "continue" })
	f.Fuzz(func(t *testing.T, data []byte) {
		std, err := hujson.Standardize(bytes.Clone(data))
		if err != nil || checkJSONDepth("f.json", data) != nil {
			return
		}
		want, ok := repeatsMember(std)
		if !ok {
			return
		}
		_, perr := parseJSONC("f.json", data)
		got := perr != nil && strings.Contains(perr.Error(), "appears twice")
		if got != want {
			t.Fatalf("repeated member: reader says %v, parseJSONC says %v (%v)", want, got, perr)
		}
	})
}

// repeatsMember walks a standard JSON text with encoding/json's tokenizer
// and reports whether an object repeats a member name; ok is false when the
// text is not one valid JSON value.
func repeatsMember(data []byte) (repeats, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	type frame struct {
		obj     bool
		keys    map[string]bool
		wantKey bool
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return repeats, len(stack) == 0
		}
		if err != nil {
			return false, false
		}
		top := func() *frame {
			if len(stack) == 0 {
				return nil
			}
			return stack[len(stack)-1]
		}()
		if top != nil && top.obj && top.wantKey {
			if d, isDelim := tok.(json.Delim); isDelim && d == '}' {
				stack = stack[:len(stack)-1]
				if p := peek(stack); p != nil && p.obj {
					p.wantKey = true
				}
				continue
			}
			k := tok.(string)
			if top.keys[k] {
				repeats = true
			}
			top.keys[k] = true
			top.wantKey = false
			continue
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{obj: true, keys: map[string]bool{}, wantKey: true})
			continue
		case json.Delim('['):
			stack = append(stack, &frame{})
			continue
		case json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		if p := peek(stack); p != nil && p.obj {
			p.wantKey = true
		}
	}
}

func peek[T any](s []*T) *T {
	if len(s) == 0 {
		return nil
	}
	return s[len(s)-1]
}
