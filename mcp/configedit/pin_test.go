package configedit

import (
	"path/filepath"
	"testing"

	"github.com/agentgate/agentgate/mcp/config"
	"github.com/agentgate/agentgate/mcp/launcher"
)

// TestPinnedArg: the argument pin writes keeps everything as written but
// the version part (expectations written by hand from each launcher's
// spec syntax).
func TestPinnedArg(t *testing.T) {
	const digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	tests := []struct {
		command string
		args    []string
		version string
		digest  string
		want    string
	}{
		{"npx", []string{"-y", "pkg"}, "1.4.2", "", "pkg@1.4.2"},
		{"npx", []string{"-y", "@scope/pkg@latest"}, "1.4.2", "", "@scope/pkg@1.4.2"},
		{"npx", []string{"-y", "pkg@^1.2"}, "1.4.2", "", "pkg@1.4.2"},
		{"npx", []string{"--package=@s/p@next", "bin"}, "2.0.0-rc.1", "", "--package=@s/p@2.0.0-rc.1"},
		{"npx", []string{"-p", "p", "bin"}, "1.0.0", "", "p@1.0.0"},
		{"npx", []string{"-y", "alias@npm:real@~1"}, "1.0.3", "", "alias@npm:real@1.0.3"},
		{"npm", []string{"exec", "--yes", "pkg"}, "1.0.0", "", "pkg@1.0.0"},
		{"uvx", []string{"mcp-server-time"}, "2026.1.0", "", "mcp-server-time==2026.1.0"},
		{"uvx", []string{"Mcp_Server[cli]>=1,<2"}, "1.5.0", "", "Mcp_Server[cli]==1.5.0"},
		{"uvx", []string{"tool@latest"}, "0.3.1", "", "tool@0.3.1"},
		{"uvx", []string{"--from=mcp-server-git", "mcp-server-git"}, "1.0.0", "", "--from=mcp-server-git==1.0.0"},
		{"uvx", []string{"--from", "mcp-server-git", "mcp-server-git"}, "1.0.0", "", "mcp-server-git==1.0.0"},
		{"pipx", []string{"run", "tool"}, "3.0", "", "tool==3.0"},
		{"docker", []string{"run", "-i", "--rm", "mcp/fetch:latest"}, "latest", digest, "mcp/fetch:latest@" + digest},
		{"docker", []string{"run", "-i", "localhost:5000/img"}, "latest", digest, "localhost:5000/img:latest@" + digest},
		{"podman", []string{"run", "img"}, "", digest, "img@" + digest},
		{"go", []string{"run", "example.com/m/cmd/x@latest"}, "v1.2.3", "", "example.com/m/cmd/x@v1.2.3"},
		// exact specs and files never change
		{"npx", []string{"-y", "pkg@1.0.0"}, "2.0.0", "", "pkg@1.0.0"},
		{"docker", []string{"run", "img@" + digest}, "", "sha256:" + "ff", "img@" + digest},
		{"node", []string{"./server.js"}, "", "", "./server.js"},
	}
	for _, tt := range tests {
		spec, err := launcher.RecognizePackage(tt.command, tt.args)
		if err != nil {
			t.Errorf("%s %q: %v", tt.command, tt.args, err)
			continue
		}
		got, err := spec.PinnedArg(tt.version, tt.digest)
		if err != nil || got != tt.want {
			t.Errorf("%s %q: PinnedArg = %q, %v; want %q", tt.command, tt.args, got, err, tt.want)
		}
	}
	for _, bad := range []struct {
		cmd             string
		args            []string
		version, digest string
	}{
		{"npx", []string{"pkg"}, "", ""},
		{"docker", []string{"run", "img:1"}, "1", "sha256:short"},
	} {
		spec, err := launcher.RecognizePackage(bad.cmd, bad.args)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := spec.PinnedArg(bad.version, bad.digest); err == nil {
			t.Errorf("%s %q: PinnedArg = %q, want an error", bad.cmd, bad.args, got)
		}
	}
}

// TestPinGoldenEveryFormat: issue #11 asks for `agentgate pin` "tested on
// every client format we read": each format Formats lists has a golden
// file in testdata/edit with a locked and a pin-out section (run by
// TestEditGolden).
func TestPinGoldenEveryFormat(t *testing.T) {
	files, _ := filepath.Glob("testdata/edit/*.txtar")
	pinned := map[string]bool{}
	for _, f := range files {
		a, client, _, err := readEditCase(f)
		if err != nil {
			t.Fatal(err)
		}
		has := map[string]bool{}
		for _, af := range a.Files {
			has[af.Name] = true
		}
		if has["locked"] && has["pin-out"] {
			pinned[client] = true
		}
	}
	for _, format := range config.Formats() {
		if !pinned[format] {
			t.Errorf("no pin golden file (locked + pin-out) for the %s format", format)
		}
	}
}
