package capture

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentgate/agentgate/mcp/config"
	"github.com/agentgate/agentgate/mcp/wire"
)

// Listing caps (issue #17 item 9): a server whose pages add up to more
// than its listing cap, or to more tools than its tool cap, fails alone,
// as soon as the page that crosses it arrives; the other servers of the
// run are captured.
func TestHostileListingCaps(t *testing.T) {
	big := fake(t, "big", "-generate", "400", "-schema-bytes", "2048", "-page-size", "50") // ~1 MB in 8 pages
	big.MaxListingBytes = 300 << 10
	many := fake(t, "many", "-generate", "120", "-schema-bytes", "16", "-page-size", "10")
	many.MaxTools = 100
	ok := fake(t, "ok", "-generate", "120", "-schema-bytes", "16", "-page-size", "10")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res := CaptureAll(ctx, []config.Resolved{big, many, ok}, wire.Options{Timeout: 30 * time.Second})
	if !errors.Is(res[0].Err, wire.ErrTooLarge) || !strings.Contains(res[0].Err.Error(), "the listing is larger than 307200 bytes after 3 pages") {
		t.Errorf("big: %v", res[0].Err)
	}
	if !errors.Is(res[1].Err, wire.ErrTooLarge) || !strings.Contains(res[1].Err.Error(), "more than 100 tools after 11 pages") {
		t.Errorf("many: %v", res[1].Err)
	}
	// Each names the setting to raise, for its server, as a hint (a value
	// that travels to agentgate, which prints it as a hint line).
	for i, want := range []string{
		fmt.Sprintf(`[servers.big] max-listing-bytes = "512MiB" (default %d MiB)`, wire.DefaultMaxListingBytes>>20),
		fmt.Sprintf(`[servers.many] max-tools = 50000 (default %d)`, wire.DefaultMaxTools)} {
		if h := errHints(res[i].Err); len(h) != 1 || !strings.Contains(h[0], want) {
			t.Errorf("%s: hints %q, want one naming %s", res[i].Server, h, want)
		}
	}
	if res[2].Err != nil || len(res[2].Tools) != 120 {
		t.Errorf("ok: %v, %d tools", res[2].Err, len(res[2].Tools))
	}
	// The run's options set the caps for servers without their own.
	res = CaptureAll(ctx, []config.Resolved{fake(t, "ok", "-generate", "120", "-schema-bytes", "16", "-page-size", "10")}, wire.Options{Timeout: 30 * time.Second, MaxTools: 119})
	if !errors.Is(res[0].Err, wire.ErrTooLarge) {
		t.Errorf("run option MaxTools: %v", res[0].Err)
	}
}

// errHints is the Hints of err's *wire.Error, or nil.
func errHints(err error) []string {
	var e *wire.Error
	if errors.As(err, &e) {
		return e.Hints
	}
	return nil
}
