package capture

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/agentgate/agentgate/internal/testing/fakeserver"
	"github.com/agentgate/agentgate/mcp/config"
	"github.com/agentgate/agentgate/mcp/wire"
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
			res := capture1(t, tc.r(t), wire.Options{Timeout: 10 * time.Second, MaxPages: 5})
			if res.Err == nil || !errors.Is(res.Err, wire.ErrProtocol) || !strings.Contains(res.Err.Error(), tc.want) ||
				!strings.Contains(res.Err.Error(), `server "s" (.mcp.json): `) || !strings.Contains(res.Err.Error(), "the server broke JSON-RPC") || res.Tools != nil {
				t.Fatalf("err %v (tools %d), want wire.ErrProtocol naming the server, saying %q", res.Err, len(res.Tools), tc.want)
			}
		})
	}
}
