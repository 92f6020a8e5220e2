package triage

import (
	"fmt"
	"testing"
)

// hugeListing is the listing scripts/bench.sh target 4 locks: n tools
// named tool_0000, tool_0001, ..., each with an inputSchema of about
// schemaBytes bytes, written as internal/testing/fakeserver's Generate
// writes them (which this package cannot import: it imports triage).
func hugeListing(n, schemaBytes int) [][]byte {
	out := make([][]byte, n)
	var props []byte
	for i := range n {
		props = props[:0]
		for j := 0; j == 0 || len(props) < schemaBytes-60; j++ {
			if j > 0 {
				props = append(props, ',')
			}
			props = fmt.Appendf(props, `"arg_%03d":{"type":"string","description":"argument %d of tool %d"}`, j, j, i)
		}
		out[i] = fmt.Appendf(nil,
			`{"name":"tool_%04d","description":"Generated tool number %d.","inputSchema":{"type":"object","properties":{%s}}}`,
			i, i, props)
	}
	return out
}

// BenchmarkFirstLockHuge labels the first lock of one server listing
// 10,000 tools with 4 KB schemas (scripts/bench.sh target 4), as
// render.Labels does: every tool added, one Surface of all their names.
func BenchmarkFirstLockHuge(b *testing.B) {
	defs := hugeListing(10_000, 4096)
	names := make([]Name, len(defs))
	size := 0
	for i, d := range defs {
		names[i] = Name{Server: "large", Kind: KindTool, Name: fmt.Sprintf("tool_%04d", i)}
		size += len(d)
	}
	b.SetBytes(int64(size))
	for b.Loop() {
		s := NewSurface("large", names)
		for i, d := range defs {
			Change(nil, &Item{Kind: KindTool, Name: names[i].Name, Def: d}, s)
		}
	}
}
