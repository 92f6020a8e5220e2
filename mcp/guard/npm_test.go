package guard

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/internal/testing/testenv"
	"github.com/agentgate/agentgate/lock"
	"github.com/agentgate/agentgate/mcp/capture"
	"github.com/agentgate/agentgate/mcp/config"
	"github.com/agentgate/agentgate/mcp/wire"
)

// TestNPMEverythingThroughGuard runs the real server-everything (pinned in
// testdata/npm) over stdio behind guard, driven by the test's JSON-RPC
// client: locked as agentgate lock captures it, every tool reaches the
// client byte for byte and "echo" is callable; with one tool's pinned
// description changed (as if the server had changed it since), that tool
// is withheld and its call refused, the others still pass.
func TestNPMEverythingThroughGuard(t *testing.T) {
	bin := testenv.NPMBin(t, "mcp-server-everything")
	r := config.Resolved{Server: config.Server{Name: "everything", Transport: config.Stdio, Command: bin, Args: []string{"stdio"}}}
	results, wait := capture.Capture(context.Background(), []config.Resolved{r}, wire.Options{})
	wait()
	res := results[0]
	if res.Err != nil {
		t.Fatalf("capture: %v\n%s", res.Err, res.StderrTail)
	}
	pins := lockFor(t, lock.Version2, res.Tools)
	pins.Instructions = lock.InstructionsHash(res.Instructions)

	up, err := StartStdio(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := startGuard(t, Options{Server: "everything", Pins: pins}, up)
	if init := c.initialize(); !strings.Contains(init, `"instructions"`) && res.Instructions != nil {
		t.Errorf("pinned instructions were stripped: %s", init)
	}
	got := toolsOf(t, c.request("1", "tools/list", ""))
	if len(got) != len(res.Tools) || len(got) < 5 {
		t.Fatalf("listed %d tools through guard, captured %d", len(got), len(res.Tools))
	}
	for i := range got {
		if got[i] != string(res.Tools[i]) {
			t.Errorf("tool %d differs:\n got %s\nwant %s", i, got[i], res.Tools[i])
		}
	}
	if r := c.request("2", "tools/call", `{"name":"echo","arguments":{"message":"through guard"}}`); !strings.Contains(r, "through guard") || strings.Contains(r, `"error"`) {
		t.Errorf("echo: %s", r)
	}
	if err := c.close(); err != nil {
		t.Fatal(err)
	}

	// The lockfile pins another description for echo.
	echo := pins.Tools["echo"]
	echo.DescriptionHash = lock.HashDescription(ptr("Echoes back the input"))
	pins.Tools["echo"] = echo
	up, err = StartStdio(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	c = startGuard(t, Options{Server: "everything", Pins: pins}, up)
	c.initialize()
	got = toolsOf(t, c.request("1", "tools/list", ""))
	if len(got) != len(res.Tools)-1 {
		t.Errorf("want %d tools (echo withheld), got %d", len(res.Tools)-1, len(got))
	}
	for _, g := range got {
		var v struct{ Name string }
		json.Unmarshal([]byte(g), &v)
		if v.Name == "echo" {
			t.Error("echo was not withheld")
		}
	}
	if r := c.request("2", "tools/call", `{"name":"echo","arguments":{"message":"x"}}`); !strings.Contains(r, `"code":-32602`) {
		t.Errorf("echo call: %s", r)
	}
	if err := c.close(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(c.log.String(), `tool "echo": description changed`) {
		t.Errorf("log:\n%s", c.log.String())
	}
}

func ptr(s string) *string { return &s }
