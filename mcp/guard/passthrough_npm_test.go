package guard

import (
	"bufio"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/agentgate/agentgate/internal/testing/testenv"
	"github.com/agentgate/agentgate/lock"
	"github.com/agentgate/agentgate/mcp/config"
)

// capableInit is an initialize of a client with the sampling, elicitation
// and roots capabilities: server-everything then registers the tools that
// use them.
const capableInit = `{"protocolVersion":"2025-06-18","capabilities":{"sampling":{},"elicitation":{},"roots":{"listChanged":true}},"clientInfo":{"name":"test","version":"1"}}`

// answerServer is the test client's answer to a request the server sends:
// a sampling result, an elicitation decline, the roots.
func answerServer(t testing.TB, method string) string {
	switch method {
	case "sampling/createMessage":
		return `{"role":"assistant","content":{"type":"text","text":"sampled through guard"},"model":"test-model","stopReason":"endTurn"}`
	case "elicitation/create":
		return `{"action":"decline"}`
	case "roots/list":
		return `{"roots":[{"uri":"file:///guard-root","name":"guard root"}]}`
	}
	t.Errorf("the server sent a request the test does not answer: %s", method)
	return `{}`
}

// capSession is the test client's view of one session: it answers the
// server's requests (answerServer) and records every line it reads.
type capSession struct {
	t     testing.TB
	c     *client
	lines []string // every line read, in order
	asked []string // the methods of the server's requests, in order
}

// call sends a request and reads until its response, answering the
// server's requests on the way; it returns the response.
func (s *capSession) call(id, method, params string) string {
	s.t.Helper()
	msg := `{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `"`
	if params != "" {
		msg += `,"params":` + params
	}
	s.c.send(msg + "}")
	return s.until(id)
}

// until reads until the response with id, answering server requests.
func (s *capSession) until(id string) string {
	s.t.Helper()
	for {
		line := s.c.read()
		if line == "" {
			s.t.Fatalf("the session ended before the answer to %s; log:\n%s", id, s.c.log.String())
		}
		s.lines = append(s.lines, line)
		var m struct {
			ID     json.RawMessage
			Method string
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			s.t.Fatalf("not JSON: %s", line)
		}
		switch {
		case m.Method != "" && m.ID != nil: // a request of the server's
			s.asked = append(s.asked, m.Method)
			s.c.send(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":` + answerServer(s.t, m.Method) + `}`)
		case m.Method == "" && string(m.ID) == id:
			return line
		}
	}
}

// withPrefix returns the lines that start with prefix.
func withPrefix(lines []string, prefix string) []string {
	var out []string
	for _, l := range lines {
		if strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return out
}

// direct runs the server with a client of the same shape, without guard:
// what the server sends when nobody is in between.
func direct(t testing.TB, r config.Resolved) *client {
	up, err := StartStdio(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	go func() { io.Copy(up.In, inR); up.In.Close() }()
	c := &client{t: t, in: inW, out: bufio.NewReaderSize(up.Out, 1<<20), done: make(chan error, 1), log: &testenv.SyncBuffer{}}
	go func() { c.done <- up.Wait() }()
	t.Cleanup(func() { inW.Close() })
	return c
}

// TestNPMEverythingPassThrough: with the real server-everything over
// stdio and a client that has the sampling, elicitation and roots
// capabilities, what guard does not check passes through untouched both
// ways: progress notifications of a long operation reach the client byte
// for byte as they do without guard; the server's sampling/createMessage,
// elicitation/create and roots/list requests reach the client, and the
// client's answers reach the server (its tool results carry them); a
// notifications/cancelled reaches the server (the cancelled call is
// never answered, while without it the answer comes within the same
// time). The lockfile pins the tools this client is listed (the
// capability tools included), as it would be locked by a client with
// these capabilities.
func TestNPMEverythingPassThrough(t *testing.T) {
	bin := testenv.NPMBin(t, "mcp-server-everything")
	r := config.Resolved{Server: config.Server{Name: "everything", Transport: config.Stdio, Command: bin, Args: []string{"stdio"}}}
	long := `{"name":"trigger-long-running-operation","arguments":{"duration":0.4,"steps":4},"_meta":{"progressToken":"p1"}}`

	// Without guard: the listing this client gets, and the progress lines.
	d := &capSession{t: t, c: direct(t, r)}
	d.call("0", "initialize", capableInit)
	d.c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	raws := toolsOf(t, d.call("1", "tools/list", ""))
	d.call("2", "tools/call", long)
	directProgress := withPrefix(d.lines, `{"method":"notifications/progress"`)
	if len(directProgress) == 0 {
		directProgress = withPrefix(d.lines, `{"jsonrpc":"2.0","method":"notifications/progress"`)
	}
	if len(directProgress) != 4 {
		t.Fatalf("without guard: %d progress notifications, want 4:\n%s", len(directProgress), strings.Join(d.lines, "\n"))
	}
	d.c.in.Close()
	var tools []json.RawMessage
	for _, raw := range raws {
		tools = append(tools, json.RawMessage(raw))
	}
	pins := lockFor(t, lock.Version2, tools)
	for _, name := range []string{"trigger-sampling-request", "trigger-elicitation-request", "get-roots-list", "trigger-long-running-operation"} {
		if _, ok := pins.Tools[name]; !ok {
			t.Fatalf("server-everything did not list %s to a client with the capabilities", name)
		}
	}

	// Through guard.
	up, err := StartStdio(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	g := &capSession{t: t, c: startGuard(t, Options{Server: "everything", Pins: pins}, up)}
	g.call("0", "initialize", capableInit)
	g.c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if got := toolsOf(t, g.call("1", "tools/list", "")); len(got) != len(raws) {
		t.Fatalf("guard listed %d tools, the server %d", len(got), len(raws))
	}
	g.lines = nil
	if resp := g.call("2", "tools/call", long); !strings.Contains(resp, "Long running operation completed") {
		t.Errorf("long operation: %s", resp)
	}
	if got := append(withPrefix(g.lines, `{"method":"notifications/progress"`), withPrefix(g.lines, `{"jsonrpc":"2.0","method":"notifications/progress"`)...); strings.Join(got, "\n") != strings.Join(directProgress, "\n") {
		t.Errorf("progress through guard:\n%s\nwithout guard:\n%s", strings.Join(got, "\n"), strings.Join(directProgress, "\n"))
	}
	for _, tc := range []struct{ tool, args, asked, want string }{
		{"trigger-sampling-request", `{"prompt":"hello","maxTokens":5}`, "sampling/createMessage", "sampled through guard"},
		{"trigger-elicitation-request", `{}`, "elicitation/create", "decline"},
		{"get-roots-list", `{}`, "roots/list", "file:///guard-root"},
	} {
		g.asked = nil
		resp := g.call("3", "tools/call", `{"name":"`+tc.tool+`","arguments":`+tc.args+`}`)
		if !strings.Contains(resp, tc.want) || strings.Contains(resp, `"error"`) {
			t.Errorf("%s: the client's answer to %s did not reach the server: %s", tc.tool, tc.asked, resp)
		}
		if tc.asked != "roots/list" && (len(g.asked) != 1 || g.asked[0] != tc.asked) {
			// roots/list may have been asked right after initialize, and
			// the server keeps the roots it got.
			t.Errorf("%s: the server asked %v, want %s", tc.tool, g.asked, tc.asked)
		}
	}

	// Cancellation: a 3 s operation, cancelled after its first step,
	// is never answered; a ping sent 4 s later is.
	g.c.send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"trigger-long-running-operation","arguments":{"duration":3,"steps":3},"_meta":{"progressToken":"p2"}}}`)
	for {
		line := g.c.read()
		if strings.Contains(line, `"progressToken":"p2"`) {
			break
		}
		if line == "" || strings.Contains(line, `"id":4`) {
			t.Fatalf("before the first progress of the call to cancel: %q", line)
		}
	}
	g.c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4,"reason":"test"}}`)
	time.Sleep(4 * time.Second)
	g.lines = nil
	g.call("5", "ping", "")
	for _, l := range g.lines {
		if strings.Contains(l, `"id":4`) {
			t.Errorf("the cancelled call was answered: the cancellation did not reach the server: %s", l)
		}
	}
	if err := g.c.close(); err != nil {
		t.Fatal(err)
	}
}
