package wire

import (
	"testing"
	"time"

	"github.com/agentgate/agentgate/mcp/config"
)

// TestForServer: a server's own bound, else the run's, else the default,
// for each of the three bounds a server may set; the run-wide bounds
// take the run's value, else the default.
func TestForServer(t *testing.T) {
	run := Options{Timeout: 7 * time.Second, MaxListingBytes: 7 << 20, MaxTools: 7, Concurrency: 3}
	own := config.Server{Timeout: 9 * time.Second, MaxListingBytes: 9 << 20, MaxTools: 9}
	for _, tc := range []struct {
		name string
		o    Options
		s    config.Server
		want Options
	}{
		{"the server's own", run, own, Options{Timeout: 9 * time.Second, MaxListingBytes: 9 << 20, MaxTools: 9, Concurrency: 3}},
		{"the run's", run, config.Server{}, Options{Timeout: 7 * time.Second, MaxListingBytes: 7 << 20, MaxTools: 7, Concurrency: 3}},
		{"the defaults", Options{}, config.Server{}, Options{Timeout: 60 * time.Second, MaxListingBytes: 128 << 20, MaxTools: 20000, Concurrency: 8}},
		{"negative is unset", Options{Timeout: -1, MaxTools: -1}, config.Server{Timeout: -1, MaxListingBytes: -1}, Options{Timeout: 60 * time.Second, MaxListingBytes: 128 << 20, MaxTools: 20000, Concurrency: 8}},
	} {
		got := tc.o.ForServer(tc.s)
		tc.want.MaxResponseBytes, tc.want.MaxPages, tc.want.WaitAfter = 64<<20, 1000, 5*time.Second
		if got != tc.want {
			t.Errorf("%s: ForServer = %+v; want %+v", tc.name, got, tc.want)
		}
	}
}
