package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/internal/testing/testenv"
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

// TestWrapAllOrNothing: with one of two config files unwritable (a
// read-only mount under .vscode, written after .mcp.json in path order),
// wrap writes neither (issue #24 finding 11): exit 3 naming the file that
// could not be written, .mcp.json byte for byte as it was, no temporary
// file left in either directory.
func TestWrapAllOrNothing(t *testing.T) {
	if os.Geteuid() != 0 {
		testenv.Missing(t, "mounting a tmpfs needs root (CI runs as root)")
	}
	r := newRepo(t, false, notesServer)
	ro := filepath.Join(r.dir, ".vscode")
	if err := os.Mkdir(ro, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=1048576", "tmpfs", ro).CombinedOutput(); err != nil {
		testenv.Missing(t, fmt.Sprintf("mount -t tmpfs: %v: %s", err, out))
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", ro).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", ro, err, out)
		}
	})
	r.write(".vscode/mcp.json", `{"servers": {"notes2": {"command": "node", "args": ["srv.js"]}}}`+"\n")
	before, beforeVS := string(r.read(".mcp.json")), string(r.read(".vscode/mcp.json"))
	if out, err := exec.Command("mount", "-o", "remount,ro", ro).CombinedOutput(); err != nil {
		t.Fatalf("remount read-only: %v: %s", err, out)
	}
	code, stdout, stderr := r.agentgate("wrap")
	if code != ExitUnverified || !strings.Contains(stderr, "could not write .vscode/mcp.json") ||
		!strings.Contains(stderr, "read-only file system") || !strings.Contains(stderr, "no file was changed") {
		t.Fatalf("exit %d, want 3:\n%s\n%s", code, stdout, stderr)
	}
	if strings.Contains(stdout, "wrapped") {
		t.Errorf("stdout claims a file was wrapped:\n%s", stdout)
	}
	if got := string(r.read(".mcp.json")); got != before {
		t.Errorf(".mcp.json changed:\n%s", got)
	}
	if got := string(r.read(".vscode/mcp.json")); got != beforeVS {
		t.Errorf(".vscode/mcp.json changed:\n%s", got)
	}
	for _, dir := range []string{r.dir, ro} {
		if tmp, _ := filepath.Glob(filepath.Join(dir, ".*.tmp-*")); len(tmp) > 0 {
			t.Errorf("temporary files left behind: %v", tmp)
		}
	}
}
