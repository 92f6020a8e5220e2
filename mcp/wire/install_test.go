package wire

import (
	"bytes"
	"context"
	"runtime/debug"
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

// TestVersionOf: where the version comes from, in order: -ldflags -X, the
// module version (a release, or the pseudo-version Go stamps from a
// checkout's commit, +dirty included), a VCS revision without a module
// version, else "devel". The build information here is what `go version
// -m` shows for builds of this repository (go build with -buildvcs=true
// at d19f397; go install @v1.2.3; go build -buildvcs=false).
func TestVersionOf(t *testing.T) {
	vcs := func(rev, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev},
			{Key: "vcs.time", Value: "2026-12-01T03:12:16Z"}, {Key: "vcs.modified", Value: modified}}
	}
	const rev = "d19f3972e8e2b0959ab0e09ebfeb363b2dadc1b5"
	tests := []struct {
		name, x string
		bi      *debug.BuildInfo
		want    string
	}{
		{"ldflags win", "v1.2.3", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261201031216-d19f3972e8e2"}}, "v1.2.3"},
		{"go install @v1.2.3", "", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, "v1.2.3"},
		{"checkout, stamped", "", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261201031216-d19f3972e8e2"}, Settings: vcs(rev, "false")},
			"v0.0.0-20261201031216-d19f3972e8e2"},
		{"checkout, stamped, dirty", "", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261201031216-d19f3972e8e2+dirty"}, Settings: vcs(rev, "true")},
			"v0.0.0-20261201031216-d19f3972e8e2+dirty"},
		{"revision without module version", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs(rev, "false")}, "devel+d19f3972e8e2"},
		{"revision without module version, dirty", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs(rev, "true")}, "devel+d19f3972e8e2+dirty"},
		{"-buildvcs=false", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "devel"},
		{"no build information", "", nil, "devel"},
	}
	for _, tc := range tests {
		if got := versionOf(tc.x, tc.bi); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	// A revision-derived version is a build from a checkout: the hint is
	// the checkout's commands.
	if h := InstallHint("devel+d19f3972e8e2"); !strings.Contains(h, "from one checkout") {
		t.Errorf("InstallHint(devel+...) = %s", h)
	}
}
