package guard

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentgate/agentgate/lock"
)

// TestClientMessagesRefused (issue #24, findings 6 and 7): a message of
// the client's that guard's one reader refuses (readMessage: the rules of
// the server's messages) is answered with a JSON-RPC error and never
// reaches the server. Each case would have the server run "danger", a
// tool agentgate.lock does not pin: guard reads the first copy of a
// repeated member where Python and JavaScript servers read the last,
// cannot match an odd id with its answer, and does not look inside a
// batch or a line Python's json module reads but JSON does not allow.
// The fake server logs every method it receives: no tools/call may be
// among them until the last, valid call, which shows that the log would
// show one.
func TestClientMessagesRefused(t *testing.T) {
	const danger = `"params":{"name":"danger","arguments":{"text":"x"}}`
	for _, tc := range []struct {
		name, msg, want string // want: the start of the answer
	}{
		{"two names in params", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","name":"danger"}}`, `{"jsonrpc":"2.0","id":5,"error":{"code":-32600,`},
		{"an escaped second name", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","na\u006de":"danger"}}`, `{"jsonrpc":"2.0","id":5,"error":{"code":-32600,`},
		{"a case variant of name", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","Name":"danger"}}`, `{"jsonrpc":"2.0","id":5,"error":{"code":-32600,`},
		{"two params", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo"},` + danger + `}`, `{"jsonrpc":"2.0","id":5,"error":{"code":-32600,`},
		{"two methods", `{"jsonrpc":"2.0","id":5,"method":"ping","method":"tools/call",` + danger + `}`, `{"jsonrpc":"2.0","id":5,"error":{"code":-32600,`},
		{"two ids", `{"jsonrpc":"2.0","id":5,"id":6,"method":"tools/call",` + danger + `}`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,`},
		{"NaN, which Python reads", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"danger","arguments":{"n":NaN}}}`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,`},
		{"id null", `{"jsonrpc":"2.0","id":null,"method":"tools/call",` + danger + `}`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,`},
		{"id object", `{"jsonrpc":"2.0","id":{"n":5},"method":"tools/call",` + danger + `}`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,`},
		{"id true", `{"jsonrpc":"2.0","id":true,"method":"tools/call",` + danger + `}`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,`},
		{"id array", `{"jsonrpc":"2.0","id":[5],"method":"tools/call",` + danger + `}`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,`},
		{"id a fraction", `{"jsonrpc":"2.0","id":5.5,"method":"tools/call",` + danger + `}`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,`},
		{"id an exponent", `{"jsonrpc":"2.0","id":5e0,"method":"tools/call",` + danger + `}`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,`},
		{"id past 2^53", `{"jsonrpc":"2.0","id":9007199254740993,"method":"tools/call",` + danger + `}`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,`},
		{"a batch", `[{"jsonrpc":"2.0","id":5,"method":"tools/call",` + danger + `}]`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,`},
		{"no jsonrpc", `{"id":5,"method":"tools/call",` + danger + `}`, `{"jsonrpc":"2.0","id":5,"error":{"code":-32600,`},
		{"params an array", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":["danger"]}`, `{"jsonrpc":"2.0","id":5,"error":{"code":-32600,`},
		{"name not a string", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":["danger"]}}`, `{"jsonrpc":"2.0","id":5,"error":{"code":-32602,`},
		{"params null", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":null}`, `{"jsonrpc":"2.0","id":5,"error":{"code":-32602,`},
		{"no name", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"arguments":{"name":"danger"}}}`, `{"jsonrpc":"2.0","id":5,"error":{"code":-32602,`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			logFile := filepath.Join(t.TempDir(), "received")
			c := startFake(t, Options{Pins: lockFor(t, lock.Version1, loadTools(t))}, "-tools", toolsFile(t), "-log", logFile)
			c.initialize()
			c.send(tc.msg)
			if got := readWithin(c, 5*time.Second); !strings.HasPrefix(got, tc.want) || !strings.Contains(got, "it was not") {
				t.Errorf("answered %s, want %s...", got, tc.want)
			}
			c.send(`{"jsonrpc":"2.0","id":7,"method":"ping"}`)
			for got := ""; !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":7,`); {
				if got = readWithin(c, 5*time.Second); got == "" {
					t.Fatalf("no answer to a ping; log:\n%s", c.log.String())
				}
			}
			if b, _ := os.ReadFile(logFile); strings.Contains(string(b), "tools/call") {
				t.Errorf("the server received a tools/call:\n%s", b)
			}
			if !strings.Contains(c.log.String(), "not forwarded") {
				t.Errorf("nothing logged:\n%s", c.log.String())
			}
			if r := c.request("8", "tools/call", `{"name":"echo","arguments":{"text":"x"}}`); !strings.Contains(r, `"result"`) {
				t.Errorf("a valid call after it was answered %s", r)
			}
			if b, _ := os.ReadFile(logFile); !strings.Contains(string(b), "tools/call") {
				t.Errorf("the server's log shows no tools/call even for a valid one:\n%s", b)
			}
			if err := c.close(); err != nil {
				t.Error(err)
			}
		})
	}
}

// readWithin is c.read, or "" when no line came within d (the reading
// goes on in the background).
func readWithin(c *client, d time.Duration) string {
	got := make(chan string, 1)
	go func() { got <- c.read() }()
	select {
	case s := <-got:
		return s
	case <-time.After(d):
		return ""
	}
}
