package guard

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/lock"
)

// TestPinnedToolsPassByteForByte: a listing that matches the lockfile
// reaches the client exactly as the server sent it (the raw tool objects
// of testdata/tools.json, spacing and member order kept).
func TestPinnedToolsPassByteForByte(t *testing.T) {
	raws := loadTools(t)
	for _, v := range []int{lock.Version1, lock.Version2} {
		c := startFake(t, Options{Pins: lockFor(t, v, raws)}, "-tools", toolsFile(t))
		c.initialize()
		got := toolsOf(t, c.request("1", "tools/list", ""))
		if len(got) != len(raws) {
			t.Fatalf("v%d: got %d tools, want %d", v, len(got), len(raws))
		}
		for i := range raws {
			if got[i] != string(raws[i]) {
				t.Errorf("v%d: tool %d:\n got %s\nwant %s", v, i, got[i], raws[i])
			}
		}
		if r := c.request("2", "tools/call", `{"name":"echo","arguments":{"text":"hi"}}`); !strings.Contains(r, `"called echo"`) {
			t.Errorf("v%d: call: %s", v, r)
		}
		if err := c.close(); err != nil {
			t.Errorf("v%d: Run: %v", v, err)
		}
	}
}

// TestRugPullAfterListChanged: the first listing passes; the server then
// announces list_changed and the second listing changes one tool's
// description: guard withholds that tool, refuses its call, and the fake
// never receives the call.
func TestRugPullAfterListChanged(t *testing.T) {
	raws := loadTools(t)
	logFile := filepath.Join(t.TempDir(), "fake.log")
	c := startFake(t, Options{Pins: lockFor(t, lock.Version1, raws)},
		"-tools", toolsFile(t), "-rugpull-after", "1", "-rugpull-tool", "echo", "-log", logFile)
	c.initialize()
	if got := toolsOf(t, c.request("1", "tools/list", "")); len(got) != 3 {
		t.Fatalf("first listing: %d tools, want 3", len(got))
	}
	// The notification follows the first listing.
	if n := c.read(); n != `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}` {
		t.Fatalf("want list_changed, got %s", n)
	}
	resp := c.request("2", "tools/list", "")
	got := toolsOf(t, resp)
	if len(got) != 2 || got[0] != string(raws[1]) || got[1] != string(raws[2]) {
		t.Errorf("second listing: want notes and spaced byte for byte, got %q", got)
	}
	if strings.Contains(resp, "ssh") {
		t.Errorf("the drifted description reached the client: %s", resp)
	}
	call := c.request("3", "tools/call", `{"name":"echo","arguments":{"text":"hi"}}`)
	if !strings.Contains(call, `"error":{"code":-32602`) || !strings.Contains(call, "not in agentgate.lock") && !strings.Contains(call, "differs from agentgate.lock") {
		t.Errorf("call of the withheld tool: %s", call)
	}
	if strings.Contains(call, "ssh") {
		t.Errorf("the refusal repeats the drifted text: %s", call)
	}
	// A pinned, unchanged tool is still callable.
	if r := c.request("4", "tools/call", `{"name":"notes"}`); !strings.Contains(r, `"called notes"`) {
		t.Errorf("call of a pinned tool: %s", r)
	}
	if err := c.close(); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(logFile)
	if strings.Contains(string(data), "call echo") || !strings.Contains(string(data), "call notes") {
		t.Errorf("the fake's log should have the call of notes and not of echo:\n%s", data)
	}
	log := c.log.String()
	for _, want := range []string{`agentgate: guard: "fake": tool "echo": description changed`, "withheld", `call refused, not forwarded`} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
}

// TestWithheldNotification: issue #25 finding 7. When guard withholds, it
// also tells the client, which shows it to the person (guard's stderr is
// shown by no client): a notifications/message at level warning, before
// the listing, naming the server, each withheld tool and why, and what to
// run. A second identical listing is not announced again.
func TestWithheldNotification(t *testing.T) {
	raws := loadTools(t)
	c := startFake(t, Options{Pins: lockFor(t, lock.Version1, raws)},
		"-tools", toolsFile(t), "-rugpull-after", "1", "-rugpull-tool", "echo")
	c.initialize()
	c.request("1", "tools/list", "")
	c.seen = nil
	c.request("2", "tools/list", "")
	var notes []map[string]any
	for _, line := range c.seen {
		var m struct {
			Method string
			Params map[string]any
		}
		if json.Unmarshal([]byte(line), &m) == nil && m.Method == "notifications/message" {
			notes = append(notes, m.Params)
		}
	}
	if len(notes) != 1 {
		t.Fatalf("want one notifications/message before the listing, got %d: %q", len(notes), c.seen)
	}
	text, _ := notes[0]["data"].(string)
	if notes[0]["level"] != "warning" || notes[0]["logger"] != "agentgate" {
		t.Errorf("level/logger: %v", notes[0])
	}
	for _, want := range []string{`withheld 1 of 3 tool(s) of MCP server "fake"`, `"echo" (description changed`, "'agentgate diff'", "'agentgate lock'"} {
		if !strings.Contains(text, want) {
			t.Errorf("notification lacks %q: %s", want, text)
		}
	}
	if strings.Contains(text, "ssh") {
		t.Errorf("the notification repeats the drifted description: %s", text)
	}
	c.seen = nil
	c.request("3", "tools/list", "")
	for _, line := range c.seen {
		if strings.Contains(line, "notifications/message") {
			t.Errorf("the same withheld set announced twice: %s", line)
		}
	}
	if err := c.close(); err != nil {
		t.Fatal(err)
	}
}

// TestWithheldNotificationEscaped: a hostile server's tool name reaches
// the person through the notification escaped as guard's log escapes it
// (safetext.VisibleLine): no terminal escape, bidi override or newline of
// the server's survives decoding the JSON.
func TestWithheldNotificationEscaped(t *testing.T) {
	p := newProxy(Options{Server: "fake"}, nil)
	var out strings.Builder
	p.out.Reset(&out)
	p.notifyWithheld(kindTool, []verdict{{name: "evil\x1b[2J\u202e\nname", drift: driftUnpinned}, {name: "ok"}}, 2)
	var m struct{ Params struct{ Data string } }
	if err := json.Unmarshal([]byte(out.String()), &m); err != nil {
		t.Fatalf("%v: %q", err, out.String())
	}
	if strings.ContainsAny(m.Params.Data, "\x1b\u202e\n") || !strings.Contains(m.Params.Data, "withheld 1 of 2 tool(s)") {
		t.Errorf("notification text not escaped: %q", m.Params.Data)
	}
}
