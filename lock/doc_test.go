package lock

import (
	"bytes"
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestSpecDocument checks docs/spec/lockfile.md against the code: every
// `printf '%s' '...' | sha256sum` line must be followed by the true SHA-256
// of that literal; the canonical JSON examples must be what Canonicalize
// produces; and the worked example's tools/list result, locked with
// BuildServer and written with Format, must give exactly the example file at
// the top of the page, whose every hash must be one of the printf results.
func TestSpecDocument(t *testing.T) {
	raw, err := os.ReadFile("../docs/spec/lockfile.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)

	// 1. printf lines and their outputs.
	printf := regexp.MustCompile(`(?m)^\$ printf '%s' '([^']*)' \| sha256sum\n([0-9a-f]{64})  -$`)
	verified := map[string]bool{}
	for _, m := range printf.FindAllStringSubmatch(doc, -1) {
		if got := sha(m[1]); got != m[2] {
			t.Errorf("doc says sha256(%q) = %s, it is %s", m[1], m[2], got)
		}
		verified[m[2]] = true
	}
	if len(verified) < 8 {
		t.Fatalf("found %d printf examples in the doc, want at least 8", len(verified))
	}

	// 2. Canonical JSON examples: blank-line separated pairs, last line is
	// the canonical form of the lines before it.
	block := codeBlockAfter(t, doc, "Examples (input, then canonical form):")
	pairs := strings.Split(block, "\n\n")
	if len(pairs) < 2 {
		t.Fatalf("canonical examples: found %d", len(pairs))
	}
	for _, p := range pairs {
		lines := strings.Split(strings.TrimSpace(p), "\n")
		in, want := strings.Join(lines[:len(lines)-1], "\n"), lines[len(lines)-1]
		got, err := Canonicalize([]byte(in))
		if err != nil || string(got) != want {
			t.Errorf("doc example: Canonicalize(%q) = %q, %v; doc says %q", in, got, err, want)
		}
	}

	// 3. The worked example, end to end.
	var list struct{ Tools []json.RawMessage }
	if err := json.Unmarshal([]byte(codeBlockAfter(t, doc, "lists two tools (the raw `tools/list` result):")), &list); err != nil {
		t.Fatal(err)
	}
	var defs []ToolDef
	for _, r := range list.Tools {
		d, err := DecodeTool(Version1, r)
		if err != nil {
			t.Fatal(err)
		}
		defs = append(defs, d)
	}
	srv, err := BuildServer(Version1, defs, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	stamp := Stamp{By: "agentgate@v1.2.3", At: time.Date(2026, 8, 3, 12, 0, 0, 0, time.UTC)}
	got := Format(New(Version1, map[string]Server{"filesystem": srv}, stamp, nil))
	want := codeBlockAfter(t, doc, "## The file")
	if !bytes.Equal(got, []byte(want)) {
		t.Errorf("worked example: code writes\n%s\ndoc shows\n%s", got, want)
	}
	for _, h := range regexp.MustCompile(`[0-9a-f]{64}`).FindAllString(want, -1) {
		if !verified[h] {
			t.Errorf("hash %s in the example file has no printf line that derives it", h)
		}
	}
}

// codeBlockAfter returns the content of the first fenced code block after
// marker, with a trailing newline.
func codeBlockAfter(t *testing.T, doc, marker string) string {
	t.Helper()
	i := strings.Index(doc, marker)
	if i < 0 {
		t.Fatalf("doc: %q not found", marker)
	}
	rest := doc[i:]
	start := strings.Index(rest, "```")
	if start < 0 {
		t.Fatalf("doc: no code block after %q", marker)
	}
	rest = rest[start:]
	rest = rest[strings.Index(rest, "\n")+1:]
	end := strings.Index(rest, "```")
	return rest[:end]
}
