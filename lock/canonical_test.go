package lock

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gowebpki/jcs"
)

// sha is the test's own SHA-256, independent of sha256Hex.
func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func TestWellKnownHashes(t *testing.T) {
	// Published values, typed here: SHA-256 of "", "{}" and "[]".
	for in, want := range map[string]string{
		"":   "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
		"{}": "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a",
		"[]": "4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945",
	} {
		if got := sha(in); got != want {
			t.Errorf("sha256(%q) = %s, want %s", in, got, want)
		}
		if got := sha256Hex([]byte(in)); got != want {
			t.Errorf("sha256Hex(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestRFC8785(t *testing.T) {
	files, err := filepath.Glob("testdata/rfc8785/input/*.json")
	if err != nil || len(files) < 6 {
		t.Fatalf("RFC 8785 test data missing: %v %v", files, err)
	}
	for _, in := range files {
		name := filepath.Base(in)
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(filepath.Join("testdata/rfc8785/output", name))
			if err != nil {
				t.Fatal(err)
			}
			got, err := Canonicalize(raw)
			if err != nil {
				t.Fatalf("Canonicalize: %v", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("Canonicalize:\n got %q\nwant %q", got, want)
			}
		})
	}
}

func TestCanonicalizeExamples(t *testing.T) {
	// Expected outputs typed by hand from the rules in canonical.go.
	tests := []struct{ in, want string }{
		{`{"b":1,"a":{"d":[3,{"z":1,"y":2}],"c":"<&>"}}`, `{"a":{"c":"<&>","d":[3,{"y":2,"z":1}]},"b":1}`},
		{"{ \"a\" : [ 1 , 2 ] ,\n\t\"b\" : null }\r\n", `{"a":[1,2],"b":null}`},
		{`[1.0, 1e2, 1e21, -0, 0.000001, 1E-7, 100000000000000000000]`, `[1,100,1e+21,0,0.000001,1e-7,100000000000000000000]`},
		{`[9007199254740993]`, `[9007199254740992]`},
		{`["\u0041\/\u00e9\u2028", "\u001F\u000a\u0000"]`, "[\"A/\u00e9\u2028\",\"\\u001f\\n\\u0000\"]"},
		{`{"\u00e9":1,"e":2,"\ud83d\ude00":3,"\ufb01":4}`, "{\"e\":2,\"\u00e9\":1,\"\U0001F600\":3,\"\ufb01\":4}"},
		{"{\"\ufb01\":1,\"\U0001F600\":2}", "{\"\U0001F600\":2,\"\ufb01\":1}"}, // UTF-16 order, not UTF-8
		{`{"a":{"c":1,"b":2},"A":[{"y":1,"x":2}]}`, `{"A":[{"x":2,"y":1}],"a":{"b":2,"c":1}}`},
		{` "x" `, `"x"`},
		{`true`, `true`},
		{`[]`, `[]`},
		{`{}`, `{}`},
		{`[123456789012345, -123456789012345, 0, -1]`, `[123456789012345,-123456789012345,0,-1]`},
		{`[1234567890123456]`, `[1234567890123456]`},
		{"\"tab\\tq\\\"bs\\\\\\b\\f\\r\"", "\"tab\\tq\\\"bs\\\\\\b\\f\\r\""},
	}
	for _, tt := range tests {
		got, err := Canonicalize([]byte(tt.in))
		if err != nil {
			t.Errorf("Canonicalize(%q): %v", tt.in, err)
			continue
		}
		if string(got) != tt.want {
			t.Errorf("Canonicalize(%q)\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}
}

func TestCanonicalizeRejects(t *testing.T) {
	// Every input canonical-json.md says must be rejected, and a few more.
	tests := []struct{ name, in, msg string }{
		{"duplicate name", `{"a":1,"a":2}`, `duplicate member name`},
		{"duplicate after unescaping", `{"a":1,"\u0061":2}`, `duplicate member name`},
		{"duplicate nested", `[{"x":{"b":1,"b":1}}]`, `duplicate member name`},
		{"lone high surrogate", `["\ud800"]`, `surrogate`},
		{"lone low surrogate", `["\udc00"]`, `surrogate`},
		{"high surrogate then letter", `["\ud800\u0041"]`, `surrogate`},
		{"raw invalid UTF-8", "\x5b\x22\xff\x22\x5d", `invalid utf-8`},
		{"UTF-8 encoded surrogate", "[\"\xed\xa0\x80\"]", `invalid utf-8`},
		{"overlong UTF-8", "[\"\xc0\x80\"]", `invalid utf-8`},
		{"number overflow", `[1e400]`, `not a finite double`},
		{"negative overflow", `[-1e400]`, `not a finite double`},
		{"NaN", `[NaN]`, `unexpected 'n', want a value`},
		{"Infinity", `[Infinity]`, `unexpected 'i', want a value`},
		{"leading zero", `[01]`, `invalid number`},
		{"plus sign", `[+1]`, `unexpected '+', want a value`},
		{"trailing comma", `[1,]`, ``},
		{"trailing comma in object", `{"a":1,}`, ``},
		{"two texts", `{} {}`, `unexpected data after the json text`},
		{"empty", ``, `empty input`},
		{"only whitespace", " \n", `unexpected end of file`},
		{"BOM", "\xef\xbb\xbf{}", `byte order mark`},
		{"raw control character", "[\"\x01\"]", ``},
		{"single quotes", `['a']`, ``},
		{"unquoted key", `{a:1}`, ``},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Canonicalize([]byte(tt.in))
			if err == nil {
				t.Fatalf("Canonicalize(%q) = %q, want an error", tt.in, got)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "invalid JSON: ") || !strings.Contains(strings.ToLower(msg), tt.msg) {
				t.Errorf("error %q, want it to start with %q and contain %q", msg, "invalid JSON: ", tt.msg)
			}
			if _, err := HashInputSchema(Version1, []byte(tt.in)); err == nil && tt.in != "" {
				t.Errorf("HashInputSchema(Version1, %q) succeeded", tt.in)
			}
		})
	}
}

// TestFastPathAgreesWithJCS checks the fast path on inputs it accepts and on
// ones it must hand to jcs.
func TestFastPathAgreesWithJCS(t *testing.T) {
	inputs := []string{
		`{"b":{"d":1,"c":[{"f":true,"e":false}]},"a":null}`,
		`{"z":1,"y":2,"x":3,"w":4,"v":{"b":1,"a":2}}`,
		`{"properties":{"path":{"type":"string","description":"Line\nbreak \"q\" \\ \u001f"}}}`,
		"{\"\u00e9\":1,\"e\":2}",
		"{\"\ufb01\":1,\"\U0001F600\":2}",
		`[-0]`, `[1.5]`, `[1e2]`, `[1234567890123456]`, `["\/"]`, `["\u00e9"]`, `["\u000A"]`, `["\u001F"]`,
		`{"a":1,"a":1}`, `{"b":1,"a":1,"b":1}`,
	}
	for _, in := range inputs {
		want, werr := jcs.Transform([]byte(in))
		got, ok := fastCanonical(nil, []byte(in))
		if ok && (werr != nil || !bytes.Equal(got, want)) {
			t.Errorf("fast path on %q = %q, jcs = %q, %v", in, got, want, werr)
		}
		full, err := Canonicalize([]byte(in))
		if (err == nil) != (werr == nil) || !bytes.Equal(full, want) {
			t.Errorf("Canonicalize(%q) = %q, %v; jcs = %q, %v", in, full, err, want, werr)
		}
	}
	// The fast path must take the common case, or it is no use.
	if _, ok := fastCanonical(nil, []byte(inputs[2])); !ok {
		t.Errorf("fast path refused %q", inputs[2])
	}
}

// FuzzCanonicalize checks that Canonicalize never panics, that its output
// is a fixed point, that it agrees with jcs byte for byte, and that the fast
// path never accepts what jcs rejects.
func FuzzCanonicalize(f *testing.F) {
	for _, s := range []string{`{"b":1,"a":[1,2,{"d":null,"c":true}]}`, `["\u00e9\ud83d\ude00"]`, `[1e21,-0,0.1]`, `{"a":1,"\u0061":2}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		want, werr := jcs.Transform(in)
		got, err := Canonicalize(in)
		if (err == nil) != (werr == nil) {
			t.Fatalf("Canonicalize(%q) error %v, jcs error %v", in, err, werr)
		}
		if err != nil {
			return
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("Canonicalize(%q) = %q, jcs = %q", in, got, want)
		}
		again, err := Canonicalize(got)
		if err != nil || !bytes.Equal(again, got) {
			t.Fatalf("not idempotent: %q -> %q, %v", got, again, err)
		}
		checkHashes(t, in, want)
	})
}

// checkHashes checks that the hashing paths, which stream the canonical form
// into SHA-256 instead of building it, agree with sha256 of want, the jcs
// form of in: HashInputSchema of in, and the inputSchemaHash of a tool
// whose inputSchema is in (DecodeTool hashes it while validating).
func checkHashes(t *testing.T, in, want []byte) {
	t.Helper()
	wantHash := sha(string(want))
	if string(want) == "null" {
		wantHash = sha("{}")
	}
	if got, err := HashInputSchema(Version1, in); err != nil || got != wantHash {
		t.Fatalf("HashInputSchema(Version1, %q) = %s, %v; want %s (sha256 of %q)", in, got, err, wantHash, want)
	}
	tool := append(append([]byte(`{"name":"t","inputSchema":`), in...), '}')
	d, err := DecodeTool(Version1, tool)
	if err != nil {
		t.Fatalf("DecodeTool(Version1, %q): %v", tool, err)
	}
	srv, err := BuildServer(Version1, []ToolDef{d}, BuildOptions{})
	if err != nil {
		t.Fatalf("BuildServer for %q: %v", tool, err)
	}
	if got := srv.Tools[0].InputSchemaHash; got != wantHash {
		t.Fatalf("inputSchemaHash of %q = %s, want %s (sha256 of %q)", tool, got, wantHash, want)
	}
}

func TestPlain8(t *testing.T) {
	// Exhaustive over one position and a few backgrounds: plain8 must agree
	// with plainByte for every byte value anywhere in the word.
	for _, bg := range []byte{'a', ' ', '~', '0'} {
		for pos := range 8 {
			for c := range 256 {
				w := bytes.Repeat([]byte{bg}, 8)
				w[pos] = byte(c)
				x := uint64(0)
				for i := 7; i >= 0; i-- {
					x = x<<8 | uint64(w[i])
				}
				if got, want := plain8(x), plainByte[c]; got != want {
					t.Fatalf("plain8(%q) = %v, want %v", w, got, want)
				}
			}
		}
	}
}
