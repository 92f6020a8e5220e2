package lock

import (
	"bytes"
	"testing"

	"github.com/gowebpki/jcs"
)

// FuzzParse checks that Parse never panics, that whatever it accepts is
// I-JSON by jcs's judgement too, and that it survives a round trip: Format's output parses to the same content, and
// formatting that again gives the same bytes. Seeds: the golden files,
// and testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	for _, data := range goldenFiles(f) {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := Parse(data)
		if _, jerr := jcs.Transform(data); jerr != nil && err == nil {
			t.Fatalf("Parse accepted %q, which jcs (the reference) refuses: %v", data, jerr)
		}
		if err != nil {
			if l != nil {
				t.Fatal("Parse returned a lockfile and an error")
			}
			return
		}
		out := Format(l)
		l2, err := Parse(out)
		if err != nil {
			t.Fatalf("Parse(Format(Parse(%q))): %v\n%s", data, err, out)
		}
		if !Compare(l, l2).Empty() || l2.GeneratedAt != l.GeneratedAt || l2.GeneratedBy != l.GeneratedBy {
			t.Fatalf("round trip changed the content of %q", data)
		}
		if again := Format(l2); !bytes.Equal(again, out) {
			t.Fatalf("Format not stable:\n%s\n%s", out, again)
		}
	})
}

// FuzzDecodeTool checks that DecodeTool never panics, that an accepted
// tool can be locked, and that the lockfile written for it (with its name as
// the server name too) parses back to the same bytes.
func FuzzDecodeTool(f *testing.F) {
	for _, s := range []string{
		`{"name":"a","description":"d","inputSchema":{"type":"object"}}`,
		`{"name":"\u00e9","description":null}`,
		`{"name":"a","name":"b"}`,
		`{"name":1}`,
		`{"inputSchema": {"type": "object", "properties": {"b": {"type": "string"}, "a": [1, {"d": 2, "c": 3}]}}, "name": "t"}`,
		`{"name":"t","inputSchema":{"abcdefghi":1,"abcdefgh":2}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		d, err := DecodeTool(Version1, raw)
		if err != nil {
			return
		}
		srv, err := BuildServer(Version1, []ToolDef{d}, BuildOptions{})
		if err != nil {
			t.Fatalf("BuildServer after DecodeTool(Version1, %q): %v", raw, err)
		}
		if srv.Tools[0].NameHash != HashName(d.Name) || d.Name == "" {
			t.Fatalf("name %q", d.Name)
		}
		// DecodeTool hashed the schema while validating: jcs decides.
		want := sha("{}")
		if len(d.InputSchema) > 0 {
			c, err := jcs.Transform(d.InputSchema)
			if err != nil {
				t.Fatalf("DecodeTool(Version1, %q) accepted a schema jcs rejects: %v", raw, err)
			}
			if string(c) != "null" {
				want = sha(string(c))
			}
		}
		if got := srv.Tools[0].InputSchemaHash; got != want {
			t.Fatalf("inputSchemaHash of %q = %s, want %s", raw, got, want)
		}
		// Parse accepts what Format writes, whatever the names.
		out := Format(New(Version1, map[string]Server{d.Name: srv}, Stamp{By: d.Name}, nil))
		l, err := Parse(out)
		if err != nil {
			t.Fatalf("Parse(Format(...)) for tool %q: %v\n%s", d.Name, err, out)
		}
		if !bytes.Equal(Format(l), out) || l.Servers[d.Name].Tools[0].Name != d.Name {
			t.Fatalf("round trip changed %q", d.Name)
		}
	})
}
