package workflows

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/agentgate/agentgate/internal/testing/testenv"
)

// TestWorkflowRunsEveryOS: the test job runs scripts/test.sh on Linux,
// macOS and Windows with Node and pre-commit, Windows with
// core.autocrlf=true; the cross-build job runs scripts/crossbuild.sh; the
// release job checks .goreleaser.yaml with the version the script pins.
func TestWorkflowRunsEveryOS(t *testing.T) {
	root := testenv.RepoRoot(t)
	data, err := os.ReadFile(filepath.Join(root, ".github", "workflows", "test.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Jobs map[string]struct {
			Strategy struct {
				Matrix struct {
					OS []string `yaml:"os"`
				} `yaml:"matrix"`
			} `yaml:"strategy"`
			Steps []struct {
				Uses string            `yaml:"uses"`
				Run  string            `yaml:"run"`
				With map[string]string `yaml:"with"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatal(err)
	}
	test := wf.Jobs["test"]
	if !slices.Equal(test.Strategy.Matrix.OS, []string{"ubuntu-latest", "macos-latest", "windows-latest"}) {
		t.Errorf("test matrix: %v", test.Strategy.Matrix.OS)
	}
	var runs, uses []string
	for _, s := range test.Steps {
		runs, uses = append(runs, s.Run), append(uses, s.Uses)
	}
	for _, want := range []string{"scripts/test.sh", "python -m pip install pre-commit==4.3.0", "git config --global core.autocrlf true"} {
		if !slices.Contains(runs, want) {
			t.Errorf("the test job does not run %q", want)
		}
	}
	for _, want := range []string{"actions/setup-go@", "actions/setup-node@", "actions/setup-python@"} {
		if !slices.ContainsFunc(uses, func(u string) bool { return strings.HasPrefix(u, want) }) {
			t.Errorf("the test job does not use %s (pinned by SHA, TestActionsPinned)", want)
		}
	}
	if cb := wf.Jobs["crossbuild"]; len(cb.Steps) == 0 || cb.Steps[len(cb.Steps)-1].Run != "scripts/crossbuild.sh" {
		t.Errorf("no cross-build job running scripts/crossbuild.sh")
	}
	script, err := os.ReadFile(filepath.Join(root, "scripts", "goreleaser.sh"))
	if err != nil {
		t.Fatal(err)
	}
	// goreleaser-action installs GoReleaser (the version scripts/goreleaser.sh
	// pins); later steps run check, the snapshot and verify-dist.
	var installs, checks, snapshot, verify bool
	for _, s := range wf.Jobs["release-config"].Steps {
		switch {
		case strings.HasPrefix(s.Uses, "goreleaser/goreleaser-action@"):
			installs = s.With["install-only"] == "true"
			if v := s.With["version"]; !strings.Contains(string(script), "VERSION=${GORELEASER_VERSION:-"+v+"}") {
				t.Errorf("the workflow runs goreleaser %s, scripts/goreleaser.sh another version", v)
			}
		case installs && s.Run == "goreleaser check":
			checks = true
		case installs && strings.Contains(s.Run, "goreleaser release --snapshot"):
			snapshot = true
		case snapshot && s.Run == "scripts/goreleaser.sh verify-dist":
			verify = true
		}
	}
	if !snapshot || !verify {
		t.Error("release-config does not build a snapshot and check it with scripts/goreleaser.sh verify-dist")
	}
	if !checks {
		t.Error("no job runs goreleaser check")
	}
}
