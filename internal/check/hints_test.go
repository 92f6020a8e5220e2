package check

import (
	"slices"
	"testing"

	"github.com/agentgate/agentgate/mcp/config"
	"github.com/agentgate/agentgate/mcp/wire"
)

// A listing over a limit carries its hint in the error (mcp/capture sets
// wire.Error.Hints, naming the setting to raise): captureHint adds
// nothing after it, not even the stdio server's "run it by hand".
func TestCaptureHintTooLargeAddsNothing(t *testing.T) {
	s := config.Server{Name: "big", File: ".mcp.json", Transport: config.Stdio}
	err := &wire.Error{Server: "big", Stage: wire.StageList, Kind: wire.ErrTooLarge, Msg: "the listing is larger than 1 bytes", Hints: []string{"raise it"}}
	if h := captureHint(err, s, wire.Options{}, true); h != nil {
		t.Errorf("captureHint = %q, want nil", h)
	}
	// Other errors still get theirs.
	other := &wire.Error{Server: "big", Stage: wire.StageList, Kind: wire.ErrExited, Msg: "process exited"}
	if h := captureHint(other, s, wire.Options{}, true); !slices.ContainsFunc(h, func(h string) bool { return len(h) > 0 }) {
		t.Errorf("captureHint(exited) = %q, want a hint", h)
	}
}
