package configedit

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/mcp/config"
	"github.com/agentgate/agentgate/mcp/launcher"
)

// bigConfig is a .mcp.json with n npx servers.
func bigConfig(n int) []byte {
	var b strings.Builder
	b.WriteString("{\"mcpServers\": {\n")
	for i := range n {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, `  "s%d": {"command": "npx", "args": ["-y", "pkg%d"]}`, i, i)
	}
	b.WriteString("\n}}\n")
	return []byte(b.String())
}

// BenchmarkWrapFile500 wraps a file of 500 servers: one parse to locate,
// one to verify, one unwrap to check (it took two minutes when each server
// was wrapped and checked on its own).
func BenchmarkWrapFile500(b *testing.B) {
	data := bigConfig(500)
	for b.Loop() {
		if _, names, _, err := WrapFile("claude-code", ".mcp.json", data, WrapOptions{}); err != nil || len(names) != 500 {
			b.Fatal(err, len(names))
		}
	}
}

// BenchmarkPinFile500 pins the same file.
func BenchmarkPinFile500(b *testing.B) {
	data := bigConfig(500)
	for b.Loop() {
		if _, pins, err := PinFile("claude-code", ".mcp.json", data, func(config.Server, launcher.PackageSpec) (string, string, error) { return "1.2.3", "", nil }); err != nil || len(pins) != 500 {
			b.Fatal(err, len(pins))
		}
	}
}
