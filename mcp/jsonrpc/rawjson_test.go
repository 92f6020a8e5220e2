package jsonrpc

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// FuzzObjectMembers holds ObjectMembers to encoding/json: every valid JSON
// object is split into the members a json.Decoder reads, in order, with
// the same names and values; anything else is refused or at least never
// panics; ArrayElements likewise for arrays.
func FuzzObjectMembers(f *testing.F) {
	for _, s := range []string{`{}`, ` {"a":1, "b" : [1,{"c":"}"}] ,"d\u0041":"x"} `, `{"a":}`, `[1,2]`, `{"a":1}x`, `{"a":"\"",`, `[ {"a":[]} , "x" ]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		ms, ok := ObjectMembers(b)
		elems, aok := ArrayElements(bytes.TrimSpace(b))
		if !json.Valid(b) {
			return
		}
		t0 := bytes.TrimSpace(b)
		if t0[0] == '[' {
			var ref []json.RawMessage
			if err := json.Unmarshal(b, &ref); err != nil || !aok || len(ref) != len(elems) {
				t.Fatalf("ArrayElements(%q) = %d, %v; encoding/json %d", b, len(elems), aok, len(ref))
			}
			for i := range ref {
				if !bytes.Equal(compact(t, ref[i]), compact(t, elems[i])) {
					t.Fatalf("element %d: %q, want %q", i, elems[i], ref[i])
				}
			}
		}
		if t0[0] != '{' {
			if ok {
				t.Fatalf("ObjectMembers(%q) accepted a non-object", b)
			}
			return
		}
		if !ok {
			t.Fatalf("ObjectMembers(%q) refused a valid object", b)
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.Token()
		i := 0
		for ; dec.More(); i++ {
			tok, err := dec.Token()
			if err != nil {
				t.Fatal(err)
			}
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				t.Fatal(err)
			}
			if i >= len(ms) {
				t.Fatalf("ObjectMembers(%q): %d members, encoding/json more", b, len(ms))
			}
			m := ms[i]
			if utf8.Valid(b[m.KeyStart:m.Start]) && tok.(string) != m.Name {
				t.Fatalf("member %d: name %q, want %q", i, m.Name, tok)
			}
			if !bytes.Equal(compact(t, raw), compact(t, b[m.Start:m.End])) {
				t.Fatalf("member %d: value %q, want %q", i, b[m.Start:m.End], raw)
			}
			if b[m.KeyStart] != '"' {
				t.Fatalf("member %d: KeyStart %d is not a quote", i, m.KeyStart)
			}
		}
		if i != len(ms) {
			t.Fatalf("ObjectMembers(%q): %d members, encoding/json %d", b, len(ms), i)
		}
	})
}

func compact(t *testing.T, b []byte) []byte {
	var out bytes.Buffer
	if err := json.Compact(&out, b); err != nil {
		t.Fatalf("compact %q: %v", b, err)
	}
	return out.Bytes()
}

// TestIDKey: one key per value, whatever its spelling.
func TestIDKey(t *testing.T) {
	same := [][]string{{`1`, `1.0`, `1e0`, `10e-1`}, {`"1"`, `"\u0031"`}, {`-0`, `0`}}
	for _, group := range same {
		k0, _ := IDKey([]byte(group[0]))
		for _, s := range group[1:] {
			if k, ok := IDKey([]byte(s)); !ok || k != k0 {
				t.Errorf("IDKey(%s) = %q, want %q", s, k, k0)
			}
		}
	}
	if a, _ := IDKey([]byte(`1`)); a == func() string { k, _ := IDKey([]byte(`"1"`)); return k }() {
		t.Error("the number 1 and the string \"1\" share a key")
	}
	for _, s := range []string{`true`, `null`, `{}`, ``} {
		if _, ok := IDKey([]byte(s)); ok {
			t.Errorf("IDKey(%s) accepted", s)
		}
	}
}

// FuzzIDKey: IDKey's fast path (plain integers and strings, PlainID) gives
// the key of the plain one (slowIDKey: encoding/json and math/big).
func FuzzIDKey(f *testing.F) {
	for _, s := range []string{`1`, `-0`, `0`, `-17`, `007`, `1.0`, `1e0`, `"a"`, `"\u0061"`, `""`, `"a b"`, `123456789012345678901234567890`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) {
			return
		}
		k, ok := IDKey(b)
		sk, sok := slowIDKey(b)
		if k != sk || ok != sok {
			t.Fatalf("IDKey(%q) = %q, %v; slowIDKey %q, %v", b, k, ok, sk, sok)
		}
	})
}
