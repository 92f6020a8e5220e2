package lock

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
)

// TestDecodeToolSharesRaw pins what keeps a large listing in memory once:
// Raw and InputSchema are the caller's bytes, not copies, and their
// capacity ends with their value, so an append to one cannot overwrite the
// bytes that follow it.
func TestDecodeToolSharesRaw(t *testing.T) {
	raw := []byte(" {\"inputSchema\" :\t{\"b\": [1, 2], \"a\": {}} , \"name\": \"x\"}\n")
	d, err := DecodeTool(Version1, raw)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(d.InputSchema), `{"b": [1, 2], "a": {}}`; got != want {
		t.Fatalf("InputSchema = %q, want %q", got, want)
	}
	if got, want := string(d.Raw), string(bytes.TrimSpace(raw)); got != want {
		t.Fatalf("Raw = %q, want %q", got, want)
	}
	if &d.InputSchema[0] != &raw[bytes.Index(raw, []byte(`{"b"`))] || &d.Raw[0] != &raw[1] {
		t.Error("InputSchema or Raw is a copy, not a sub-slice of raw")
	}
	if cap(d.InputSchema) != len(d.InputSchema) || cap(d.Raw) != len(d.Raw) {
		t.Errorf("cap(InputSchema), cap(Raw) = %d, %d; want %d, %d", cap(d.InputSchema), cap(d.Raw), len(d.InputSchema), len(d.Raw))
	}
	_ = append(d.InputSchema, 'X')
	if !bytes.Contains(raw, []byte(`} , "name"`)) {
		t.Error("an append to InputSchema overwrote raw")
	}
}

// tool4K is one raw tool of about 4 KB, as a server lists it.
func tool4K(i int) []byte {
	return fmt.Appendf(nil, `{"name": "tool_%05d", "description": "Tool %d.", "inputSchema": %s}`, i, i, schema4K(i))
}

// BenchmarkDecodeTool is reading one listed tool: I-JSON validation and
// the three members.
func BenchmarkDecodeTool(b *testing.B) {
	raw := tool4K(0)
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		if _, err := DecodeTool(Version1, raw); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeServer1000 is decoding and hashing a server of 1,000 raw
// 4 KB tools: validation, every hash, the sort and the surfaceHash. Compare
// its MB/s with BenchmarkSHA256Only/schema4K.
func BenchmarkDecodeServer1000(b *testing.B) {
	raws := make([]json.RawMessage, 1000)
	n := 0
	for i := range raws {
		raws[i] = tool4K(i)
		n += len(raws[i])
	}
	b.SetBytes(int64(n))
	for b.Loop() {
		if _, _, err := DecodeServer(Version1, raws); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBuildServer1000 is hashing a server of 1,000 decoded 4 KB tools:
// every hash, the sort and the surfaceHash. Compare its MB/s with
// BenchmarkSHA256Only/schema4K.
func BenchmarkBuildServer1000(b *testing.B) {
	defs := make([]ToolDef, 1000)
	n := 0
	for i := range defs {
		d, err := DecodeTool(Version1, tool4K(i))
		if err != nil {
			b.Fatal(err)
		}
		defs[i] = d
		n += len(d.InputSchema)
	}
	b.SetBytes(int64(n))
	for b.Loop() {
		if _, err := BuildServer(Version1, defs, BuildOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
