package guard

import (
	"encoding/json"
	"testing"
)

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
