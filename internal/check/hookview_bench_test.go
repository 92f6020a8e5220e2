package check

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gitint"
	"github.com/agentgate/agentgate/internal/testing/testenv"
	"github.com/agentgate/agentgate/lock"
)

// BenchmarkHookPlan is what the commit hook adds to the capture it does
// (issue #18): on a repository with 20 servers whose commit changes one,
// read the index's configs and HEAD's (config.LoadAt twice), the staged
// and HEAD lockfiles, resolve every server twice and decide what to start.
// The capture of the changed server is not included (it is `agentgate
// lock` of that server, the target's yardstick; see scripts/bench/hook.sh).
func BenchmarkHookPlan(b *testing.B) {
	dir := b.TempDir()
	git := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = dir, testenv.GitEnv()
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	config20 := func(changed string) string {
		var entries []string
		for i := range 20 {
			arg := "a.json"
			if fmt.Sprint(i) == changed {
				arg = "b.json"
			}
			entries = append(entries, fmt.Sprintf(`"s%d": {"command": "srv", "args": ["-tools", %q], "env": {"TOKEN": "${TOKEN}"}}`, i, arg))
		}
		return `{"mcpServers": {` + strings.Join(entries, ", ") + "}}\n"
	}
	servers := map[string]lock.Server{}
	for i := range 20 {
		servers[fmt.Sprintf("s%d", i)] = modelSurface(b, i)
	}
	for name, data := range map[string]string{
		".mcp.json":      config20(""),
		"agentgate.lock": string(lock.Format(lock.New(lock.Version1, servers, lock.Stamp{By: "agentgate@bench"}, nil))),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	git("init", "-q", "-b", "main")
	git("add", "-A")
	git("commit", "-q", "-m", "base")
	if err := os.WriteFile(filepath.Join(dir, ".mcp.json"), []byte(config20("7")), 0o644); err != nil {
		b.Fatal(err)
	}
	git("add", ".mcp.json")
	lookup := func(k string) (string, bool) { return "secret-" + k, true }
	b.ResetTimer()
	for b.Loop() {
		repo, err := gitint.Open(dir)
		if err != nil {
			b.Fatal(err)
		}
		staged, err := LoadStaged(repo)
		if err != nil {
			b.Fatal(err)
		}
		ws := NewWorkspace(dir, repo, repo.Root(), staged, "")
		changes, err := repo.StagedChanges(func(p string) bool { return p == ws.LockRel || staged.IsConfigPath(p) })
		if err != nil {
			b.Fatal(err)
		}
		data, _, err := repo.FileInIndex(ws.LockRel)
		if err != nil {
			b.Fatal(err)
		}
		old, err := lock.Parse(data)
		if err != nil {
			b.Fatal(err)
		}
		hv, err := ReadHead(ws, changes, true)
		if err != nil {
			b.Fatal(err)
		}
		plan := PlanHook(lookup, staged, hv.Project, hv.ProjectErr, old, hv.Lf, "",
			func(abs string) bool { return CommittedUnchanged(repo, abs) })
		if len(plan.Capture) != 1 || plan.Capture[0].Name != "s7" {
			b.Fatalf("plan captures %v, want s7 only", plan.Capture)
		}
	}
}
