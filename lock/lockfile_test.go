package lock

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// goldenFiles are canonical lockfiles written by testdata/golden/gen.sh with
// sha256sum, independently of this package.
func goldenFiles(t testing.TB) map[string][]byte {
	t.Helper()
	files, err := filepath.Glob("testdata/golden/*.lock")
	if err != nil || len(files) < 3 {
		t.Fatalf("golden lockfiles missing: %v %v", files, err)
	}
	m := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m[filepath.Base(f)] = b
	}
	return m
}

func TestGoldenRoundTrip(t *testing.T) {
	for name, data := range goldenFiles(t) {
		t.Run(name, func(t *testing.T) {
			l, err := Parse(data)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if got := Format(l); !bytes.Equal(got, data) {
				t.Errorf("Format(Parse(%s)) differs:\n%s", name, got)
			}
			validateSchema(t, Format(l))
		})
	}
}

// twoServers are the tools that testdata/golden/two-servers.lock locks, as
// servers would list them (schemas not canonical).
func twoServers(t testing.TB) map[string]Server {
	t.Helper()
	lists := map[string][]string{
		"filesystem": {
			`{"name":"write_file","description":"Create or overwrite a file <safely> & \"atomically\".",
			  "inputSchema":{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},
			  "required":["path","content"],"additionalProperties":false},"annotations":{"title":"Write"}}`,
			`{"inputSchema": {"type": "object", "required": ["path"], "properties": {"path": {"type": "string"}}},
			  "description": "Read the complete contents of a file.", "name": "read_file"}`,
		},
		"memory server": {
			`{"name":"evil\u202etxt","description":null,"inputSchema":{"type":"object"}}`,
			`{"name":"cr\u00e9er","description":"Crée une entité."}`,
			`{"name":"Zebra","inputSchema":null}`,
		},
	}
	servers := map[string]Server{}
	for name, raws := range lists {
		var defs []ToolDef
		for _, raw := range raws {
			d, err := DecodeTool(Version1, []byte(raw))
			if err != nil {
				t.Fatalf("DecodeTool(Version1, %s): %v", raw, err)
			}
			defs = append(defs, d)
		}
		srv, err := BuildServer(Version1, defs, BuildOptions{})
		if err != nil {
			t.Fatal(err)
		}
		servers[name] = srv
	}
	return servers
}

var testStamp = Stamp{By: "agentgate@v0.0.0-test", At: time.Date(2026, 8, 3, 12, 0, 0, 0, time.UTC)}

func TestWriterMatchesGolden(t *testing.T) {
	golden := goldenFiles(t)
	got := Format(New(Version1, twoServers(t), testStamp, nil))
	if !bytes.Equal(got, golden["two-servers.lock"]) {
		t.Errorf("Format(New(Version1, ...)) =\n%s\nwant testdata/golden/two-servers.lock", got)
	}
	empty := Format(New(Version1, nil, testStamp, nil))
	if !bytes.Equal(empty, golden["empty.lock"]) {
		t.Errorf("no servers:\n%s", empty)
	}
	silent, err := BuildServer(Version1, nil, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	zero := Format(New(Version1, map[string]Server{"silent": silent}, testStamp, nil))
	if !bytes.Equal(zero, golden["zero-tools.lock"]) {
		t.Errorf("zero tools:\n%s", zero)
	}
	validateSchema(t, got)
}

func TestNewKeepsStampOfEqualSurface(t *testing.T) {
	servers := twoServers(t)
	prev, err := Parse(Format(New(Version1, servers, testStamp, nil)))
	if err != nil {
		t.Fatal(err)
	}
	later := Stamp{By: "agentgate@v9.9.9", At: testStamp.At.Add(time.Hour)}
	same := New(Version1, twoServers(t), later, prev)
	if same.GeneratedAt != "2026-08-03T12:00:00.000Z" || same.GeneratedBy != "agentgate@v0.0.0-test" {
		t.Errorf("unchanged surface got a new stamp: %s %s", same.GeneratedBy, same.GeneratedAt)
	}
	if !bytes.Equal(Format(same), Format(prev)) {
		t.Error("regenerating an unchanged surface changed bytes")
	}
	delete(servers, "filesystem")
	changed := New(Version1, servers, later, prev)
	if changed.GeneratedAt != "2026-08-03T13:00:00.000Z" || changed.GeneratedBy != "agentgate@v9.9.9" {
		t.Errorf("changed surface kept the old stamp: %s %s", changed.GeneratedBy, changed.GeneratedAt)
	}
}

// lockSchema compiles docs/spec/agentgate.lock.schema.json, asserting
// formats (date-time).
func lockSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	sch, err := c.Compile("../docs/spec/agentgate.lock.schema.json")
	if err != nil {
		t.Fatalf("compile schema: %v", err)
	}
	return sch
}

func validateSchema(t *testing.T, data []byte) {
	t.Helper()
	sch := lockSchema(t)
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(v); err != nil {
		t.Errorf("lockfile does not validate against the schema: %v\n%s", err, data)
	}
}

func TestSchemaRejects(t *testing.T) {
	// The schema itself must refuse what Parse refuses structurally.
	sch := lockSchema(t)
	base := string(goldenFiles(t)["two-servers.lock"])
	for _, bad := range []string{
		strings.Replace(base, `"lockfileVersion": 1`, `"lockfileVersion": 2`, 1),
		strings.Replace(base, `"lockfileVersion": 1`, `"lockfileVersion": "1"`, 1),
		strings.Replace(base, `"generatedAt": "2026-08-03T12:00:00.000Z"`, `"generatedAt": "yesterday"`, 1),
		strings.Replace(base, `"nameHash": "c9f8`, `"nameHash": "C9F8`, 1),
		strings.Replace(base, `"name": "Zebra",`, `"name": "Zebra", "title": "x",`, 1),
		strings.Replace(base, `"name": "Zebra",`, `"name": "",`, 1),
	} {
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(bad))
		if err != nil {
			t.Fatal(err)
		}
		if sch.Validate(v) == nil {
			t.Errorf("schema accepted:\n%s", bad)
		}
	}
}

// TestParseRefuses pins the exact message for each way a file can be wrong.
func TestParseRefuses(t *testing.T) {
	base := string(goldenFiles(t)["two-servers.lock"])
	rep := func(old, new string) string {
		if !strings.Contains(base, old) {
			t.Fatalf("test bug: %q not in golden file", old)
		}
		return strings.Replace(base, old, new, 1)
	}
	readFile := `        {
          "name": "read_file",
          "nameHash": "c9f8123bd2726fc2414267256101446c45647b4754b1bad58feaf205125b4c96",
          "descriptionHash": "5fce3f919ccb8ed646bed191eec95f9cc3710bcb8d95b78bdfaa3bc2640cf092",
          "inputSchemaHash": "923b083c9bcab2e3d3e07c7d9b4401688ad9f3d5e2c2f0c48fcd43052bdcb71b"
        },
`
	var version *VersionError
	var parse *ParseError
	var integrity *IntegrityError
	tests := []struct {
		name, data string
		as         any
		msg        string
	}{
		{"flipped digit in descriptionHash", rep("5fce3f919ccb", "5fce3f919ccc"), &integrity,
			`servers["filesystem"] surfaceHash: does not match the hashes of the server's tools: a hash was edited by hand or damaged, or tools were added or removed without regenerating`},
		{"flipped digit in nameHash", rep("c9f8123bd272", "c9f8123bd273"), &integrity,
			`servers["filesystem"] tool "read_file" nameHash: is not the SHA-256 of the tool's name: the name or its hash was edited by hand or damaged`},
		{"flipped digit in surfaceHash", rep("bd7df23fc6c9", "bd7df23fc6c8"), &integrity,
			`servers["memory server"] surfaceHash: does not match the hashes of the server's tools: a hash was edited by hand or damaged, or tools were added or removed without regenerating`},
		{"renamed tool", rep(`"name": "read_file"`, `"name": "read_files"`), &integrity,
			`servers["filesystem"] tool "read_files" nameHash: is not the SHA-256 of the tool's name: the name or its hash was edited by hand or damaged`},
		{"version 3", rep(`"lockfileVersion": 1`, `"lockfileVersion": 3, "future": true`), &version,
			`unsupported lockfileVersion 3; this build reads lockfileVersion 1, 2 (the JSON number)`},
		{"version string", rep(`"lockfileVersion": 1`, `"lockfileVersion": "1"`), &version,
			`unsupported lockfileVersion "1"; this build reads lockfileVersion 1, 2 (the JSON number)`},
		{"version 1.0", rep(`"lockfileVersion": 1`, `"lockfileVersion": 1.0`), &version,
			`unsupported lockfileVersion 1.0; this build reads lockfileVersion 1, 2 (the JSON number)`},
		{"version missing", rep(`"lockfileVersion": 1,`, ``), &version,
			`lockfileVersion is missing; this build reads lockfileVersion 1, 2`},
		{"duplicated tool", rep(readFile, readFile+readFile), &parse,
			`line 15: servers["filesystem"].tools[1]: duplicate tool "read_file" (also at index 0); a name occurs once per server`},
		{"unsorted tools", rep(`"name": "Zebra"`, `"name": "zebra"`), &parse,
			`line 32: servers["memory server"].tools[1]: tools are not sorted by name: "créer" comes after "zebra"`},
		{"unknown field", rep(`"name": "Zebra",`, `"name": "Zebra", "title": "Z",`), &parse,
			`line 27: servers["memory server"].tools[0].title: unknown field; a tool has only name, nameHash, descriptionHash, inputSchemaHash`},
		{"unknown root field", rep(`"servers": {`, `"extra": 1, "servers": {`), &parse,
			`line 5: extra: unknown field; a version 1 lockfile has only lockfileVersion, generatedBy, generatedAt, servers`},
		{"uppercase hash", rep(`"nameHash": "c9f8123bd272`, `"nameHash": "C9F8123BD272`), &parse,
			`line 11: servers["filesystem"].tools[0].nameHash: want 64 lowercase hex digits (a SHA-256), got "C9F8123BD2726fc2414267256101446c45647b4754b1bad58feaf205125b4c96"`},
		{"short hash", rep(`"c9f8123bd2726fc2414267256101446c45647b4754b1bad58feaf205125b4c96"`, `"c9f8"`), &parse,
			`line 11: servers["filesystem"].tools[0].nameHash: want 64 lowercase hex digits (a SHA-256), got "c9f8"`},
		{"hash of wrong type", rep(`"surfaceHash": "2b04`, `"surfaceHash": 7, "x": "2b04`), &parse,
			`line 7: servers["filesystem"].surfaceHash: want a string, got a number`},
		{"tools not an array", strings.Replace(string(goldenFiles(t)["zero-tools.lock"]), `"tools": []`, `"tools": {}`, 1), &parse,
			`line 8: servers["silent"].tools: want an array, got an object`},
		// Issue #13 bug 5: I-JSON errors come before version and field
		// errors, wherever the duplicate is.
		{"duplicate after a newer version", strings.Replace(rep(`"name": "Zebra",`, `"name": "Zebra", "name": "Zebra",`), `"lockfileVersion": 1`, `"lockfileVersion": 3`, 1), &parse,
			`line 27: servers["memory server"].tools[0].name: duplicate member name: it occurs twice in the same object`},
		{"duplicate after an unknown field", strings.Replace(rep(`"name": "Zebra",`, `"name": "Zebra", "name": "Zebra",`), `"servers": {`, `"extra": 1, "servers": {`, 1), &parse,
			`line 27: servers["memory server"].tools[0].name: duplicate member name: it occurs twice in the same object`},
		{"duplicate in a nested unknown field", rep(`"generatedBy"`, `"x": [0, {"a": {"b": 1, "b": 2}}], "generatedBy"`), &parse,
			`line 3: x[1].a.b: duplicate member name: it occurs twice in the same object`},
		{"duplicate JSON key", rep(`"generatedBy": "agentgate@v0.0.0-test",`, `"generatedBy": "a", "generatedBy": "agentgate@v0.0.0-test",`), &parse,
			`line 3: generatedBy: duplicate member name: it occurs twice in the same object`},
		{"duplicate server after unescaping", rep(`"memory server": {`, `"filesystem": {}, "filesyst\u0065m": {`), &parse,
			`line 23: servers["filesystem"]: duplicate member name: it occurs twice in the same object`},
		{"missing descriptionHash", rep(`          "descriptionHash": "5fce3f919ccb8ed646bed191eec95f9cc3710bcb8d95b78bdfaa3bc2640cf092",`+"\n", ``), &parse,
			`line 9: servers["filesystem"].tools[0]: missing field "descriptionHash"`},
		{"missing servers", "{\"lockfileVersion\": 1, \"generatedBy\": \"x\", \"generatedAt\": \"2026-08-03T12:00:00.000Z\"}\n", &parse,
			`line 1: missing field "servers"`},
		{"bad generatedAt", rep(`2026-08-03T12:00:00.000Z`, `2026-08-03 12:00`), &parse,
			`line 4: generatedAt: want an RFC 3339 time such as 2026-08-03T12:00:00.000Z, got "2026-08-03 12:00"`},
		{"empty tool name", rep(`"name": "Zebra"`, `"name": ""`), &parse,
			`line 27: servers["memory server"].tools[0].name: must not be empty`},
		{"conflict markers", rep("        {\n          \"name\": \"write_file\"", "<<<<<<< HEAD\n        {\n          \"name\": \"write_file\""), &integrity,
			`line 15: git merge conflict marker "<<<<<<< HEAD": the lockfile was damaged by a merge; hashes cannot be merged by hand`},
		{"trailing comma", rep("\n      ]\n    },\n    \"memory", ",\n      ]\n    },\n    \"memory"), &parse,
			`line 21: invalid JSON: unexpected ']', want a value`},
		{"truncated", base[:len(base)/2], &parse, ``},
		{"two texts", base + "{}\n", &parse, `line 48: invalid JSON: unexpected data after the JSON text`},
		{"empty file", "", &parse, `line 1: the file is empty, want a JSON object`},
		{"not an object", "[]\n", &parse, `line 1: want an object, got an array`},
		{"BOM", "\xef\xbb\xbf" + base, &parse, `line 1: the file starts with a UTF-8 byte order mark (U+FEFF), which JSON does not allow; remove it`},
		{"invalid UTF-8", rep(`"name": "Zebra"`, "\"name\": \"Z\xffbra\""), &parse, `line 27: invalid JSON: invalid UTF-8 (byte 0xff) in a string`},
		{"lone surrogate", rep(`"name": "Zebra"`, `"name": "Z\ud800bra"`), &parse, `line 27: invalid JSON: lone surrogate \ud800 in a string`},
		{"number overflow in unknown field", rep(`"servers": {`, `"x": 1e400, "servers": {`), &parse, `line 5: invalid JSON: number 1e400 is not a finite double`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := Parse([]byte(tt.data))
			if err == nil {
				t.Fatalf("Parse accepted it: %+v", l)
			}
			if tt.as != nil && !errors.As(err, tt.as) {
				t.Errorf("error %T %q, want %T", err, err, tt.as)
			}
			if tt.msg != "" && err.Error() != tt.msg {
				t.Errorf("error\n got %s\nwant %s", err, tt.msg)
			}
			if h, ok := err.(interface{ Hints() []string }); !ok || !strings.Contains(strings.Join(h.Hints(), "\n"), "agentgate lock") {
				t.Errorf("error %T has no hint naming the fix", err)
			}
		})
	}
}

func TestParseToleratesLayout(t *testing.T) {
	// Whitespace, CRLF and member order carry no meaning.
	data := goldenFiles(t)["two-servers.lock"]
	l, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	compact, _ := json.Marshal(v) // Go sorts keys: a different member order
	crlf := bytes.ReplaceAll(data, []byte("\n"), []byte("\r\n"))
	for _, variant := range [][]byte{compact, crlf} {
		l2, err := Parse(variant)
		if err != nil {
			t.Fatalf("Parse(%q): %v", variant, err)
		}
		if !bytes.Equal(Format(l2), Format(l)) || !Compare(l, l2).Empty() {
			t.Errorf("layout changed the content")
		}
	}
}

func TestParseDuplicateAmongManyServers(t *testing.T) {
	servers := map[string]Server{}
	for i := range 40 {
		srv, _ := BuildServer(Version1, nil, BuildOptions{})
		servers[strings.Repeat("s", i+1)] = srv
	}
	data := string(Format(New(Version1, servers, testStamp, nil)))
	if _, err := Parse([]byte(data)); err != nil {
		t.Fatal(err)
	}
	// Rename the 31st server to the name of the 30th.
	dup := strings.Replace(data, `"`+strings.Repeat("s", 31)+`"`, `"`+strings.Repeat("s", 30)+`"`, 1)
	_, err := Parse([]byte(dup))
	var pe *ParseError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "duplicate member name") {
		t.Errorf("error %v", err)
	}
}

// generatedAtCases is the one table of what generatedAt may hold: RFC 3339
// date-time (section 5.6). Parse, the JSON Schema and validTime must agree
// with it, and every value the writer produces must be valid (issue #13
// bug 4: the reader refused t, z and leap seconds the schema accepts, and
// accepted a comma fraction the schema refuses).
var generatedAtCases = []struct {
	at    string
	valid bool
}{
	{"2026-08-03T12:00:00.000Z", true},
	{"2026-08-03T12:00:00Z", true},
	{"2026-08-03t12:00:00z", true},
	{"2026-08-03T12:00:00.123456789+02:00", true},
	{"2026-08-03T12:00:00-23:59", true},
	{"2024-02-29T00:00:00Z", true},
	{"2016-12-31T23:59:60Z", true},
	{"2016-12-31T23:59:60.5Z", true},
	{"2017-01-01T01:29:60+01:30", true}, // 23:59:60 UTC
	{"0000-01-01T00:00:00Z", true},
	{"2026-08-03T12:00:00,000Z", false},
	{"2026-08-03 12:00:00Z", false},
	{"2026-08-03T12:00:00", false},
	{"2026-08-03T12:00Z", false},
	{"2026-13-01T00:00:00Z", false},
	{"2026-00-01T00:00:00Z", false},
	{"2026-02-29T00:00:00Z", false},
	{"2026-04-31T00:00:00Z", false},
	{"2026-08-03T24:00:00Z", false},
	{"2026-08-03T12:60:00Z", false},
	{"2026-08-03T12:00:61Z", false},
	{"2026-08-03T12:00:60Z", false}, // a leap second not at 23:59 UTC
	{"2026-08-03T23:59:60+01:00", false},
	{"2026-08-03T12:00:00.Z", false},
	{"2026-08-03T12:00:00+0200", false},
	{"2026-08-03T12:00:00+24:00", false},
	{"2026-08-03T12:00:00+02:60", false},
	{"2026-08-03T12:00:00.000Zjunk", false},
	{"+2026-08-03T12:00:00Z", false},
	{"２026-08-03T12:00:00Z", false},
	{"yesterday", false},
	{"", false},
}

// TestGeneratedAt checks generatedAtCases against both readers (version 1
// and version 2) and both schemas, and the writer's stamps against them
// (the version 2 reader used time.Parse, which refused t, z and leap
// seconds and accepted a comma fraction).
func TestGeneratedAt(t *testing.T) {
	for _, f := range []struct {
		version int
		schema  string
		base    string
	}{
		{1, "../docs/spec/agentgate.lock.schema.json", string(goldenFiles(t)["two-servers.lock"])},
		{2, "../docs/spec/agentgate.lock.v2.schema.json", string(v2File(t, true))},
	} {
		c := jsonschema.NewCompiler()
		c.AssertFormat()
		sch, err := c.Compile(f.schema)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(f.base, `"2026-08-03T12:00:00.000Z"`) {
			t.Fatalf("version %d: the base file has another generatedAt:\n%s", f.version, f.base)
		}
		for _, tt := range generatedAtCases {
			data := strings.Replace(f.base, `"2026-08-03T12:00:00.000Z"`, strconv.Quote(tt.at), 1)
			if _, err := Parse([]byte(data)); (err == nil) != tt.valid {
				t.Errorf("version %d: Parse with generatedAt %q: %v, want valid=%v", f.version, tt.at, err, tt.valid)
			}
			v, err := jsonschema.UnmarshalJSON(strings.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			if err := sch.Validate(v); (err == nil) != tt.valid {
				t.Errorf("version %d: schema with generatedAt %q: %v, want valid=%v", f.version, tt.at, err, tt.valid)
			}
		}
		// The writer: UTC, milliseconds, valid for the reader and the schema.
		for _, at := range []time.Time{time.Unix(0, 0), time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
			time.Date(2026, 8, 3, 14, 0, 0, 1e6, time.FixedZone("x", 2*3600)), time.Now()} {
			st := Stamp{By: "agentgate@test", At: at}
			lf := New(Version1, nil, st, nil)
			if f.version == 2 {
				lf = New(Version2, nil, st, nil)
			}
			data := Format(lf)
			l, err := Parse(data)
			if err != nil {
				t.Fatalf("version %d: writer's stamp for %v: %v", f.version, at, err)
			}
			if got, want := l.GeneratedAt, at.UTC().Format("2006-01-02T15:04:05.000Z"); got != want {
				t.Errorf("version %d: generatedAt %q, want %q", f.version, got, want)
			}
			v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			if err := sch.Validate(v); err != nil {
				t.Errorf("version %d: the writer's file does not validate: %v\n%s", f.version, err, data)
			}
		}
	}
}

// TestVersionErrorNewer: a lockfileVersion that is a JSON integer above
// every version this build reads is newer (upgrade agentgate; lock --force
// refuses to replace it), however many digits it has; anything else is a
// damaged file.
func TestVersionErrorNewer(t *testing.T) {
	for found, newer := range map[string]bool{
		"3": true, "99": true, "99999999999999999999": true, "18446744073709551616": true,
		"2": false, "1": false, "0": false, "-3": false, "3.0": false, "1e1": false, "03": false,
		`"3"`: false, "": false, "true": false, "null": false,
	} {
		e := &VersionError{Found: found, Supported: []int{1, 2}}
		if e.Newer() != newer {
			t.Errorf("VersionError{Found: %s}.Newer() = %v, want %v", found, e.Newer(), newer)
		}
		if hint := strings.Join(e.Hints(), "\n"); strings.Contains(hint, "upgrade agentgate") != newer || strings.Contains(hint, "regenerate it with") == newer {
			t.Errorf("Found %s: hint %q", found, hint)
		}
	}
}
