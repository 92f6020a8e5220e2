package guard

import (
	"strings"
	"testing"

	"github.com/agentgate/agentgate/lock"
)

// TestCapabilitiesHint: a tool withheld as not in agentgate.lock from a
// client that declared capabilities in initialize gets one hint line
// naming them and the agentgate.toml key that lets agentgate lock pin
// what such a client sees, after the decision line (not again for the
// refused call); a client without capabilities (or with them null) gets
// none.
func TestCapabilitiesHint(t *testing.T) {
	raws := loadTools(t)
	pins := lockFor(t, lock.Version1, raws[1:]) // echo is not pinned
	run := func(caps string) string {
		c := startFake(t, Options{Server: "my server", Pins: pins}, "-tools", toolsFile(t))
		c.request("0", "initialize", `{"protocolVersion":"2025-06-18","capabilities":`+caps+`,"clientInfo":{"name":"test","version":"1"}}`)
		c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		if got := toolsOf(t, c.request("1", "tools/list", "")); len(got) != 2 {
			t.Errorf("%s: listed %q, want echo withheld", caps, got)
		}
		c.request("2", "tools/list", "")
		if r := c.request("3", "tools/call", `{"name":"echo"}`); !strings.Contains(r, "not in agentgate.lock") {
			t.Errorf("%s: call %s", caps, r)
		}
		c.close()
		return c.log.String()
	}
	log := run(`{"roots":{"listChanged":true},"sampling":{},"experimental":{}}`)
	want := `agentgate: guard: "my server": hint: the client declared roots, sampling in initialize, and a server may list some tools only to a client with such a capability: ` +
		`if "echo" is expected, review it, then add client-capabilities = ["roots", "sampling"] to agentgate.toml (top level, or [servers."my server"]) and run 'agentgate lock' (docs/GUARD.md)` + "\n"
	if strings.Count(log, want) != 1 || strings.Count(log, "hint:") != 1 {
		t.Errorf("want the hint once:\n%s\nlog:\n%s", want, log)
	}
	if i, j := strings.Index(log, `tool "echo": not in agentgate.lock: withheld`), strings.Index(log, want); i < 0 || j < i {
		t.Errorf("the hint does not follow the decision line:\n%s", log)
	}
	for _, caps := range []string{`{}`, `{"experimental":{},"roots":null}`} {
		if log := run(caps); strings.Contains(log, "hint") || !strings.Contains(log, `tool "echo": not in agentgate.lock: withheld`) {
			t.Errorf("capabilities %s: log:\n%s", caps, log)
		}
	}
}
