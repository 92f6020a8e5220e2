package check

import (
	"slices"
	"strings"
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

// An agentgate-mcp killed or answering more than it may (wire sets
// HelperError.Overloaded) gets the hint to lower the limits, not to
// reinstall it; one that failed otherwise, the reinstall hint.
func TestHelperHintsOverloaded(t *testing.T) {
	e := Env{Getenv: func(string) string { return "" }, Version: "v1.2.3"}
	he := &wire.HelperError{Path: "/bin/agentgate-mcp", Msg: "exit status 137", Kind: wire.ErrHelperFailed, Overloaded: true}
	if h := HelperHints(e, he); len(h) != 1 || !strings.Contains(h[0], "lower max-listing-bytes, max-tools or concurrency") {
		t.Errorf("overloaded: hints %q", h)
	}
	he.Overloaded = false
	if h := HelperHints(e, he); len(h) == 0 || strings.Contains(h[0], "lower max-listing-bytes") {
		t.Errorf("not overloaded: hints %q", h)
	}
}
