package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestDevelBuildsAtTwoCommits: agentgate and agentgate-mcp built from
// checkouts at two different commits (go build with VCS stamping, its
// default in a git clone; forced here, as this machine's GOFLAGS may turn
// it off) carry different versions (the pseudo-version of each commit)
// and refuse each other: `agentgate lock` and `agentgate guard` with the
// other commit's agentgate-mcp exit 3 naming both versions and the
// checkout's install command, and a helper of the same build is accepted.
func TestDevelBuildsAtTwoCommits(t *testing.T) {
	routeIsolateGit(t)
	snap := snapshotCheckout(t)
	env := append(os.Environ(), "GOFLAGS=-buildvcs=true", "GOTOOLCHAIN=local", "GOPROXY=off", "GOWORK=off")
	build := func(pkg string) string {
		t.Helper()
		dir := t.TempDir()
		cmd := exec.Command("go", "build", "-o", dir+string(filepath.Separator), pkg)
		cmd.Dir, cmd.Env = snap, env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", pkg, err, out)
		}
		return filepath.Join(dir, filepath.Base(pkg))
	}
	revA := strings.TrimSpace(routeGit(t, snap, "rev-parse", "HEAD"))
	helperA := build("./cmd/agentgate-mcp")
	routeWrite(t, snap, "NEXT", "a later commit\n")
	routeGit(t, snap, "add", "NEXT")
	routeGit(t, snap, "commit", "-q", "--no-verify", "-m", "a later commit")
	revB := strings.TrimSpace(routeGit(t, snap, "rev-parse", "HEAD"))
	agentgateB, helperB := build("./cmd/agentgate"), build("./cmd/agentgate-mcp")

	version := func(bin string) string {
		out, err := exec.Command(bin, "version").Output()
		if err != nil {
			t.Fatalf("%s version: %v", bin, err)
		}
		return strings.TrimSpace(string(out))
	}
	vA, vB := version(helperA), version(agentgateB)
	if !strings.Contains(vA, revA[:12]) || !strings.Contains(vB, revB[:12]) || !strings.Contains(version(helperB), revB[:12]) {
		t.Fatalf("versions do not name their commits: %q (%s), %q (%s)", vA, revA[:12], vB, revB[:12])
	}

	repo := routeNewRepo(t)
	routeWrite(t, repo, ".mcp.json", `{"mcpServers": {"s": {"command": "true"}}}`)
	run := func(helper string, args ...string) (int, string) {
		t.Helper()
		cmd := exec.Command(agentgateB, args...)
		cmd.Dir = repo
		cmd.Env = append(builtEnv(), "AGENTGATE_MCP="+helper)
		cmd.Stdin = strings.NewReader("")
		out, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), string(out)
		} else if err != nil {
			t.Fatal(err)
		}
		return 0, string(out)
	}
	const hint = "agentgate: hint: install agentgate and agentgate-mcp together, from one checkout, into one directory: go install ./cmd/..."
	for _, args := range [][]string{{"lock"}, {"guard", "--server", "s", "--allow-unlocked", "--", "true"}} {
		code, out := run(helperA, args...)
		if code != ExitUnverified || !strings.Contains(out, "are different versions") || !strings.Contains(out, revA[:12]) ||
			!strings.Contains(out, revB[:12]) || !strings.Contains(out, hint) {
			t.Errorf("%s with the other commit's helper: exit %d, want 3 naming both commits and the hint:\n%s", args[0], code, out)
		}
		if code, out := run(helperB, args...); strings.Contains(out, "different versions") {
			t.Errorf("%s with its own build's helper: exit %d:\n%s", args[0], code, out)
		}
	}
}
