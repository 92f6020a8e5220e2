package render

import (
	"bytes"
	"strings"
	"testing"
)

func TestLockfileLine(t *testing.T) {
	canonical := lockText(map[string][]string{
		"everything": {"echo", "add"},
		"fs":         {"read_file", "write_file"},
	}, fakeHash)
	lineOf := func(text, needle string, nth int) int {
		ls := strings.Split(text, "\n")
		for i, l := range ls {
			if strings.Contains(l, needle) {
				if nth == 0 {
					return i + 1
				}
				nth--
			}
		}
		return 0
	}
	// Hand-written, non-canonical layout with escapes and a "name" member
	// elsewhere that must not be mistaken for a tool.
	odd := "{\"servers\":{\n\"a\\u0062\": {\"tools\": [\n{\"nameHash\":\"x\",\n  \"name\" : \"t\\u00e9\"}],\n\"name\":\"fake\"},\n\"other\":{\"tools\":[{\"name\":\"fake\"}]}},\n\"lockfileVersion\":1}"
	tests := []struct {
		text, server, tool string
		want               int
	}{
		{canonical, "everything", "", lineOf(canonical, `"everything": {`, 0)},
		{canonical, "fs", "", lineOf(canonical, `"fs": {`, 0)},
		{canonical, "everything", "add", lineOf(canonical, `"name": "add"`, 0)},
		{canonical, "fs", "write_file", lineOf(canonical, `"name": "write_file"`, 0)},
		{canonical, "fs", "echo", 0},
		{canonical, "nope", "", 0},
		{odd, "ab", "", 2},
		{odd, "ab", "té", 4},
		{odd, "ab", "fake", 0},
		{odd, "other", "fake", 6},
		{"not json", "fs", "", 0},
		{`{"servers":{"fs":{"tools":[{"name":"x"`, "fs", "y", 0},
	}
	for _, tt := range tests {
		if tt.want == 0 && tt.text == canonical && tt.server != "nope" && tt.tool != "echo" {
			t.Fatalf("bad test: needle not found for %s/%s", tt.server, tt.tool)
		}
		if got := LockfileLine([]byte(tt.text), tt.server, tt.tool); got != tt.want {
			t.Errorf("LockfileLine(%.30q..., %q, %q) = %d, want %d", tt.text, tt.server, tt.tool, got, tt.want)
		}
	}
}

func FuzzLockfileLine(f *testing.F) {
	f.Add([]byte(lockText(map[string][]string{"fs": {"a", "b"}}, fakeHash)), "fs", "b")
	f.Add([]byte(`{"servers":{"fs":{"tools":[{"name":"a"}]}}}`), "fs", "")
	f.Add([]byte(`{"servers":[]}`), "fs", "a")
	f.Fuzz(func(t *testing.T, data []byte, server, tool string) {
		n := LockfileLine(data, server, tool)
		if n < 0 || n > bytes.Count(data, []byte("\n"))+1 {
			t.Fatalf("line %d outside the file", n)
		}
	})
}
