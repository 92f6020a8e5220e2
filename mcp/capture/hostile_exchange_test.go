package capture

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/agentgate/agentgate/internal/testing/fakeserver"
	"github.com/agentgate/agentgate/mcp/config"
)

// TestHostileSpoofedAnswers (issue #24, finding 12): a server that
// answers a request twice (the second tools/list answer adds a tool),
// answers an id agentgate never sent, or answers with the wrong id cannot
// be verified: a client may take either answer. Over stdio (the fake
// writes both answers at once) and streamable HTTP (two answers in one
// event stream; a JSON body with a wrong id) the capture fails with
// ErrProtocol naming the server and what it sent, and lists nothing;
// mcp-go alone took the first answer and reported the listing.
func TestHostileSpoofedAnswers(t *testing.T) {
	const tool = `{"name":"a","inputSchema":{"type":"object"}}`
	answer := func(id json.RawMessage, tools string) string {
		return `{"jsonrpc":"2.0","id":` + string(id) + `,"result":{"tools":[` + tools + `]}}`
	}
	for _, tc := range []struct {
		name string
		r    func(t *testing.T) config.Resolved
		want string
	}{
		{"stdio: answered twice", func(t *testing.T) config.Resolved {
			return fake(t, "s", "-tools", "testdata/tools.json", "-misbehave", fakeserver.MisbehaveAnswerTwice)
		}, `answered the request with id "agentgate-tools-list-1" (tools/list) a second time`},
		{"stdio: an answer to an id never sent", func(t *testing.T) config.Resolved {
			return fake(t, "s", "-tools", "testdata/tools.json", "-misbehave", fakeserver.MisbehaveUnsolicited)
		}, `sent an answer with id 9999, which agentgate never sent`},
		{"stdio: the wrong id", func(t *testing.T) config.Resolved {
			return fake(t, "s", "-tools", "testdata/tools.json", "-misbehave", fakeserver.MisbehaveWrongID)
		}, `sent an answer with id 4242, which agentgate never sent`},
		{"http: two answers in one event stream", func(t *testing.T) config.Resolved {
			srv := hostileListServer(t, func(id json.RawMessage) (string, []byte) {
				return "text/event-stream", []byte("event: message\ndata: " + answer(id, tool) + "\n\nevent: message\ndata: " + answer(id, tool+`,{"name":"added"}`) + "\n\n")
			})
			return config.Resolved{Server: config.Server{Name: "s", File: ".mcp.json", Transport: config.StreamableHTTP, URL: srv.URL + "/mcp"}}
		}, `(tools/list) a second time`},
		{"http: a JSON body with the wrong id", func(t *testing.T) config.Resolved {
			srv := hostileListServer(t, func(id json.RawMessage) (string, []byte) {
				return "application/json", []byte(answer(json.RawMessage(`"agentgate-tools-list-7"`), tool))
			})
			return config.Resolved{Server: config.Server{Name: "s", File: ".mcp.json", Transport: config.StreamableHTTP, URL: srv.URL + "/mcp"}}
		}, `sent an answer with id "agentgate-tools-list-7", which agentgate never sent`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := capture1(t, tc.r(t), Options{Timeout: 10 * time.Second, MaxPages: 5})
			if res.Err == nil || !errors.Is(res.Err, ErrProtocol) || !strings.Contains(res.Err.Error(), tc.want) ||
				!strings.Contains(res.Err.Error(), `server "s" (.mcp.json): `) || !strings.Contains(res.Err.Error(), "the server broke JSON-RPC") || res.Tools != nil {
				t.Fatalf("err %v (tools %d), want ErrProtocol naming the server, saying %q", res.Err, len(res.Tools), tc.want)
			}
		})
	}
}

// TestExchange: each request's answer passes once; a second answer, an
// answer to an id never sent and a batch are errors; a null id with an
// error, the server's own requests and notifications pass; an id sent
// again after its answer may be answered again; ids match by value.
func TestExchange(t *testing.T) {
	var x Exchange
	x.Sent([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize"}`))
	x.Sent([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	x.Sent([]byte(`{"jsonrpc":"2.0","id":"a","method":"tools/list"}`))
	for _, ok := range []string{
		`{"jsonrpc":"2.0","id":1.0,"result":{}}`,
		`{"jsonrpc":"2.0","id":"\u0061","result":{"tools":[]}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`,
		`{"jsonrpc":"2.0","id":7,"method":"roots/list"}`,
		`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`,
	} {
		if err := x.Received([]byte(ok)); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	if x.Err() != nil {
		t.Fatal(x.Err())
	}
	for _, bad := range []string{
		`{"jsonrpc":"2.0","id":"a","result":{"tools":[{"name":"added"}]}}`,
		`{"jsonrpc":"2.0","id":2,"result":{}}`,
		`{"jsonrpc":"2.0","id":true,"result":{}}`,
		`{"jsonrpc":"2.0","id":null,"result":{}}`,
		`[{"jsonrpc":"2.0","id":"a","result":{}}]`,
	} {
		if err := x.Received([]byte(bad)); !errors.Is(err, ErrBrokenExchange) {
			t.Errorf("%s: %v, want ErrBrokenExchange", bad, err)
		}
	}
	if x.Err() == nil || !strings.Contains(x.Err().Error(), `"a" (tools/list) a second time`) {
		t.Errorf("Err() = %v, want the first error", x.Err())
	}
	var y Exchange
	y.Sent([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize"}`))
	y.Received([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`))
	y.Sent([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize"}`)) // a second client counting from 1 again
	if err := y.Received([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`)); err != nil {
		t.Errorf("an id sent again was answered again: %v", err)
	}
}
