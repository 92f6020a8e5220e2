package guard

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentgate/agentgate/lock"
)

// TestCallDecidedByCurrentListing (issue #24, finding 5): a call is
// decided by the server's current listing even when the client did not
// list it: before any tools/list in the session, after the server said
// the list changed and the client did not list again, and for a name on
// a page the client did not ask for. In each the server's echo drifted:
// guard lists the server itself, withholds echo and refuses its call,
// which never reaches the server; a pinned tool that did not drift is
// still called.
func TestCallDecidedByCurrentListing(t *testing.T) {
	raws := loadTools(t)
	for _, tc := range []struct {
		name  string
		args  []string
		first func(c *client) // what the client does before the calls
	}{
		{"no listing yet", []string{"-rugpull-file", "EXISTS"}, func(c *client) {}},
		{"list_changed, not listed again", []string{"-rugpull-after", "1"}, func(c *client) {
			if got := toolsOf(t, c.request("1", "tools/list", "")); len(got) != 3 {
				t.Fatalf("first listing: %d tools, want 3", len(got))
			}
			if n := c.read(); !strings.Contains(n, "notifications/tools/list_changed") {
				t.Fatalf("want list_changed, got %s", n)
			}
		}},
		{"a page the client did not ask for", []string{"-rugpull-file", "EXISTS", "-rugpull-tool", "spaced", "-page-size", "1"}, func(c *client) {
			if got := toolsOf(t, c.request("1", "tools/list", "")); len(got) != 1 {
				t.Fatalf("first page: %d tools, want 1", len(got))
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			logFile := filepath.Join(dir, "fake.log")
			args := []string{"-tools", toolsFile(t), "-rugpull-tool", "echo", "-log", logFile}
			drifted := "echo"
			for i, a := range tc.args {
				if a == "EXISTS" {
					tc.args[i] = filepath.Join(dir, "rugpull")
					os.WriteFile(tc.args[i], nil, 0o600)
				}
				if i > 0 && tc.args[i-1] == "-rugpull-tool" {
					drifted = a
				}
			}
			args = append(args, tc.args...)
			c := startFake(t, Options{Pins: lockFor(t, lock.Version1, raws)}, args...)
			c.initialize()
			tc.first(c)
			call := c.request("3", "tools/call", `{"name":"`+drifted+`","arguments":{"text":"hi"}}`)
			if !strings.Contains(call, `"error":{"code":-32602`) || !strings.Contains(call, "differs from agentgate.lock") {
				t.Errorf("call of the drifted %s: %s", drifted, call)
			}
			if r := c.request("4", "tools/call", `{"name":"notes"}`); !strings.Contains(r, `"called notes"`) {
				t.Errorf("call of a pinned tool that did not drift: %s", r)
			}
			for _, s := range c.seen {
				if strings.Contains(s, "agentgate-guard-") {
					t.Errorf("guard forwarded the answer to its own listing: %.200s", s)
				}
			}
			if err := c.close(); err != nil {
				t.Fatal(err)
			}
			data, _ := os.ReadFile(logFile)
			if strings.Contains(string(data), "call "+drifted) || !strings.Contains(string(data), "call notes") {
				t.Errorf("the fake's log should have the call of notes and not of %s:\n%s", drifted, data)
			}
			log := c.log.String()
			for _, want := range []string{"guard lists the server itself before it decides a call", `tool "` + drifted + `": description changed`, "call refused, not forwarded"} {
				if !strings.Contains(log, want) {
					t.Errorf("log lacks %q:\n%s", want, log)
				}
			}
		})
	}
}

// TestCallOfUnlistedPinnedTool: a pinned name the server's current
// listing does not show has no definition guard could compare: its call
// is refused, after guard listed the server itself.
func TestCallOfUnlistedPinnedTool(t *testing.T) {
	raws := loadTools(t)
	dir := t.TempDir()
	logFile := filepath.Join(dir, "fake.log")
	tools := filepath.Join(dir, "tools.json")
	os.WriteFile(tools, []byte("["+string(raws[1])+"]"), 0o600) // notes only
	c := startFake(t, Options{Pins: lockFor(t, lock.Version1, raws)}, "-tools", tools, "-log", logFile)
	c.initialize()
	if r := c.request("3", "tools/call", `{"name":"echo"}`); !strings.Contains(r, `"error":{"code":-32602`) || !strings.Contains(r, "not in the server's current listing") {
		t.Errorf("call of a pinned tool the server does not list: %s", r)
	}
	if err := c.close(); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(logFile); strings.Contains(string(data), "call echo") {
		t.Errorf("the call reached the server:\n%s", data)
	}
}

// TestListingOverCapAnswered: a listing page over max-tools is refused
// and the client's tools/list gets a JSON-RPC error for it, not silence
// (the pending request was already taken when the page was refused).
func TestListingOverCapAnswered(t *testing.T) {
	c := startFake(t, Options{Pins: lockFor(t, lock.Version1, loadTools(t)), MaxTools: 2}, "-tools", toolsFile(t))
	c.initialize()
	c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	if r := readWithin(c, 5*time.Second); !strings.HasPrefix(r, `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,`) || !strings.Contains(r, "more elements than agentgate allows") {
		t.Errorf("tools/list of 3 tools with max-tools 2 answered %q", r)
	}
	if err := c.close(); err != nil {
		t.Fatal(err)
	}
}
