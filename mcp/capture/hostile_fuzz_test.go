package capture

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/agentgate/agentgate/mcp/config"
	"github.com/agentgate/agentgate/mcp/wire"
)

// hostileSecret is a header value no output may contain.
const hostileSecret = "hostile-fuzz-secret-7f3a"

// hostileListServer is a minimal streamable-HTTP MCP server that answers
// initialize properly and every tools/list request with reply(id).
func hostileListServer(tb testing.TB, reply func(id json.RawMessage) (contentType string, body []byte)) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		b, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(b, &m)
		switch {
		case len(m.ID) == 0:
			w.WriteHeader(http.StatusAccepted)
		case m.Method == "initialize":
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"hostile","version":"1"}}}`)
		case m.Method == "tools/list":
			ct, body := reply(m.ID)
			w.Header().Set("Content-Type", ct)
			w.Write(body)
		default:
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"error":{"code":-32601,"message":"no"}}`)
		}
	}))
	tb.Cleanup(srv.Close)
	return srv
}

// FuzzToolsListReply feeds arbitrary bytes to capture's tools/list decoding,
// through a real streamable-HTTP exchange: the first byte picks whether the
// bytes are the JSON-RPC result member (0), the whole JSON body (1) or the
// whole event-stream body (2). Properties: no panic; the capture ends (a
// bounded number of pages, within the timeout); on success every tool is
// one valid JSON value; on failure the error is a *wire.Error naming
// the server, its file and a stage, and no secret header value appears in
// it. Seeds: testdata/fuzz/FuzzToolsListReply and the cases below.
func FuzzToolsListReply(f *testing.F) {
	for _, s := range []string{
		"\x00" + `{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}`,
		"\x00" + `{"tools":[],"nextCursor":"again"}`,
		"\x00" + `{"tools":[{"name":"a"}],"nextCursor":null}`,
		"\x00" + `{"tools":null}`,
		"\x00" + `{"tools":{"name":"a"}}`,
		"\x00" + `{"tools":[1,"x",null,[]],"nextCursor":7}`,
		"\x00" + `{"tools":[{"name":"\ud800"}]}`,
		"\x00" + "{\"tools\":[{\"name\":\"\xff\"}]}",
		"\x00" + `[]`,
		"\x00" + `{"tools":[{"name":"a"}`,
		"\x01" + `{"jsonrpc":"2.0","id":"agentgate-tools-list-1","result":{"tools":[]}}`,
		"\x01" + `{"jsonrpc":"2.0","id":"agentgate-tools-list-1","error":{"code":-1,"message":"` + "\x1b[31m" + `"}}`,
		"\x01" + `{"jsonrpc":"2.0","id":"other","result":{"tools":[]}}`,
		"\x01" + `not json at all`,
		"\x02" + "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"agentgate-tools-list-1\",\"result\":{\"tools\":[]}}\n\n",
		"\x02" + "data: {\"jsonrpc\":\"2.0\"\n\n",
		"\x02" + "retry: 1\n\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		mode, payload := data[0]%3, data[1:]
		srv := hostileListServer(t, func(id json.RawMessage) (string, []byte) {
			switch mode {
			case 0:
				return "application/json", []byte(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":` + string(payload) + `}`)
			case 1:
				return "application/json", payload
			default:
				return "text/event-stream", payload
			}
		})
		r := config.Resolved{
			Server: config.Server{Name: "fuzzed", File: ".mcp.json", Transport: config.StreamableHTTP,
				URL: srv.URL + "/mcp", Headers: map[string]string{"Authorization": "Bearer " + hostileSecret}},
			Secrets: []string{"Bearer " + hostileSecret, hostileSecret},
		}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		res := CaptureAll(ctx, []config.Resolved{r}, wire.Options{Timeout: 5 * time.Second, MaxPages: 5, MaxResponseBytes: 1 << 20})[0]
		if res.Server != "fuzzed" {
			t.Fatalf("result for %q", res.Server)
		}
		if res.Err == nil {
			for i, tool := range res.Tools {
				if !json.Valid(tool) {
					t.Fatalf("tool %d is not one JSON value: %q", i, tool)
				}
			}
			return
		}
		var ce *wire.Error
		if !errors.As(res.Err, &ce) || ce.Server != "fuzzed" || ce.File != ".mcp.json" || ce.Stage == "" {
			t.Fatalf("error is not a *wire.Error naming server, file and stage: %#v", res.Err)
		}
		if strings.Contains(res.Err.Error(), hostileSecret) {
			t.Fatalf("error shows the secret: %v", res.Err)
		}
	})
}

// TestHostileToolsListReplies pins what the decoder does with the fuzz
// seeds' shapes: which replies are accepted and which sentinel the others
// unwrap to.
func TestHostileToolsListReplies(t *testing.T) {
	for _, tc := range []struct {
		name, result string
		tools        int
		want         error // nil: accepted
	}{
		{"one tool", `{"tools":[{"name":"a"}]}`, 1, nil},
		{"null cursor ends", `{"tools":[{"name":"a"}],"nextCursor":null}`, 1, nil},
		{"empty cursor ends", `{"tools":[],"nextCursor":""}`, 0, nil},
		{"repeated cursor", `{"tools":[],"nextCursor":"again"}`, 0, wire.ErrPagination},
		{"tools null", `{"tools":null}`, 0, wire.ErrProtocol},
		{"tools missing", `{}`, 0, wire.ErrProtocol},
		{"tools an object", `{"tools":{"name":"a"}}`, 0, wire.ErrProtocol},
		{"cursor a number", `{"tools":[],"nextCursor":7}`, 0, wire.ErrProtocol},
		{"result an array", `[]`, 0, wire.ErrProtocol},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := hostileListServer(t, func(id json.RawMessage) (string, []byte) {
				return "application/json", []byte(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":` + tc.result + `}`)
			})
			r := config.Resolved{Server: config.Server{Name: "s", File: ".mcp.json", Transport: config.StreamableHTTP, URL: srv.URL + "/mcp"}}
			res := CaptureAll(context.Background(), []config.Resolved{r}, wire.Options{Timeout: 10 * time.Second, MaxPages: 5})[0]
			if tc.want == nil {
				if res.Err != nil || len(res.Tools) != tc.tools {
					t.Fatalf("err %v, %d tools; want %d tools", res.Err, len(res.Tools), tc.tools)
				}
				return
			}
			if !errors.Is(res.Err, tc.want) || !strings.Contains(res.Err.Error(), `server "s" (.mcp.json): tools/list: page `) {
				t.Fatalf("err %v, want %v naming the server, stage and page", res.Err, tc.want)
			}
		})
	}
}

// TestHostileAmbiguousReplies: a reply that names a member twice, or two
// members that differ only in case where encoding/json reads them, is
// refused over streamable HTTP (JSON and event-stream bodies), whatever
// the stage, before mcp-go reads it (issue #17 item 4, #13 bug 1); a tool
// schema with the honest properties "userId" and "userID" is accepted.
func TestHostileAmbiguousReplies(t *testing.T) {
	const tool = `{"name":"a","inputSchema":{"type":"object"}}`
	env := func(id json.RawMessage, result string) string {
		return `{"jsonrpc":"2.0","id":` + string(id) + `,"result":` + result + `}`
	}
	for _, tc := range []struct {
		name  string
		reply func(id json.RawMessage) (string, []byte)
		want  string // "" accepted
	}{
		{"repeated tools", func(id json.RawMessage) (string, []byte) {
			return "application/json", []byte(env(id, `{"tools":[`+tool+`],"tools":[]}`))
		}, `names the member "tools" twice`},
		{"tools and Tools", func(id json.RawMessage) (string, []byte) {
			return "application/json", []byte(env(id, `{"tools":[`+tool+`],"Tools":[]}`))
		}, `has both "tools" and "Tools"`},
		{"escaped repeat", func(id json.RawMessage) (string, []byte) {
			return "application/json", []byte(env(id, `{"tools":[`+tool+`],"tool\u0073":[]}`))
		}, `names the member "tools" twice`},
		{"Unicode case fold (long s)", func(id json.RawMessage) (string, []byte) {
			return "application/json", []byte(env(id, `{"tools":[`+tool+`],"tool\u017f":[]}`))
		}, `has both "tools" and "toolſ"`},
		{"Tools alone", func(id json.RawMessage) (string, []byte) {
			return "application/json", []byte(env(id, `{"Tools":[`+tool+`]}`))
		}, `has "Tools", a case variant of "tools"`},
		{"result and RESULT", func(id json.RawMessage) (string, []byte) {
			return "application/json", []byte(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":{"tools":[` + tool + `]},"RESULT":{"tools":[]}}`)
		}, `has both "result" and "RESULT"`},
		{"repeat inside a tool", func(id json.RawMessage) (string, []byte) {
			return "application/json", []byte(env(id, `{"tools":[{"name":"a","description":"x","description":"y"}]}`))
		}, `names the member "description" twice`},
		{"event stream", func(id json.RawMessage) (string, []byte) {
			return "text/event-stream", []byte("event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":" + string(id) + ",\"result\":{\"tools\":[" + tool + "],\ndata: \"Tools\":[]}}\n\n")
		}, `has both "tools" and "Tools"`},
		{"event stream without the final blank line", func(id json.RawMessage) (string, []byte) {
			return "text/event-stream", []byte("data: " + env(id, `{"tools":[`+tool+`],"tools":[]}`) + "\n")
		}, `names the member "tools" twice`},
		{"honest userId and userID", func(id json.RawMessage) (string, []byte) {
			return "application/json", []byte(env(id, `{"tools":[{"name":"a","inputSchema":{"type":"object","properties":{"userId":{},"userID":{}}}}]}`))
		}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := hostileListServer(t, tc.reply)
			r := config.Resolved{Server: config.Server{Name: "s", File: ".mcp.json", Transport: config.StreamableHTTP, URL: srv.URL + "/mcp"}}
			res := CaptureAll(context.Background(), []config.Resolved{r}, wire.Options{Timeout: 10 * time.Second, MaxPages: 5})[0]
			if tc.want == "" {
				if res.Err != nil || len(res.Tools) != 1 {
					t.Fatalf("err %v, %d tools; want 1 tool", res.Err, len(res.Tools))
				}
				return
			}
			if res.Err == nil || !errors.Is(res.Err, wire.ErrProtocol) || !strings.Contains(res.Err.Error(), tc.want) ||
				!strings.Contains(res.Err.Error(), `server "s" (.mcp.json): tools/list: `) || res.Tools != nil {
				t.Fatalf("err %v (tools %d), want wire.ErrProtocol at tools/list saying %q", res.Err, len(res.Tools), tc.want)
			}
		})
	}
}

// TestHostileAmbiguousInitialize: the same rule for the initialize reply,
// which mcp-go decodes.
func TestHostileAmbiguousInitialize(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m struct {
			ID json.RawMessage `json:"id"`
		}
		b, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(b, &m)
		if len(m.ID) == 0 {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{"protocolVersion":"2025-06-18","protocolVersion":"1999-01-01","capabilities":{},"serverInfo":{"name":"x","version":"1"}}}`)
	}))
	t.Cleanup(srv.Close)
	r := config.Resolved{Server: config.Server{Name: "s", File: ".mcp.json", Transport: config.StreamableHTTP, URL: srv.URL + "/mcp"}}
	res := CaptureAll(context.Background(), []config.Resolved{r}, wire.Options{Timeout: 10 * time.Second})[0]
	if !errors.Is(res.Err, wire.ErrProtocol) || !strings.Contains(res.Err.Error(), `initialize: ambiguous JSON-RPC message: the reply's "result" object names the member "protocolVersion" twice`) {
		t.Fatalf("err %v", res.Err)
	}
}
