package config

import (
	"testing"

	"github.com/agentgate/agentgate/mcp/guardargs"
)

func TestServerPackage(t *testing.T) {
	if _, ok, err := (Server{Transport: StreamableHTTP, URL: "https://x"}).Package(); ok || err != nil {
		t.Errorf("remote server: ok=%v err=%v, want nothing recorded", ok, err)
	}
	p, ok, err := (Server{Transport: Stdio, Command: "npx", Args: []string{"-y", "pkg@1.0.0"}}).Package()
	if !ok || err != nil || p.Name != "pkg" {
		t.Errorf("stdio npx: %+v %v %v", p, ok, err)
	}
}

// TestRemoteTransportSpelling: guardargs.RemoteTransport names the
// transport of guard's --transport value as Transport spells it, which
// seeThrough and agentgate-mcp bridge convert it with.
func TestRemoteTransportSpelling(t *testing.T) {
	for v, want := range map[string]Transport{"": StreamableHTTP, "http": StreamableHTTP, "sse": SSE} {
		if got, _, err := guardargs.RemoteTransport(v); err != nil || Transport(got) != want {
			t.Errorf("RemoteTransport(%q) = %q, %v; want %q", v, got, err, want)
		}
	}
}
