package wire

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestInstallHint: a released version is named in the go install
// command; every build from a checkout (devel, the pseudo-version Go
// stamps from the checkout's commit, +dirty) gets the checkout commands
// and the latest release. The commands are README.md's Install section's.
func TestInstallHint(t *testing.T) {
	const checkout = "install agentgate and agentgate-mcp together, from one checkout, into one directory: go install ./cmd/... (or go build -o DIR/ ./cmd/..., DIR being agentgate's directory); for the latest release: go install github.com/agentgate/agentgate/cmd/...@latest"
	tests := []struct{ version, want string }{
		{"v1.2.3", "install agentgate and agentgate-mcp together, from one version, into one directory: go install github.com/agentgate/agentgate/cmd/...@v1.2.3 (or the three binaries of one release archive: README.md, Install)"},
		{"v1.3.0-rc.1", "install agentgate and agentgate-mcp together, from one version, into one directory: go install github.com/agentgate/agentgate/cmd/...@v1.3.0-rc.1 ("},
		{"devel", checkout},
		{"", checkout},
		{"v0.0.0-20261201031216-d19f3972e8e2", checkout},
		{"v1.2.4-0.20261201031216-d19f3972e8e2", checkout},
		{"v0.0.0-20261201031216-d19f3972e8e2+dirty", checkout},
		{"v1.2.3+dirty", checkout},
		{"1.2.3", checkout},
	}
	for _, tc := range tests {
		if got := InstallHint(tc.version); !strings.HasPrefix(got, tc.want) {
			t.Errorf("InstallHint(%q) =\n%s\nwant it to start with\n%s", tc.version, got, tc.want)
		}
	}
}

// TestServeRefusalHint: agentgate-mcp refusing a capture request from
// another agentgate says which command installs both, at the version of
// the agentgate that asked, never a placeholder to fill in.
func TestServeRefusalHint(t *testing.T) {
	var out, errOut bytes.Buffer
	req := `{"protocol":3,"agentgate":"v1.2.3","options":{},"servers":[]}` + "\n"
	if code := Serve(context.Background(), nil, strings.NewReader(req), &out, &errOut, staged(echoCapture)); code != 2 {
		t.Fatalf("exit %d, want 2; stderr:\n%s", code, errOut.String())
	}
	want := "agentgate: hint: install agentgate and agentgate-mcp together, from one version, into one directory: go install github.com/agentgate/agentgate/cmd/...@v1.2.3 (or the three binaries of one release archive: README.md, Install)\n"
	if !strings.Contains(errOut.String(), want) || strings.Contains(errOut.String(), "@VERSION") {
		t.Errorf("stderr:\n%s\nwant %q", errOut.String(), want)
	}
}
