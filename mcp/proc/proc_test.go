package proc

import (
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/internal/testing/fakeserver"
	"github.com/agentgate/agentgate/mcp/config"
)

// TestMain doubles as the fake MCP server: with AGENTGATE_FAKESERVER=1 the
// test binary runs fakeserver.Main, so tests spawn a real process.
func TestMain(m *testing.M) {
	fakeserver.SelfServe()
	if code, ok := holderMain(); ok {
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// fake is a stdio server definition that runs the fake with args.
func fake(t testing.TB, name string, args ...string) config.Resolved {
	return fakeserver.Stdio(t, name, ".mcp.json", args...)
}

// TestStartHints: Start (capture's and guard's way to start a server)
// gives a missing command's fix as Hints, not as text in the message.
func TestStartHints(t *testing.T) {
	r := fake(t, "missing")
	r.Command = "agentgate-no-such-command"
	p, err := Start(r, nil)
	if err == nil {
		p.Shutdown()
		t.Fatal("started a command that does not exist")
	}
	var h interface{ Hints() []string }
	if !errors.As(err, &h) || len(h.Hints()) != 1 || !strings.HasPrefix(h.Hints()[0], "install agentgate-no-such-command") {
		t.Errorf("hints of %v: %#v", err, err)
	}
	if msg := err.Error(); strings.Contains(msg, "hint") || !strings.Contains(msg, `check "command" in .mcp.json`) {
		t.Errorf("message %q", msg)
	}
}

func TestChildEnv(t *testing.T) {
	got := childEnv([]string{"PATH=/bin", "HOME=/root", "TOKEN=inherited"}, map[string]string{"TOKEN": "configured", "EXTRA": "1"})
	want := []string{"EXTRA=1", "HOME=/root", "PATH=/bin", "TOKEN=configured"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestTailBuffer(t *testing.T) {
	tb := newTailBuffer(20, 2)
	_, _ = tb.Write([]byte("first line\nsecond\nthird\nfourth\n"))
	if got, mid := tb.String(); got != "third\nfourth\n" || mid {
		t.Errorf("got %q", got)
	}
}
