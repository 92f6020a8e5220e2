package guard

import (
	"encoding/json"
	"testing"

	"github.com/agentgate/agentgate/mcp/capture"
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
			return // a case variant: capture.CheckMembersOf refuses it before parseEnvelope
		}
		if ref.JSONRPC != "2.0" || (ref.Method != nil) != env.hasMethod || (ref.Method != nil && *ref.Method != env.method) {
			t.Fatalf("parseEnvelope(%q) = %+v; encoding/json %+v", b, env, ref)
		}
		if env.id != nil && string(env.id) != "null" {
			k1, ok1 := capture.IDKey(env.id)
			k2, ok2 := capture.IDKey(ref.ID)
			if !ok1 || !ok2 || k1 != k2 {
				t.Fatalf("id %q / %q: keys %q %q", env.id, ref.ID, k1, k2)
			}
		}
	})
}

// FuzzErrorLine: every error guard answers with is one JSON-RPC 2.0
// response its own reader accepts (readMessage), whatever the message
// holds, and encoding/json reads back the message (each byte of invalid
// UTF-8 as U+FFFD), the code and the id.
func FuzzErrorLine(f *testing.F) {
	for _, s := range []string{"plain", `server "fake": x\y`, "server \"fake\U0001F600\"", "del \x7f, nul \x00, esc \x1b", "bad \xff\xfe utf-8", "<&> \u2028 \u202e é"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, msg string) {
		b := errorLine([]byte(`"id-1"`), codeInternal, msg)
		if _, bad := readMessage(b, "reply"); bad != nil {
			t.Fatalf("errorLine(%q) = %s: refused: %s", msg, b, bad.detail)
		}
		var got struct {
			JSONRPC string
			ID      string
			Error   struct {
				Code    int
				Message string
			}
		}
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		if want := string([]rune(msg)); got.JSONRPC != "2.0" || got.ID != "id-1" || got.Error.Code != codeInternal || got.Error.Message != want {
			t.Errorf("errorLine(%q) = %s, read back as %+v", msg, b, got)
		}
	})
}
