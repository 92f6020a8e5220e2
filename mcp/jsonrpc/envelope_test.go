package jsonrpc

import (
	"encoding/json"
	"testing"
)

// FuzzParseEnvelope: ParseEnvelope never panics, and what it accepts is
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
		env, err := ParseEnvelope(b)
		if err != nil {
			return
		}
		var ref struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Method  *string         `json:"method"`
		}
		if json.Unmarshal(b, &ref) != nil {
			return // a case variant: CheckMembersOf refuses it before ParseEnvelope
		}
		if ref.JSONRPC != "2.0" || (ref.Method != nil) != env.HasMethod || (ref.Method != nil && *ref.Method != env.Method) {
			t.Fatalf("ParseEnvelope(%q) = %+v; encoding/json %+v", b, env, ref)
		}
		if env.ID != nil && string(env.ID) != "null" {
			k1, ok1 := IDKey(env.ID)
			k2, ok2 := IDKey(ref.ID)
			if !ok1 || !ok2 || k1 != k2 {
				t.Fatalf("id %q / %q: keys %q %q", env.ID, ref.ID, k1, k2)
			}
		}
	})
}
