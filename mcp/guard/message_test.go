package guard

import (
	"encoding/json"
	"testing"
)

// FuzzParseEnvelope: parseEnvelope never panics, and what it accepts is
// read the same by encoding/json: the method, and the id by its key.
func FuzzParseEnvelope(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":"a","result":{"tools":[]}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{}}`,
		`[{"jsonrpc":"2.0","id":1,"result":{}}]`,
		`{"id":1,"result":{}}`,
		`{"jsonrpc":"2.0","id":1.0,"result":{},"error":{"code":1,"message":""}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) {
			return
		}
		env, err := parseEnvelope(b)
		if err != nil {
			return
		}
		var ref struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Method  *string         `json:"method"`
		}
		if json.Unmarshal(b, &ref) != nil {
			return // a case variant: capture.CheckMembers refuses it before parseEnvelope
		}
		if ref.JSONRPC != "2.0" || (ref.Method != nil) != env.hasMethod || (ref.Method != nil && *ref.Method != env.method) {
			t.Fatalf("parseEnvelope(%q) = %+v; encoding/json %+v", b, env, ref)
		}
		if env.id != nil && string(env.id) != "null" {
			k1, ok1 := idKey(env.id)
			k2, ok2 := idKey(ref.ID)
			if !ok1 || !ok2 || k1 != k2 {
				t.Fatalf("id %q / %q: keys %q %q", env.id, ref.ID, k1, k2)
			}
		}
	})
}

// TestIDKey: one key per value, whatever its spelling.
func TestIDKey(t *testing.T) {
	same := [][]string{{`1`, `1.0`, `1e0`, `10e-1`}, {`"1"`, `"\u0031"`}, {`-0`, `0`}}
	for _, group := range same {
		k0, _ := idKey([]byte(group[0]))
		for _, s := range group[1:] {
			if k, ok := idKey([]byte(s)); !ok || k != k0 {
				t.Errorf("idKey(%s) = %q, want %q", s, k, k0)
			}
		}
	}
	if a, _ := idKey([]byte(`1`)); a == func() string { k, _ := idKey([]byte(`"1"`)); return k }() {
		t.Error("the number 1 and the string \"1\" share a key")
	}
	for _, s := range []string{`true`, `null`, `{}`, ``} {
		if _, ok := idKey([]byte(s)); ok {
			t.Errorf("idKey(%s) accepted", s)
		}
	}
}

// FuzzIDKey: idKey's fast path (plain integers and strings, memoID) gives
// the key of the plain one (slowIDKey: encoding/json and math/big).
func FuzzIDKey(f *testing.F) {
	for _, s := range []string{`1`, `-0`, `0`, `-17`, `007`, `1.0`, `1e0`, `"a"`, `"\u0061"`, `""`, `"a b"`, `123456789012345678901234567890`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) {
			return
		}
		k, ok := idKey(b)
		sk, sok := slowIDKey(b)
		if k != sk || ok != sok {
			t.Fatalf("idKey(%q) = %q, %v; slowIDKey %q, %v", b, k, ok, sk, sok)
		}
	})
}
