package capture

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentgate/agentgate/mcp/config"
	"github.com/agentgate/agentgate/mcp/wire"
)

// capServerEnv makes the test binary a scripted stdio server (capServerMain)
// that writes what it received to the file the variable names.
const capServerEnv = "AGENTGATE_TEST_CAPSERVER_LOG"

// capServerMain is an edge-case server for client-capabilities: after
// notifications/initialized it sends roots/list, sampling/createMessage,
// elicitation/create and ping to the client, and answers tools/list only
// once the client answered all four (or with an error after 10 s, so a
// client that never answers fails the test instead of passing). With
// AGENTGATE_TEST_CAPSERVER_MODERN=1 it is a 2026-07-28 server instead: it
// rejects initialize, answers server/discover and sends no requests
// (the stateless protocol has none). It logs "capabilities <json>" for
// initialize, "meta <json>" for each listing's _meta, and
// "answer <id> <json>" for each answer.
func capServerMain() int {
	logf, err := os.Create(os.Getenv(capServerEnv))
	if err != nil {
		return 1
	}
	defer logf.Close()
	modern := os.Getenv("AGENTGATE_TEST_CAPSERVER_MODERN") == "1"
	var mu sync.Mutex
	out := bufio.NewWriter(os.Stdout)
	send := func(s string) {
		mu.Lock()
		defer mu.Unlock()
		out.WriteString(s + "\n")
		out.Flush()
	}
	logLine := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(logf, format+"\n", args...)
	}
	answered := make(chan string, 8)
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	for in.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				ProtocolVersion string          `json:"protocolVersion"`
				Capabilities    json.RawMessage `json:"capabilities"`
				Meta            json.RawMessage `json:"_meta"`
			} `json:"params"`
		}
		line := slices.Clone(in.Bytes())
		if json.Unmarshal(line, &m) != nil {
			continue
		}
		switch {
		case m.Method == "" && m.ID != nil:
			var id string
			_ = json.Unmarshal(m.ID, &id)
			logLine("answer %s %s", id, line)
			answered <- id
		case m.Method == "initialize" && modern:
			send(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"error":{"code":-32601,"message":"Method not found"}}`)
		case m.Method == "initialize":
			logLine("capabilities %s", m.Params.Capabilities)
			send(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"caps","version":"1"}}}`)
		case m.Method == "server/discover":
			send(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"serverInfo":{"name":"caps","version":"1"}}}`)
		case m.Method == "notifications/initialized":
			send(`{"jsonrpc":"2.0","id":"s-roots","method":"roots/list"}`)
			send(`{"jsonrpc":"2.0","id":"s-sampling","method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":5}}`)
			send(`{"jsonrpc":"2.0","id":"s-elicit","method":"elicitation/create","params":{"message":"Your name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}}`)
			send(`{"jsonrpc":"2.0","id":"s-ping","method":"ping"}`)
		case m.Method == "tools/list":
			if m.Params.Meta != nil {
				logLine("meta %s", m.Params.Meta)
			}
			id := m.ID
			go func() { // the answers arrive on this loop
				if !modern {
					deadline := time.After(10 * time.Second)
					for n := 0; n < 4; n++ {
						select {
						case <-answered:
						case <-deadline:
							send(`{"jsonrpc":"2.0","id":` + string(id) + `,"error":{"code":-32000,"message":"the client did not answer the server's requests"}}`)
							return
						}
					}
				}
				send(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":{"tools":[{"name":"t","description":"d","inputSchema":{"type":"object"}}]}}`)
			}()
		case m.ID != nil:
			send(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"error":{"code":-32601,"message":"Method not found"}}`)
		}
	}
	return 0
}

// capServer is a stdio server definition running capServerMain.
func capServer(t *testing.T, modern bool, caps ...string) (config.Resolved, string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(t.TempDir(), "server.log")
	env := map[string]string{capServerEnv: log}
	if modern {
		env["AGENTGATE_TEST_CAPSERVER_MODERN"] = "1"
	}
	return config.Resolved{Server: config.Server{Name: "caps", File: ".mcp.json", Transport: config.Stdio,
		Command: exe, Env: env, ClientCapabilities: caps}}, log
}

// serverLog reads capServerMain's log: key -> lines' rest, in order.
func serverLog(t *testing.T, path string) map[string][]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		k, v, _ := strings.Cut(line, " ")
		got[k] = append(got[k], v)
	}
	return got
}

// rootURI is the roots/list URI of the temporary directory root, written
// out by hand (not by FileURI, which it checks): file:// and the absolute
// path with slashes, and a leading one before a Windows drive letter (a
// TempDir holds no character a URI path would escape).
func rootURI(root string) string {
	if runtime.GOOS == "windows" {
		return "file:///" + filepath.ToSlash(root)
	}
	return "file://" + filepath.ToSlash(root)
}

// wantRootTool checks that res lists one tool, named (as the HTTP and SSE
// servers here name it) after the root URI capture answered roots/list
// with, "/" replaced by "_": rootURI(root).
func wantRootTool(t *testing.T, res wire.Result, root string) {
	t.Helper()
	want := strings.ReplaceAll(rootURI(root), "/", "_")
	var tool struct{ Name string }
	if len(res.Tools) != 1 || json.Unmarshal(res.Tools[0], &tool) != nil || tool.Name != want {
		t.Errorf("tools %s: want one named after the root %s", res.Tools, rootURI(root))
	}
}

// TestClientCapabilitiesAnswers: a server that sends roots/list, sampling,
// elicitation and ping during the capture gets capture's answers (the
// repository root as a file:// URI; a JSON-RPC error -1 saying agentgate
// lock does not sample; decline; {}) and the capture finishes with its
// tools. The capabilities are declared in initialize exactly as named.
func TestClientCapabilitiesAnswers(t *testing.T) {
	root := t.TempDir()
	r, log := capServer(t, false, config.CapElicitation, config.CapRoots, config.CapSampling)
	res := capture1(t, r, wire.Options{Root: root, Timeout: 20 * time.Second})
	if res.Err != nil {
		data, _ := os.ReadFile(log)
		t.Fatalf("capture: %v\nstderr: %s\nserver log:\n%s", res.Err, res.StderrTail, data)
	}
	if len(res.Tools) != 1 {
		t.Fatalf("tools: %s", res.Tools)
	}
	got := serverLog(t, log)
	if c := got["capabilities"]; len(c) != 1 || c[0] != `{"roots":{},"sampling":{},"elicitation":{}}` {
		t.Errorf("initialize declared %q, want roots, sampling and elicitation", c)
	}
	answers := map[string]map[string]json.RawMessage{}
	for _, a := range got["answer"] {
		id, raw, _ := strings.Cut(a, " ")
		var msg map[string]json.RawMessage
		if err := json.Unmarshal([]byte(raw), &msg); err != nil {
			t.Fatalf("answer %s: %v", a, err)
		}
		answers[id] = msg
	}
	uri := rootURI(root)
	var roots struct {
		Roots []struct{ URI, Name string }
	}
	if err := json.Unmarshal(answers["s-roots"]["result"], &roots); err != nil || len(roots.Roots) != 1 ||
		roots.Roots[0].URI != uri || roots.Roots[0].Name != filepath.Base(root) {
		t.Errorf("roots/list answered %s, want one root %s", answers["s-roots"]["result"], uri)
	}
	var sampling struct {
		Code    int
		Message string
	}
	if err := json.Unmarshal(answers["s-sampling"]["error"], &sampling); err != nil || sampling.Code != -1 ||
		!strings.Contains(sampling.Message, "agentgate lock does not sample") || answers["s-sampling"]["result"] != nil {
		t.Errorf("sampling/createMessage answered %v, want a JSON-RPC error -1 saying agentgate lock does not sample", answers["s-sampling"])
	}
	if string(answers["s-elicit"]["result"]) != `{"action":"decline"}` {
		t.Errorf("elicitation/create answered %v, want {\"action\":\"decline\"}", answers["s-elicit"])
	}
	if string(answers["s-ping"]["result"]) != `{}` {
		t.Errorf("ping answered %v, want {}", answers["s-ping"])
	}

	// Roots alone: sampling and elicitation, not declared, are refused
	// as unknown methods (-32601), and the capture still finishes.
	r, log = capServer(t, false, config.CapRoots)
	if res := capture1(t, r, wire.Options{Root: root, Timeout: 20 * time.Second}); res.Err != nil {
		t.Fatalf("capture with roots alone: %v", res.Err)
	}
	got = serverLog(t, log)
	if c := got["capabilities"]; len(c) != 1 || c[0] != `{"roots":{}}` {
		t.Errorf("initialize declared %q, want roots alone", c)
	}
	for _, a := range got["answer"] {
		if (strings.HasPrefix(a, "s-sampling ") || strings.HasPrefix(a, "s-elicit ")) && !strings.Contains(a, `"code":-32601`) {
			t.Errorf("undeclared capability's request answered %s, want method not found", a)
		}
	}
}

// TestClientCapabilitiesModernMeta: on the 2026-07-28 protocol, where
// every request carries the client's capabilities in _meta, the listings
// carry the declared ones; without the key, an empty object as before.
func TestClientCapabilitiesModernMeta(t *testing.T) {
	for _, tc := range []struct {
		caps []string
		want string
	}{
		{[]string{config.CapRoots, config.CapSampling}, `{"roots":{},"sampling":{}}`},
		{nil, `{}`},
	} {
		r, log := capServer(t, true, tc.caps...)
		res := capture1(t, r, wire.Options{Timeout: 20 * time.Second})
		if res.Err != nil || res.Protocol != "2026-07-28" {
			t.Fatalf("capture %v: %v (protocol %q)", tc.caps, res.Err, res.Protocol)
		}
		metas := serverLog(t, log)["meta"]
		if len(metas) != 1 {
			t.Fatalf("%v: listings' _meta: %q", tc.caps, metas)
		}
		var meta map[string]json.RawMessage
		if err := json.Unmarshal([]byte(metas[0]), &meta); err != nil {
			t.Fatal(err)
		}
		if got := string(meta["io.modelcontextprotocol/clientCapabilities"]); got != tc.want {
			t.Errorf("%v: _meta client capabilities %s, want %s", tc.caps, got, tc.want)
		}
	}
}

// TestClientCapabilitiesHTTP: over streamable HTTP a server sends its
// requests on the event stream of a POST (here: tools/list's, before the
// result) and the client answers with a POST of its own; the listing
// waits for the answer to roots/list, which is the repository root.
func TestClientCapabilitiesHTTP(t *testing.T) {
	answers := make(chan []byte, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		body, _ := io.ReadAll(req.Body)
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Capabilities json.RawMessage `json:"capabilities"`
			} `json:"params"`
		}
		_ = json.Unmarshal(body, &m)
		switch m.Method {
		case "initialize":
			if string(m.Params.Capabilities) != `{"roots":{}}` {
				http.Error(w, "capabilities "+string(m.Params.Capabilities), http.StatusBadRequest)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Mcp-Session-Id", "s1")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"caps","version":"1"}}}`, m.ID)
		case "tools/list":
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"h-roots\",\"method\":\"roots/list\"}\n\n")
			w.(http.Flusher).Flush()
			select {
			case a := <-answers:
				var ans struct {
					Result struct{ Roots []struct{ URI string } }
				}
				_ = json.Unmarshal(a, &ans)
				name := "no-roots"
				if len(ans.Result.Roots) == 1 {
					name = strings.ReplaceAll(ans.Result.Roots[0].URI, "/", "_")
				}
				fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"tools\":[{\"name\":%q,\"inputSchema\":{\"type\":\"object\"}}]}}\n\n", m.ID, name)
			case <-time.After(10 * time.Second):
				fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":%s,\"error\":{\"code\":-32000,\"message\":\"roots/list was not answered\"}}\n\n", m.ID)
			}
		case "":
			answers <- body
			w.WriteHeader(http.StatusAccepted)
		default:
			w.WriteHeader(http.StatusAccepted)
		}
	}))
	defer srv.Close()
	root := t.TempDir()
	r := config.Resolved{Server: config.Server{Name: "caps", File: ".mcp.json", Transport: config.StreamableHTTP, URL: srv.URL + "/mcp",
		ClientCapabilities: []string{config.CapRoots}}}
	res := capture1(t, r, wire.Options{Root: root, Timeout: 20 * time.Second})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	wantRootTool(t, res, root)
}

// TestClientCapabilitiesSSE: over legacy SSE a server sends its requests
// on the event stream and reads the client's answers from POSTs to its
// endpoint; capture answers roots/list there (mcp-go's SSE transport
// would drop it), and the listing, which waits for that answer, ends.
func TestClientCapabilitiesSSE(t *testing.T) {
	events := make(chan string, 16)
	answers := make(chan []byte, 4)
	var listID json.RawMessage
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method == http.MethodGet {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "event: endpoint\ndata: /messages?session=1\n\n")
			w.(http.Flusher).Flush()
			for {
				select {
				case e := <-events:
					fmt.Fprintf(w, "event: message\ndata: %s\n\n", e)
					w.(http.Flusher).Flush()
				case <-req.Context().Done():
					return
				}
			}
		}
		body, _ := io.ReadAll(req.Body)
		w.WriteHeader(http.StatusAccepted)
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.Unmarshal(body, &m)
		switch m.Method {
		case "initialize":
			events <- `{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"protocolVersion":"2024-11-05","capabilities":{"tools":{}},"serverInfo":{"name":"caps","version":"1"}}}`
		case "notifications/initialized":
			events <- `{"jsonrpc":"2.0","id":7,"method":"roots/list"}`
		case "tools/list":
			listID = m.ID
			go func() {
				select {
				case a := <-answers:
					var ans struct {
						ID     int
						Result struct{ Roots []struct{ URI string } }
					}
					_ = json.Unmarshal(a, &ans)
					name := "no-roots"
					if ans.ID == 7 && len(ans.Result.Roots) == 1 {
						name = strings.ReplaceAll(ans.Result.Roots[0].URI, "/", "_")
					}
					events <- fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":%q,"inputSchema":{"type":"object"}}]}}`, listID, name)
				case <-time.After(10 * time.Second):
					events <- `{"jsonrpc":"2.0","id":` + string(listID) + `,"error":{"code":-32000,"message":"roots/list was not answered"}}`
				}
			}()
		case "":
			answers <- body
		}
	}))
	defer srv.Close()
	defer srv.CloseClientConnections()
	root := t.TempDir()
	r := config.Resolved{Server: config.Server{Name: "caps", File: ".mcp.json", Transport: config.SSE, URL: srv.URL + "/sse",
		ClientCapabilities: []string{config.CapRoots}}}
	res := capture1(t, r, wire.Options{Root: root, Timeout: 20 * time.Second})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	wantRootTool(t, res, root)
}
