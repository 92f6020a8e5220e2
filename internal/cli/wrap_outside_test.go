package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/lock"
)

// outsideConfig is a config file with one unpinned npm server "outer",
// which wrap would wrap and pin would pin.
const outsideConfig = `{
  "mcpServers": {
    "outer": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"]}
  }
}
`

// outsideLinks lays out, for each way a config file in the repository can
// lead out of it, an [[extra]] file doing so: a symbolic link to a file
// outside (link/mcp.json), a file under a linked directory
// (linkdir/mcp.json), and a default-discovered file that is a link out of
// the repository and named in [[extra]] (.cursor/mcp.json). It returns the
// outside files, by their path in the repository.
func outsideLinks(t *testing.T, r *testRepo) map[string]string {
	t.Helper()
	out := t.TempDir()
	files := map[string]string{}
	for _, name := range []string{"a.json", "dir/mcp.json", "c.json"} {
		p := filepath.Join(out, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(strings.ReplaceAll(outsideConfig, "outer", "outer-"+strings.Split(name, ".")[0][:1])), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, dir := range []string{"link", ".cursor"} {
		if err := os.MkdirAll(filepath.Join(r.dir, dir), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{"link/mcp.json": "a.json", "linkdir": "dir", ".cursor/mcp.json": "c.json"}
	for from, to := range links {
		if err := os.Symlink(filepath.Join(out, to), filepath.Join(r.dir, filepath.FromSlash(from))); err != nil {
			t.Fatal(err)
		}
	}
	files["link/mcp.json"] = filepath.Join(out, "a.json")
	files["linkdir/mcp.json"] = filepath.Join(out, "dir", "mcp.json")
	files[".cursor/mcp.json"] = filepath.Join(out, "c.json")
	r.write("agentgate.toml", `[[extra]]
path = "link/mcp.json"
format = "claude-code"

[[extra]]
path = "linkdir/mcp.json"
format = "claude-code"

[[extra]]
path = ".cursor/mcp.json"
format = "cursor"
`)
	return files
}

// readAll reads every file of files (outside the repository).
func readAll(t *testing.T, files map[string]string) map[string]string {
	t.Helper()
	got := map[string]string{}
	for rel, abs := range files {
		b, err := os.ReadFile(abs)
		if err != nil {
			t.Fatal(err)
		}
		got[rel] = string(b)
	}
	return got
}

// checkUntouched fails t when a file outside the repository changed or a
// link in it is no longer a link.
func checkUntouched(t *testing.T, r *testRepo, files map[string]string, before map[string]string) {
	t.Helper()
	for rel, want := range before {
		if got := readAll(t, files)[rel]; got != want {
			t.Errorf("%s (outside the repository, through a link) was edited:\n%s", rel, got)
		}
	}
	for _, l := range []string{"link/mcp.json", "linkdir", ".cursor/mcp.json"} {
		if fi, err := os.Lstat(filepath.Join(r.dir, filepath.FromSlash(l))); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s is no longer a symbolic link (%v)", l, err)
		}
	}
}

// TestWrapLinkOutside: wrap, unwrap and pin never edit a config file that
// lies outside the repository through a symbolic link (an [[extra]] file
// that is a link, or lies under a linked directory): the outside file
// keeps its bytes, the link stays, each such file that would change is
// named on stderr, and the repository's own files are edited as usual.
func TestWrapLinkOutside(t *testing.T) {
	r := newRepo(t, true, notesServer)
	files := outsideLinks(t, r)
	before := readAll(t, files)
	r.mustRun(ExitOK, "lock", "--server", "notes")

	stdout, stderr := r.mustRun(ExitOK, "wrap")
	checkUntouched(t, r, files, before)
	if !strings.Contains(stdout, `agentgate: .mcp.json: wrapped "notes"`) {
		t.Errorf("wrap did not wrap the repository's own file:\n%s", stdout)
	}
	for rel := range files {
		want := "agentgate wrap: warning: " + rel + ": a symbolic link (or under one) that leads outside the repository: not edited"
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr does not name %s:\n%s", rel, stderr)
		}
	}
	// --dry-run shows no edit of them either.
	stdout, _ = r.mustRun(ExitOK, "wrap", "--dry-run")
	if strings.Contains(stdout, "outer") {
		t.Errorf("wrap --dry-run shows edits of outside files:\n%s", stdout)
	}
	r.mustRun(ExitOK, "unwrap")
	checkUntouched(t, r, files, before)

	// pin: the outside servers' packages are locked, and still not pinned
	// in place.
	pkg := &lock.Package{Ecosystem: "npm", Name: "@modelcontextprotocol/server-memory", Version: "2026.8.31", Integrity: pinMemIntegrity}
	writePackageLock(t, r, map[string]*lock.Package{"outer-a": pkg, "outer-d": pkg, "outer-c": pkg})
	stdout, stderr = r.mustRun(ExitOK, "pin")
	checkUntouched(t, r, files, before)
	if strings.Contains(stdout, "outer") {
		t.Errorf("pin reports pinning servers outside the repository:\n%s", stdout)
	}
	if !strings.Contains(stderr, "agentgate pin: warning: link/mcp.json: a symbolic link (or under one) that leads outside the repository: not edited") {
		t.Errorf("pin stderr:\n%s", stderr)
	}
}
