package lock

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// toolDef4K returns a tool definition of about 4 KB as a server sends it:
// name, description, a schema4K inputSchema, annotations. With frac, the
// schema holds fractions, which puts it outside the scanner's fast subset.
func toolDef4K(seed int, frac bool) []byte {
	s := string(schema4K(seed))
	if frac {
		s = strings.ReplaceAll(s, `"minLength": 1}`, `"minLength": 1, "multipleOf": 0.5}`)
	}
	return fmt.Appendf(nil, `{"name": "tool_%03d", "description": "Reads a file.\nReturns its text.", "inputSchema": %s, "annotations": {"readOnlyHint": true, "title": "Read"}}`, seed, s)
}

// BenchmarkDefinitionHash is the tool definition hash of one 4 KB tool:
// fast, in the scanner's fast subset; slow, with fractions.
func BenchmarkDefinitionHash(b *testing.B) {
	for _, frac := range []bool{false, true} {
		d := toolDef4K(0, frac)
		b.Run(map[bool]string{false: "fast", true: "slow"}[frac], func(b *testing.B) {
			b.SetBytes(int64(len(d)))
			for b.Loop() {
				if _, err := DefinitionHash(d); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// defs4K decodes 100 toolDef4K tools, a quarter of them outside the fast
// subset.
func defs4K(tb testing.TB) []ToolDef {
	tb.Helper()
	var defs []ToolDef
	for i := range 100 {
		d, err := DecodeTool(Version1, toolDef4K(i, i%4 == 0))
		if err != nil {
			tb.Fatal(err)
		}
		defs = append(defs, d)
	}
	return defs
}

// bigLockfileV2 locks 100 tools of 4 KB, with definitions kept, and 20
// prompts.
func bigLockfileV2(tb testing.TB) *Lockfile {
	tb.Helper()
	defs := defs4K(tb)
	var l Listing
	for i := range 20 {
		l.Prompts = append(l.Prompts, fmt.Appendf(nil, `{"name":"prompt_%02d","description":"Prompt %d.","arguments":[{"name":"city","required":true}]}`, i, i))
	}
	srv, err := BuildServer(Version2, defs, BuildOptions{Listing: l, Definitions: true})
	if err != nil {
		tb.Fatal(err)
	}
	return New(Version2, map[string]Server{"big": srv}, Stamp{By: "bench", At: time.Unix(0, 0)}, nil)
}

// BenchmarkBuildServerV2 pins 100 tools of 4 KB (a quarter outside the
// fast subset) and 20 prompts, definitions kept (BuildServer of
// Version2).
func BenchmarkBuildServerV2(b *testing.B) {
	defs := defs4K(b)
	for b.Loop() {
		if _, err := BuildServer(Version2, defs, BuildOptions{Definitions: true}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseV2 reads bigLockfileV2's file (about 1 MB): every
// definition re-hashed.
func BenchmarkParseV2(b *testing.B) {
	data := Format(bigLockfileV2(b))
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Parse(data); err != nil {
			b.Fatal(err)
		}
	}
}
