package check

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentgate/agentgate/mcp/config"
	"github.com/agentgate/agentgate/mcp/wire"
)

// TestTimeoutHint: a timeout's hint names the timeout the server ran
// with: its own (agentgate.toml's [servers.NAME] timeout), else the
// run's, else the default of 60 s.
func TestTimeoutHint(t *testing.T) {
	err := fmt.Errorf("initialize: %w", context.DeadlineExceeded)
	for _, tc := range []struct {
		s    config.Server
		o    wire.Options
		want string
	}{
		{config.Server{Name: "a", Timeout: 9 * time.Second}, wire.Options{Timeout: 7 * time.Second}, "within 9s;"},
		{config.Server{Name: "a"}, wire.Options{Timeout: 7 * time.Second}, "within 7s;"},
		{config.Server{Name: "a"}, wire.Options{}, "within 1m0s;"},
	} {
		h := captureHint(err, tc.s, tc.o, false)
		if len(h) != 1 || !strings.Contains(h[0], tc.want) {
			t.Errorf("captureHint(server timeout %v, run timeout %v) = %q; want one hint with %q", tc.s.Timeout, tc.o.Timeout, h, tc.want)
		}
	}
}
