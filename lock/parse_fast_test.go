package lock

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"strings"
	"testing"
)

// TestIsHex64 checks the word-at-a-time hex test against a byte-at-a-time
// one for every byte value at every position.
func TestIsHex64(t *testing.T) {
	slow := func(s string) bool {
		for i := 0; i < len(s); i++ {
			if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
				return false
			}
		}
		return len(s) == 64
	}
	base := []byte(strings.Repeat("0123456789abcdef", 4))
	if !isHex64(string(base)) || isHex64(string(base[1:])) || isHex64(string(base)+"0") {
		t.Fatal("isHex64 wrong on length or on a valid hash")
	}
	for pos := range 64 {
		for c := range 256 {
			b := bytes.Clone(base)
			b[pos] = byte(c)
			if got, want := isHex64(string(b)), slow(string(b)); got != want {
				t.Fatalf("isHex64 with byte 0x%02x at %d = %v, want %v", c, pos, got, want)
			}
		}
	}
}

// TestParsedSurfaceHash pins Parse's streaming surface hash to SurfaceHash
// for 0 to 100 tools (several buffer fills), and checks it independently
// for one tool: SHA-256 of the literal canonical text.
func TestParsedSurfaceHash(t *testing.T) {
	var tools []Tool
	for i := 0; i <= 100; i++ {
		if got, want := parsedSurfaceHash(tools), SurfaceHash(tools); got != want {
			t.Fatalf("%d tools: parsedSurfaceHash %s, SurfaceHash %s", i, got, want)
		}
		name := fmt.Sprintf("tool_%03d", i)
		tools = append(tools, Tool{Name: name, NameHash: HashName(name),
			DescriptionHash: HashName("d" + name), InputSchemaHash: HashName("s" + name)})
	}
	one := Tool{Name: "a", NameHash: strings.Repeat("1", 64), DescriptionHash: strings.Repeat("2", 64), InputSchemaHash: strings.Repeat("3", 64)}
	text := `[["` + one.NameHash + `","` + one.DescriptionHash + `","` + one.InputSchemaHash + `"]]`
	if got, want := parsedSurfaceHash([]Tool{one}), fmt.Sprintf("%x", sha256.Sum256([]byte(text))); got != want {
		t.Fatalf("one tool: %s, want %s", got, want)
	}
	if got, want := parsedSurfaceHash(nil), fmt.Sprintf("%x", sha256.Sum256([]byte("[]"))); got != want {
		t.Fatalf("no tools: %s, want %s", got, want)
	}
}
