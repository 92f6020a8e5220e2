package lock

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestDecodeTool(t *testing.T) {
	str := func(s string) *string { return &s }
	tests := []struct {
		raw    string
		name   string
		desc   *string
		schema string
	}{
		{`{"name":"a"}`, "a", nil, ""},
		{`{"name":"a","description":null,"inputSchema":null}`, "a", nil, ""},
		{`{"name":"a","description":""}`, "a", str(""), ""},
		{` {"name":"\u0061\u00e9","description":"x\ny","inputSchema": {"b":1} } `, "aé", str("x\ny"), `{"b":1}`},
		{`{"name":"a","inputSchema":"weird but JSON","annotations":{"x":[1,2]}}`, "a", nil, `"weird but JSON"`},
		{`{"name":"a","Name":"b"}`, "a", nil, ""}, // member names are case-sensitive
	}
	for _, tt := range tests {
		d, err := DecodeTool(Version1, []byte(tt.raw))
		if err != nil {
			t.Errorf("DecodeTool(Version1, %s): %v", tt.raw, err)
			continue
		}
		if d.Name != tt.name || (d.Description == nil) != (tt.desc == nil) ||
			(d.Description != nil && *d.Description != *tt.desc) || string(d.InputSchema) != tt.schema ||
			string(d.Raw) != strings.TrimSpace(tt.raw) {
			t.Errorf("DecodeTool(Version1, %s) = %+v", tt.raw, d)
		}
	}
}

func TestDecodeToolErrors(t *testing.T) {
	tests := []struct{ raw, msg string }{
		{`{"description":"x"}`, `tool: field "name": missing; every tool needs a name`},
		{`{"name":""}`, `tool: field "name": must not be empty`},
		{`{"name":7}`, `tool: field "name": want a string, got a number`},
		{`{"name":null}`, `tool: field "name": want a string, got null`},
		{`{"name":"t","description":["x"]}`, `tool "t": field "description": want a string or null, got an array`},
		{`{"name":"t","description":false}`, `tool "t": field "description": want a string or null, got a boolean`},
		{`["name"]`, `tool: want a JSON object, got an array`},
		{`{"name":"t","name":"u"}`, `tool: the tool definition is not valid I-JSON: invalid JSON: duplicate member name "name"`},
		{`{"name":"t","description":"a","descr\u0069ption":"b"}`, `tool "t": the tool definition is not valid I-JSON: invalid JSON: duplicate member name "description"`},
		{`{"name":"t","annotations":{"x":1,"x":2}}`, `tool "t": the tool definition is not valid I-JSON: invalid JSON: duplicate member name "x"`},
		{"{\"name\":\"t\xff\"}", `tool: the tool definition is not valid I-JSON: invalid JSON: invalid UTF-8 (byte 0xff) in a string`},
		{`{"name":"t\ud800"}`, `tool: the tool definition is not valid I-JSON: invalid JSON: lone surrogate \ud800 in a string`},
		{`{"name":"t","inputSchema":{"maximum":1e999}}`, `tool "t": the tool definition is not valid I-JSON: invalid JSON: number 1e999 is not a finite double`},
		{`{"name":"t"`, `tool "t": the tool definition is not valid I-JSON: invalid JSON: unexpected end of file, want ',' or '}'`},
	}
	for _, tt := range tests {
		_, err := DecodeTool(Version1, []byte(tt.raw))
		var te *ToolError
		if !errors.As(err, &te) {
			t.Errorf("DecodeTool(Version1, %s): error %v, want a *ToolError", tt.raw, err)
			continue
		}
		if err.Error() != tt.msg {
			t.Errorf("DecodeTool(Version1, %s):\n got %s\nwant %s", tt.raw, err, tt.msg)
		}
	}
}

func TestBuildServer(t *testing.T) {
	desc := "Read a file."
	srv, err := BuildServer(Version1, []ToolDef{
		{Name: "write", InputSchema: []byte(`{"type":"object","properties":{}}`)},
		{Name: "read", Description: &desc},
	}, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Expected values from the rules, with hand-written canonical texts.
	read := Tool{Name: "read", NameHash: sha("read"), DescriptionHash: sha("Read a file."), InputSchemaHash: sha("{}")}
	write := Tool{Name: "write", NameHash: sha("write"), DescriptionHash: sha(""), InputSchemaHash: sha(`{"properties":{},"type":"object"}`)}
	surface := sha(`[["` + read.NameHash + `","` + read.DescriptionHash + `","` + read.InputSchemaHash + `"],["` +
		write.NameHash + `","` + write.DescriptionHash + `","` + write.InputSchemaHash + `"]]`)
	if len(srv.Tools) != 2 || srv.Tools[0] != read || srv.Tools[1] != write || srv.SurfaceHash != surface {
		t.Errorf("BuildServer = %+v", srv)
	}
	empty, err := BuildServer(Version1, nil, BuildOptions{})
	if err != nil || empty.Tools == nil || len(empty.Tools) != 0 || empty.SurfaceHash != sha("[]") {
		t.Errorf("BuildServer(Version1, nil, BuildOptions{}) = %+v, %v", empty, err)
	}
}

func TestBuildServerErrors(t *testing.T) {
	bad := "bad\xff"
	tests := []struct {
		defs []ToolDef
		msg  string
	}{
		{[]ToolDef{{Name: "a"}, {Name: "b"}, {Name: "a"}}, `tool "a": the server listed two tools with this name; a name must be unique on one server, so neither can be pinned`},
		{[]ToolDef{{Name: ""}}, `tool: field "name": must not be empty`},
		{[]ToolDef{{Name: bad}}, `tool: field "name": is not valid UTF-8`},
		{[]ToolDef{{Name: "d", Description: &bad}}, `tool "d": field "description": is not valid UTF-8`},
		{[]ToolDef{{Name: "s", InputSchema: []byte(`{"a":1,"a":2}`)}}, `tool "s": field "inputSchema": invalid JSON: duplicate member name "a"`},
	}
	for _, tt := range tests {
		_, err := BuildServer(Version1, tt.defs, BuildOptions{})
		var te *ToolError
		if !errors.As(err, &te) || err.Error() != tt.msg {
			t.Errorf("BuildServer: error %v\nwant %s", err, tt.msg)
		}
	}
}

func TestHashRules(t *testing.T) {
	desc, empty := "Reads.", ""
	tests := []struct{ got, want string }{
		{HashName("read_file"), sha("read_file")},
		{HashName("créer"), sha("cr\xc3\xa9er")},
		{HashDescription(nil), sha("")},
		{HashDescription(&empty), sha("")},
		{HashDescription(&desc), sha("Reads.")},
		{mustHashSchema(t, nil), sha("{}")},
		{mustHashSchema(t, []byte("null")), sha("{}")},
		{mustHashSchema(t, []byte(" null\n")), sha("{}")},
		{mustHashSchema(t, []byte("{}")), sha("{}")},
		{mustHashSchema(t, []byte(`{ "type" : "object", "a": [1.50, 2E3] }`)), sha(`{"a":[1.5,2000],"type":"object"}`)},
		{SurfaceHash(nil), sha("[]")},
		{SurfaceHash([]Tool{{Name: "b", NameHash: "1", DescriptionHash: "2", InputSchemaHash: "3"}, {Name: "a", NameHash: "4", DescriptionHash: "5", InputSchemaHash: "6"}}),
			sha(`[["4","5","6"],["1","2","3"]]`)},
		// UTF-8 byte order, not UTF-16: U+FB01 (EF AC 81) sorts before U+1F600 (F0 9F 98 80).
		{SurfaceHash([]Tool{{Name: "\U0001F600", NameHash: "x"}, {Name: "\ufb01", NameHash: "y"}}), sha(`[["y","",""],["x","",""]]`)},
	}
	for i, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("case %d: got %s, want %s", i, tt.got, tt.want)
		}
	}
}

func mustHashSchema(t *testing.T, raw []byte) string {
	t.Helper()
	h, err := HashInputSchema(Version1, raw)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestVersionArgument: every function that takes a lockfile version
// refuses one this package does not write (naming it), New panics on one,
// and a version 1 server refuses version 2's options instead of dropping
// them.
func TestVersionArgument(t *testing.T) {
	raw := []byte(`{"name":"a"}`)
	for _, v := range []int{0, 3, -1} {
		want := fmt.Sprintf("lockfile version %d: this package writes version 1 or 2", v)
		_, err1 := DecodeTool(v, raw)
		_, _, err2 := DecodeServer(v, []json.RawMessage{raw})
		_, err3 := BuildServer(v, nil, BuildOptions{})
		_, err4 := HashInputSchema(v, nil)
		for i, err := range []error{err1, err2, err3, err4} {
			if err == nil || err.Error() != want {
				t.Errorf("version %d, function %d: error %v, want %q", v, i, err, want)
			}
		}
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), want) {
					t.Errorf("New(%d, ...): panic %v, want %q", v, r, want)
				}
			}()
			New(v, nil, Stamp{}, nil)
		}()
	}
	in := "hello"
	for _, opt := range []BuildOptions{{Definitions: true}, {Listing: Listing{Instructions: &in}}, {Listing: Listing{LockResources: true}}} {
		if _, err := BuildServer(Version1, nil, opt); err == nil || !strings.Contains(err.Error(), "version 1 lockfile pins tools only") {
			t.Errorf("BuildServer(Version1, %+v): error %v", opt, err)
		}
	}
	// The same options on version 2 pin what they say.
	srv, err := BuildServer(Version2, nil, BuildOptions{Listing: Listing{Instructions: &in}, Definitions: true})
	if err != nil || srv.Instructions == nil || *srv.Instructions != in || srv.InstructionsHash == nil {
		t.Errorf("BuildServer(Version2) with instructions: %+v, %v", srv, err)
	}
}
