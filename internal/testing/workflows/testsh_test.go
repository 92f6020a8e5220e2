package workflows

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/internal/testing/testenv"
)

// TestTestShPhases (issue #26 item 14): scripts/test.sh, silent for
// minutes on a cold machine before, announces each long phase: every line
// that runs an install, a vet, a build or the tests directly follows a
// `phase "..."` line, and the phase function prints to stderr.
func TestTestShPhases(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "scripts", "test.sh"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	if !strings.Contains(string(data), `phase() { echo "scripts/test.sh: `) || !strings.Contains(string(data), `>&2; }`) {
		t.Fatalf("scripts/test.sh has no phase function printing to stderr")
	}
	long := []string{"npm_ci ", "apt-get update", "go vet ", "scripts/crossbuild.sh", "NO_COLOR=1 scripts/goreleaser.sh check", "NO_COLOR=1 scripts/goreleaser.sh snapshot", "unformatted=$(gofmt", "dead=$(go tool deadcode", "if ! found=$(go tool staticcheck", "go test "}
	seen := map[string]bool{}
	for i, l := range lines {
		l = strings.TrimSpace(l)
		for _, p := range long {
			if !strings.HasPrefix(l, p) {
				continue
			}
			seen[p] = true
			if i == 0 || !strings.HasPrefix(strings.TrimSpace(lines[i-1]), `phase "`) {
				t.Errorf("scripts/test.sh:%d: %q runs without a phase line before it", i+1, l)
			}
		}
	}
	for _, p := range long {
		if !seen[p] {
			t.Errorf("scripts/test.sh has no line starting %q: the list above is out of date", p)
		}
	}
}
