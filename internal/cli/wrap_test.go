package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestWrapReadOnly: a config that cannot be written is exit 3, the file
// keeps its bytes and no temporary file is left.
func TestWrapReadOnly(t *testing.T) {
	dir := mountTmpfs(t, 1<<20)
	r := &testRepo{t: t, dir: dir, env: map[string]string{}}
	r.writeConfig(notesServer)
	before := string(r.read(".mcp.json"))
	if out, err := exec.Command("mount", "-o", "remount,ro", dir).CombinedOutput(); err != nil {
		t.Fatalf("remount read-only: %v: %s", err, out)
	}
	code, _, stderr := r.agentgate("wrap")
	if code != ExitUnverified || !strings.Contains(stderr, "agentgate wrap: error: could not write .mcp.json") ||
		!strings.Contains(stderr, "read-only file system") {
		t.Fatalf("exit %d, want 3:\n%s", code, stderr)
	}
	if got := string(r.read(".mcp.json")); got != before {
		t.Errorf(".mcp.json changed:\n%s", got)
	}
	assertNoTempFiles(t, dir)
}

// TestWrapSymlinkedConfig: .cursor/mcp.json linking to .mcp.json is one
// file read as two clients' configs: it is edited once, the link stays a
// link, and unwrap restores the file.
func TestWrapSymlinkedConfig(t *testing.T) {
	r := newRepo(t, true, notesServer)
	before := string(r.read(".mcp.json"))
	if err := os.MkdirAll(filepath.Join(r.dir, ".cursor"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../.mcp.json", filepath.Join(r.dir, ".cursor", "mcp.json")); err != nil {
		t.Fatal(err)
	}
	stdout, _ := r.mustRun(ExitOK, "wrap")
	if strings.Count(stdout, ": wrapped ") != 1 || strings.Count(string(r.read(".mcp.json")), `"guard"`) != 1 {
		t.Errorf("wrap output:\n%s\nfile:\n%s", stdout, r.read(".mcp.json"))
	}
	if fi, err := os.Lstat(filepath.Join(r.dir, ".cursor", "mcp.json")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf(".cursor/mcp.json is no longer a link (%v)", err)
	}
	r.mustRun(ExitOK, "unwrap")
	if got := string(r.read(".mcp.json")); got != before {
		t.Errorf("unwrap:\n%s\nwant\n%s", got, before)
	}
}
