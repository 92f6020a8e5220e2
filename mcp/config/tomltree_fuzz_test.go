package config

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/agentgate/agentgate/internal/testing/archive"
	"github.com/agentgate/agentgate/mcp/config/syntax"
)

func tomlSeeds(f *testing.F) {
	for _, pat := range []string{"testdata/*/*.txtar", "../configedit/testdata/*/*.txtar"} {
		files, _ := filepath.Glob(pat)
		for _, file := range files {
			a, err := archive.Read(file)
			if err != nil {
				continue
			}
			for _, af := range a.Files {
				if strings.HasSuffix(af.Name, ".toml") {
					f.Add(af.Data)
				}
			}
		}
	}
	for _, pat := range []string{"testdata/fuzz/FuzzCodexTOML/*", "testdata/fuzz/FuzzSettings/*", "../configedit/testdata/fuzz/FuzzEditRoundTrip/*"} {
		files, _ := filepath.Glob(pat)
		for _, file := range files {
			b, _ := os.ReadFile(file)
			for _, line := range strings.Split(string(b), "\n") {
				if s, ok := strings.CutPrefix(line, "[]byte("); ok {
					if v, err := strconv.Unquote(strings.TrimSuffix(s, ")")); err == nil {
						f.Add([]byte(v))
					}
				}
			}
		}
	}
	f.Add([]byte("a = [\n[1]]\nb = 1\n"))
	f.Add([]byte("a = \"'''\"\nb = 1\n"))
	f.Add([]byte(strings.Repeat("[", 70)))
	f.Add([]byte("a = " + strings.Repeat("[{b=", 33) + strings.Repeat("}]", 33)))
}

// FuzzTOMLPositions: on any TOML the decoder accepts, every key path
// tomlPositions places is one the document defines, placed where that
// key (or its table header) is written; and a document it finds nested
// too deeply is one the decoder reads as that deep. Seeded with every
// TOML file of the config and editor goldens.
func FuzzTOMLPositions(f *testing.F) {
	tomlSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		locs, deep := tomlPositions(data)
		var m map[string]any
		if _, err := toml.Decode(string(data), &m); err != nil {
			return
		}
		if deep >= 0 {
			if d := tomlNesting(m); d <= maxDepth {
				t.Fatalf("too deep at %d, but the document nests %d levels", deep, d)
			}
			return
		}
		lines := strings.Split(string(data), "\n")
		for k, p := range locs {
			path := strings.Split(k, "\x00")
			if !tomlHas(m, path) {
				t.Fatalf("%q is placed at %v but not in the document", k, p)
			}
			text := lines[p.line-1][p.col-1:]
			if text[0] == '[' {
				continue
			}
			keys, _, ok := syntax.ParseTOMLKey(text)
			if !ok || len(keys) > len(path) || !slices.Equal(keys, path[len(path)-len(keys):]) {
				t.Fatalf("%q is placed at %v, on %q", k, p, text)
			}
		}
	})
}

// tomlNesting is how many levels of tables and arrays v nests.
func tomlNesting(v any) int {
	d := 0
	switch t := v.(type) {
	case map[string]any:
		for _, c := range t {
			d = max(d, tomlNesting(c))
		}
	case []map[string]any:
		for _, c := range t {
			d = max(d, tomlNesting(c))
		}
	case []any:
		for _, c := range t {
			d = max(d, tomlNesting(c))
		}
	default:
		return 0
	}
	return d + 1
}

func tomlHas(v any, path []string) bool {
	if len(path) == 0 {
		return true
	}
	switch t := v.(type) {
	case map[string]any:
		c, ok := t[path[0]]
		return ok && tomlHas(c, path[1:])
	case []map[string]any:
		for _, e := range t {
			if tomlHas(e, path) {
				return true
			}
		}
	case []any:
		for _, e := range t {
			if tomlHas(e, path) {
				return true
			}
		}
	}
	return false
}

// TestTOMLPositionsAfterHexEscape: a value with TOML 1.1's \xHH escape is
// skipped whole, so the key on the next line keeps its position.
func TestTOMLPositionsAfterHexEscape(t *testing.T) {
	locs, deep := tomlPositions([]byte("[mcp_servers.a]\nenv = { X = \"\\x41\" }\n  command = \"npx\"\n"))
	if got, want := locs["mcp_servers\x00a\x00command"], (pos{3, 3}); deep >= 0 || got != want {
		t.Fatalf("command at %v (deep %d), want %v", got, deep, want)
	}
}
