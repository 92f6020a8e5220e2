package registry

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/internal/testing/testenv"
)

// The registry this machine's npm is configured for, through npm's own
// configuration: one server pinned exactly (the version testdata/npm
// pins) and one unpinned, each compared with what `npm view` says.
func TestNPMRealRegistry(t *testing.T) {
	if testing.Short() {
		t.Skip("network")
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		testenv.Missing(t, "npm is not on PATH")
	}
	root := testenv.RepoRoot(t)
	data, err := os.ReadFile(filepath.Join(root, "testdata", "npm", "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	var pj struct{ Dependencies map[string]string }
	if err := json.Unmarshal(data, &pj); err != nil {
		t.Fatal(err)
	}
	memVer := pj.Dependencies["@modelcontextprotocol/server-memory"]
	if memVer == "" {
		t.Fatal("testdata/npm pins no server-memory")
	}
	view := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(npm, append([]string{"view"}, args...)...)
		cmd.Dir = root
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("npm view %v: %v", args, err)
		}
		return strings.TrimSpace(string(out))
	}
	r := &Resolver{Dir: root}
	for _, c := range []struct{ arg, name string }{
		{"@modelcontextprotocol/server-memory@" + memVer, "@modelcontextprotocol/server-memory"},
		{"@modelcontextprotocol/server-filesystem", "@modelcontextprotocol/server-filesystem"},
	} {
		got, err := r.Resolve(context.Background(), npmSpec(t, c.arg), nil)
		if err != nil {
			t.Fatalf("%s: %v", c.arg, err)
		}
		wantVer := memVer
		if !strings.Contains(c.arg[1:], "@") {
			wantVer = view(c.name, "version") // what npx runs today: the latest dist-tag
		}
		if got.Name != c.name || got.Version != wantVer {
			t.Errorf("%s: resolved %s@%s, npm view says %s", c.arg, got.Name, got.Version, wantVer)
		}
		if want := view(c.name+"@"+got.Version, "dist.integrity"); got.Integrity != want || !strings.HasPrefix(want, "sha512-") {
			t.Errorf("%s: integrity %s, npm view says %s", c.arg, got.Integrity, want)
		}
		cmd := exec.Command(npm, "config", "get", "registry")
		cmd.Dir = root
		reg, _ := cmd.Output()
		if strings.TrimSuffix(got.Registry, "/") != strings.TrimSuffix(strings.TrimSpace(string(reg)), "/") {
			t.Errorf("%s: registry %s, npm config get registry says %s", c.arg, got.Registry, reg)
		}
		t.Logf("%s -> %s (npm cache entry checked: %q)", c.arg, got.Version, got.Cache)
	}
}
