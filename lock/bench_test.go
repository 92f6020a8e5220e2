package lock

import (
	"crypto/sha256"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gowebpki/jcs"
)

// schema4K returns a realistic input schema of about 4 KB: members not in
// canonical order, descriptions with escapes, nested objects, integers.
func schema4K(seed int) []byte {
	var b strings.Builder
	b.WriteString(`{"type": "object", "properties": {`)
	for i := 0; b.Len() < 3900; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, `"field_%d_%d": {"type": "string", "description": "Path of the file to read, relative to the \"root\".\nSee docs.", "maxLength": %d, "minLength": 1}`, seed, i, 4096+i)
	}
	b.WriteString(`}, "required": ["field_0"], "additionalProperties": false, "$schema": "http://json-schema.org/draft-07/schema#"}`)
	return []byte(b.String())
}

func BenchmarkHashInputSchema(b *testing.B) {
	s := schema4K(0)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		if _, err := HashInputSchema(Version1, s); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCanonicalize(b *testing.B) {
	s := schema4K(0)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		if _, err := Canonicalize(s); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCanonicalizeJCS is the reference implementation alone, to show
// what the fast path saves.
func BenchmarkCanonicalizeJCS(b *testing.B) {
	s := schema4K(0)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		if _, err := jcs.Transform(s); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSHA256Only hashes the same bytes as BenchmarkHashInputSchema and
// BenchmarkParse, for the ratio.
func BenchmarkSHA256Only(b *testing.B) {
	for name, data := range map[string][]byte{"schema4K": schema4K(0), "lockfile1000": Format(bigLockfile(b))} {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				sha256.Sum256(data)
			}
		})
	}
}

// bigLockfile locks 1,000 tools: 10 servers of 100 tools.
func bigLockfile(tb testing.TB) *Lockfile {
	tb.Helper()
	servers := map[string]Server{}
	for s := range 10 {
		var defs []ToolDef
		for i := range 100 {
			d := fmt.Sprintf("Tool %d of server %d: does something useful.", i, s)
			defs = append(defs, ToolDef{Name: fmt.Sprintf("tool_%03d", i), Description: &d,
				InputSchema: []byte(fmt.Sprintf(`{"type":"object","properties":{"n":{"type":"integer","maximum":%d}}}`, i))})
		}
		srv, err := BuildServer(Version1, defs, BuildOptions{})
		if err != nil {
			tb.Fatal(err)
		}
		servers[fmt.Sprintf("server-%02d", s)] = srv
	}
	return New(Version1, servers, Stamp{By: "bench", At: time.Unix(0, 0)}, nil)
}

func BenchmarkParse(b *testing.B) {
	data := Format(bigLockfile(b))
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Parse(data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFormat(b *testing.B) {
	l := bigLockfile(b)
	for b.Loop() {
		Format(l)
	}
}

func BenchmarkCompare(b *testing.B) {
	old := bigLockfile(b)
	new := bigLockfile(b)
	srv := new.Servers["server-05"]
	srv.Tools = append([]Tool(nil), srv.Tools...)
	srv.Tools[50].DescriptionHash = sha("changed")
	new.Servers["server-05"] = srv
	for b.Loop() {
		if Compare(old, new).Empty() {
			b.Fatal("no difference found")
		}
	}
}

// TestSurface10000 locks 10,000 tools of 4 KB schemas, the size the
// performance goal is stated for; its cost is measured by
// BenchmarkHashInputSchema against BenchmarkSHA256Only/schema4K.
func TestSurface10000(t *testing.T) {
	if testing.Short() {
		t.Skip("large surface")
	}
	defs := make([]ToolDef, 10000)
	for i := range defs {
		defs[i] = ToolDef{Name: fmt.Sprintf("t%05d", i), InputSchema: schema4K(i)}
	}
	srv, err := BuildServer(Version1, defs, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(srv.Tools) != 10000 || srv.Tools[9999].InputSchemaHash == srv.Tools[0].InputSchemaHash {
		t.Error("schemas not hashed apart")
	}
}

// schemaGenerated is the inputSchema of tool i of the fake server's
// generated listing (fakeserver.Generate(n, 4096)), which the issue #5
// figure is measured on: compact, properties in order, each property's
// members out of order.
func schemaGenerated(i int) []byte {
	var props strings.Builder
	for j := 0; j == 0 || props.Len() < 4096-60; j++ {
		if j > 0 {
			props.WriteByte(',')
		}
		fmt.Fprintf(&props, `"arg_%03d":{"type":"string","description":"argument %d of tool %d"}`, j, j, i)
	}
	return []byte(`{"type":"object","properties":{` + props.String() + `}}`)
}

func BenchmarkHashInputSchemaGenerated(b *testing.B) {
	s := schemaGenerated(0)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		if _, err := HashInputSchema(Version1, s); err != nil {
			b.Fatal(err)
		}
	}
}
