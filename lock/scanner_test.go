package lock

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/bits"
	"strings"
	"testing"

	"github.com/gowebpki/jcs"
)

// bigSchema returns a schema of about n bytes that takes every branch of
// the streaming hash: unsorted objects at several depths, arrays of them,
// whitespace, and verbatim runs longer than directAt and outputs longer
// than flushAt.
func bigSchema(n int, indent bool) []byte {
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{`)
	for i := 0; b.Len() < n; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		if indent {
			b.WriteString("\n  ")
		}
		switch i % 4 {
		case 0: // out of order
			fmt.Fprintf(&b, `"p%d":{"type":"string","description":"field %d \"q\"\n","enum":["a","b",{"z":1,"y":[true,null]}]}`, i, i)
		case 1: // canonical already, and long
			fmt.Fprintf(&b, `"p%d":{"description":"%s","type":"integer"}`, i, strings.Repeat("x", 1500))
		case 2:
			fmt.Fprintf(&b, `"p%d": [ {"b":1,"a":2}, [], {}, -12 ]`, i)
		case 3:
			fmt.Fprintf(&b, `"p%d":%q`, i, strings.Repeat("é", 700))
		}
	}
	b.WriteString(`},"additionalProperties":false}`)
	return []byte(b.String())
}

func TestFastHashAgreesWithJCS(t *testing.T) {
	inputs := [][]byte{
		[]byte(`null`), []byte(` null `), []byte(`{}`), []byte(`{ }`), []byte(`[ ]`), []byte(`"s"`), []byte(`-7`),
		[]byte(`{"a":{"c":1,"b":2}}`), []byte(`[{"b":1,"a":2},{"d":[{"f":1,"e":2}]}]`),
		[]byte(`{"a" :1, "b": {"d":1,"c":2} }`),
		[]byte(`{"abcdefgh2":1,"abcdefgh10":2,"abcdefgh":3,"abc":4,"abcdefghi":5}`),
		[]byte(`{"abcdefghi":1,"abcdefgh":2}`), []byte(`{"abcdefgh":1,"abcdefghi":2}`),
		[]byte(`{"abcdefgh":1,"abcdefgi":2,"abcdefg":3}`),
		schema4K(3), schemaGenerated(7),
		bigSchema(40<<10, false), bigSchema(40<<10, true),
	}
	var many strings.Builder // more members than the insertion sort takes
	many.WriteString("{")
	for i := range 40 {
		if i > 0 {
			many.WriteString(",")
		}
		fmt.Fprintf(&many, `"name_%d":{"z":%d,"a":%d}`, (i*17)%40, i, i)
	}
	many.WriteString("}")
	inputs = append(inputs, []byte(many.String()))
	for _, in := range inputs {
		want, err := jcs.Transform(in)
		if err != nil {
			t.Fatalf("jcs.Transform(%.80q): %v", in, err)
		}
		if _, _, ok := fastHash(in); !ok {
			t.Errorf("fast path refused %.80q", in)
		}
		if got, ok := fastCanonical(nil, in); !ok || !bytes.Equal(got, want) {
			t.Errorf("fastCanonical(%.80q) = %.80q, %v; jcs = %.80q", in, got, ok, want)
		}
		checkHashes(t, in, want)
	}
}

// TestFastRejectsDuplicates: the fast path must see duplicate member names
// wherever they are, also in objects that are only validated.
func TestFastRejectsDuplicates(t *testing.T) {
	var many strings.Builder
	many.WriteString("{")
	for i := range 30 {
		fmt.Fprintf(&many, `"k%02d":1,`, 29-i)
	}
	many.WriteString(`"k07":2}`)
	for _, in := range []string{
		`{"a":1,"a":2}`, `{"b":1,"a":1,"b":2}`, `{"b":1,"a":{"d":1,"c":1,"d":1}}`,
		`{"abcdefghij":1,"abcdefghij":2}`, `{"x":[{"q":1,"p":1,"q":1}]}`, many.String(),
	} {
		if _, ok := fastCanonical(nil, []byte(in)); ok {
			t.Errorf("fastCanonical accepted %s", in)
		}
		if _, _, ok := fastHash([]byte(in)); ok {
			t.Errorf("fastHash accepted %s", in)
		}
		tool := `{"name":"t","annotations":` + in + `}`
		if _, _, err := DecodeServer(Version1, []json.RawMessage{[]byte(tool)}); err == nil || !strings.Contains(err.Error(), "duplicate member name") {
			t.Errorf("DecodeServer(Version1, %s) = %v, want a duplicate member name error", tool, err)
		}
		if _, err := DecodeTool(Version1, []byte(tool)); err == nil || !strings.Contains(err.Error(), "duplicate member name") {
			t.Errorf("DecodeTool(Version1, %s) = %v, want a duplicate member name error", tool, err)
		}
	}
}

// TestBuildServerHashesWhatItIsGiven: a ToolDef is plain data; BuildServer
// hashes its InputSchema as it is when called, also after an edit in place
// (a ToolDef once cached DecodeTool's hash, keyed on the slice).
func TestBuildServerHashesWhatItIsGiven(t *testing.T) {
	raw := []byte(`{"name":"t","inputSchema":{"type":"object","a":1}}`)
	d, err := DecodeTool(Version1, raw)
	if err != nil {
		t.Fatal(err)
	}
	d.InputSchema[len(d.InputSchema)-2] = '3' // in place, in raw's bytes
	if srv, err := BuildServer(Version1, []ToolDef{d}, BuildOptions{}); err != nil || srv.Tools[0].InputSchemaHash != sha(`{"a":3,"type":"object"}`) {
		t.Errorf("edited in place: %+v, %v", srv, err)
	}
	d.InputSchema[len(d.InputSchema)-2] = '1'

	for _, tt := range []struct {
		schema []byte
		want   string
	}{
		{d.InputSchema, sha(`{"a":1,"type":"object"}`)},
		{d.InputSchema[:len(d.InputSchema):len(d.InputSchema)], sha(`{"a":1,"type":"object"}`)},
		{[]byte(`{"b":2}`), sha(`{"b":2}`)},
		{nil, sha(`{}`)},
		{d.InputSchema[8:16], sha(`"object"`)},
		{d.InputSchema[:len(d.InputSchema)-1], ""}, // same start, not the same value: not I-JSON
	} {
		d2 := d
		d2.InputSchema = tt.schema
		srv, err := BuildServer(Version1, []ToolDef{d2}, BuildOptions{})
		if tt.want == "" {
			if err == nil {
				t.Errorf("InputSchema %q: no error", tt.schema)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if got := srv.Tools[0].InputSchemaHash; got != tt.want {
			t.Errorf("InputSchema %q: inputSchemaHash %s, want %s", tt.schema, got, tt.want)
		}
	}
}

// TestNonPlain8First: the lowest flag of nonPlain8 is the first byte that
// is not plainByte, whatever the bytes after it, and specials8 tells
// whether that byte is '"'.
func TestNonPlain8First(t *testing.T) {
	for _, bg := range []byte{'a', ' ', '~', 0x1f, '"', 0xff} {
		for pos := range 8 {
			for c := range 256 {
				w := bytes.Repeat([]byte{'a'}, 8)
				w[pos] = byte(c)
				for k := pos + 1; k < 8; k++ {
					w[k] = bg
				}
				want := 8
				for k, b := range w {
					if !plainByte[b] {
						want = k
						break
					}
				}
				x := binary.LittleEndian.Uint64(w)
				m := nonPlain8(x)
				if got := bits.TrailingZeros64(m) >> 3; got != want {
					t.Fatalf("first flag of %q at %d, want %d", w, got, want)
				}
				q, m2 := specials8(x)
				if isQuote := q&(m2&-m2) != 0; m2 != m || isQuote != (want < 8 && w[want] == '"') {
					t.Fatalf("specials8(%q): first special byte a quote: %v", w, isQuote)
				}
			}
		}
	}
}
