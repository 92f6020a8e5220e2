package gitint

import (
	"bytes"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/internal/testing/testenv"
)

// isConfig is the kind of matcher the commit hook uses: lockfile and MCP
// client configs anywhere in the tree.
func isConfig(p string) bool {
	switch path.Base(p) {
	case "agentgate.lock", ".mcp.json", "mcp.json", "config.toml":
		return true
	}
	return false
}

// gitStaged is the oracle: git's own list of staged paths, filtered.
func gitStaged(t *testing.T, dir string, env ...string) []string {
	t.Helper()
	cmd := exec.Command("git", "diff", "--cached", "--name-only", "--no-renames", "-z")
	cmd.Dir = dir
	cmd.Env = append(testenv.GitEnv(), env...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git diff --cached: %v", err)
	}
	var got []string
	for _, p := range strings.Split(string(out), "\x00") {
		if p != "" && isConfig(p) {
			got = append(got, p)
		}
	}
	return got
}

func TestStagedChangesMatchesGit(t *testing.T) {
	dir := newRepo(t)
	files := map[string]string{
		"agentgate.lock":             "lock\n",
		".mcp.json":                  "{}\n",
		".vscode/mcp.json":           "{}\n",
		".codex/config.toml":         "x = 1\n",
		"svc/a/.mcp.json":            "{\"a\":1}\n",
		"svc/b/.mcp.json":            "{\"b\":1}\n",
		"svc/b/main.go":              "package b\n",
		"docs/readme.md":             "# hi\n",
		"deep/x/y/z/.mcp.json":       "{}\n",
		"unrelated/dir/file.txt":     "u\n",
		"unrelated/dir/sub/file.txt": "u\n",
	}
	for p, c := range files {
		write(t, dir, p, c)
	}
	commitAll(t, dir, "base")

	steps := []struct {
		name string
		do   func()
		want []string
	}{
		{"clean after commit", func() {}, nil},
		{"unstaged edits do not count", func() { write(t, dir, ".mcp.json", "{\"edited\":1}\n") }, nil},
		{"modified", func() { run(t, dir, "add", ".mcp.json") }, []string{".mcp.json"}},
		{"deleted", func() { run(t, dir, "rm", "-q", "svc/a/.mcp.json") }, []string{".mcp.json", "svc/a/.mcp.json"}},
		{"added in a new directory", func() {
			write(t, dir, "new/pkg/.mcp.json", "{}\n")
			run(t, dir, "add", "new")
		}, []string{".mcp.json", "new/pkg/.mcp.json", "svc/a/.mcp.json"}},
		{"mode change", func() { run(t, dir, "update-index", "--chmod=+x", "deep/x/y/z/.mcp.json") },
			[]string{".mcp.json", "deep/x/y/z/.mcp.json", "new/pkg/.mcp.json", "svc/a/.mcp.json"}},
		{"unmatched changes ignored", func() {
			write(t, dir, "unrelated/dir/file.txt", "changed\n")
			run(t, dir, "add", "-A", "unrelated")
			run(t, dir, "rm", "-q", "docs/readme.md")
		}, []string{".mcp.json", "deep/x/y/z/.mcp.json", "new/pkg/.mcp.json", "svc/a/.mcp.json"}},
		{"whole directory deleted", func() { run(t, dir, "rm", "-q", "-r", ".vscode") },
			[]string{".mcp.json", ".vscode/mcp.json", "deep/x/y/z/.mcp.json", "new/pkg/.mcp.json", "svc/a/.mcp.json"}},
		{"commit", func() { run(t, dir, "commit", "-q", "-m", "two") }, nil},
		{"staged then restored to HEAD content", func() {
			write(t, dir, "agentgate.lock", "other\n")
			run(t, dir, "add", "agentgate.lock")
			write(t, dir, "agentgate.lock", "lock\n")
			run(t, dir, "add", "agentgate.lock")
		}, nil},
	}
	for _, st := range steps {
		st.do()
		oracle := gitStaged(t, dir)
		if strings.Join(oracle, ",") != strings.Join(st.want, ",") {
			t.Fatalf("%s: test expectation %v disagrees with git %v", st.name, st.want, oracle)
		}
		r := mustOpen(t, dir)
		got, err := r.StagedChanges(isConfig)
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if strings.Join(got, ",") != strings.Join(st.want, ",") {
			t.Errorf("%s: StagedChanges = %v, want %v", st.name, got, st.want)
		}
		// The same answer without the index's cached trees (full walk).
		r2 := mustOpen(t, dir)
		idx, err := r2.index()
		if err != nil {
			t.Fatal(err)
		}
		idx.trees = nil
		got, err = r2.StagedChanges(isConfig)
		if err != nil || strings.Join(got, ",") != strings.Join(st.want, ",") {
			t.Errorf("%s: without cached trees: StagedChanges = %v, %v; want %v", st.name, got, err, st.want)
		}
	}
}

// After a commit the index's cached trees equal HEAD's, so StagedChanges
// must not look at any path at all.
func TestStagedChangesSkipsUnchangedTrees(t *testing.T) {
	dir := newRepo(t)
	for i := 0; i < 20; i++ {
		write(t, dir, filepath.Join("d", string(rune('a'+i)), "f.txt"), "x\n")
	}
	write(t, dir, "agentgate.lock", "x\n")
	commitAll(t, dir, "base")
	calls := 0
	count := func(p string) bool { calls++; return true }
	got, err := mustOpen(t, dir).StagedChanges(count)
	if err != nil || len(got) != 0 {
		t.Fatalf("StagedChanges = %v, %v", got, err)
	}
	if calls != 0 {
		t.Errorf("clean index: match called %d times, want 0 (cached trees should be skipped)", calls)
	}
	write(t, dir, "d/c/f.txt", "changed\n")
	run(t, dir, "add", "d/c/f.txt")
	// git commit rebuilds the cached trees before running the pre-commit
	// hook; git write-tree does the same.
	run(t, dir, "write-tree")
	calls = 0
	got, err = mustOpen(t, dir).StagedChanges(count)
	if err != nil || strings.Join(got, ",") != "d/c/f.txt" {
		t.Fatalf("StagedChanges = %v, %v", got, err)
	}
	// root + d/ are invalid; only agentgate.lock and d/c/f.txt are looked at
	// (once in HEAD's tree, once in the index).
	if calls > 4 {
		t.Errorf("one staged file: match called %d times, want at most 4", calls)
	}
}

// go-git drops invalidated cached-tree entries; a valid subtree must then
// not be mistaken for another directory with the same tree hash.
func TestStagedChangesPartialCachedTrees(t *testing.T) {
	dir := newRepo(t)
	write(t, dir, "a/.mcp.json", "1\n")
	write(t, dir, "d/a/.mcp.json", "1\n") // same tree as a/
	commitAll(t, dir, "base")
	write(t, dir, "a/.mcp.json", "2\n")
	run(t, dir, "add", "a/.mcp.json") // invalidates "" and a/, keeps d/ and d/a/
	got, err := mustOpen(t, dir).StagedChanges(isConfig)
	if err != nil || strings.Join(got, ",") != "a/.mcp.json" {
		t.Errorf("StagedChanges = %v, %v; want [a/.mcp.json]", got, err)
	}
}

// TestMain doubles as a hook program: when AGENTGATE_GITINT_HOOK is set, the
// test binary runs as a git pre-commit hook and records what FileInIndex and
// StagedChanges see.
func TestMain(m *testing.M) {
	if out := os.Getenv("AGENTGATE_GITINT_HOOK"); out != "" {
		os.Exit(hookMain(out))
	}
	code := m.Run()
	for _, d := range benchTmp {
		os.RemoveAll(d)
	}
	os.Exit(code)
}

func hookMain(out string) int {
	var b bytes.Buffer
	wd, _ := os.Getwd()
	r, err := Open(wd)
	if err != nil {
		b.WriteString("open: " + err.Error() + "\n")
	} else {
		data, ok, err := r.FileInIndex("agentgate.lock")
		b.WriteString("index: " + strings.TrimSpace(string(data)))
		if !ok || err != nil {
			b.WriteString(" (missing or error)")
		}
		b.WriteString("\n")
		ch, err := r.StagedChanges(isConfig)
		b.WriteString("staged: " + strings.Join(ch, ","))
		if err != nil {
			b.WriteString(" error: " + err.Error())
		}
		b.WriteString("\n")
	}
	if err := os.WriteFile(out, b.Bytes(), 0o644); err != nil {
		return 1
	}
	return 0
}

// A real pre-commit hook run by "git commit -a" and "git commit <path>",
// where git points GIT_INDEX_FILE at a temporary index.
func TestHookSeesTemporaryIndex(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := newRepo(t)
	write(t, dir, "agentgate.lock", "v1\n")
	write(t, dir, ".mcp.json", "{}\n")
	commitAll(t, dir, "one")
	report := filepath.Join(filepath.Dir(dir), "hook-report")
	hook := "#!/bin/sh\nAGENTGATE_GITINT_HOOK='" + report + "' exec '" + exe + "'\n"
	write(t, dir, ".git/hooks/pre-commit", hook)
	if err := os.Chmod(filepath.Join(dir, ".git/hooks/pre-commit"), 0o755); err != nil {
		t.Fatal(err)
	}

	cases := []struct {
		name, content string
		args          []string
	}{
		{"commit -a", "v2\n", []string{"commit", "-q", "-a", "-m", "two"}},
		{"commit <path>", "v3\n", []string{"commit", "-q", "-m", "three", "agentgate.lock"}},
	}
	for _, c := range cases {
		write(t, dir, "agentgate.lock", c.content)
		run(t, dir, c.args...)
		got, err := os.ReadFile(report)
		if err != nil {
			t.Fatalf("%s: hook did not run: %v", c.name, err)
		}
		want := "index: " + strings.TrimSpace(c.content) + "\nstaged: agentgate.lock\n"
		if string(got) != want {
			t.Errorf("%s: hook saw\n%s\nwant\n%s", c.name, got, want)
		}
		os.Remove(report)
	}
}

// indexTrees, when it hashes the entries itself, must agree with git
// write-tree on every directory.
func TestIndexTreesMatchesWriteTree(t *testing.T) {
	dir := newRepo(t)
	for _, p := range []string{"a.txt", "a/b.txt", "a-b/c", "a0", "z/y/x/w", "sp ace/f", "ü/f"} {
		write(t, dir, p, p+"\n")
	}
	write(t, dir, "link-target", "t\n")
	if err := os.Symlink("link-target", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	run(t, dir, "add", "-A")
	run(t, dir, "update-index", "--chmod=+x", "a0")
	want := run(t, dir, "write-tree")
	r := mustOpen(t, dir)
	idx, err := r.index()
	if err != nil {
		t.Fatal(err)
	}
	idx.trees = nil
	trees := indexTrees(idx)
	if got := trees[""].String(); got != want {
		t.Errorf("root tree = %s, git write-tree = %s", got, want)
	}
	for _, d := range []string{"a", "z/y", "sp ace"} {
		want := run(t, dir, "rev-parse", want+":"+d)
		if got := trees[d+"/"].String(); got != want {
			t.Errorf("tree %s = %s, git = %s", d, got, want)
		}
	}
}

// IndexPaths lists what git ls-files lists (the oracle), filtered, and
// leaves out intent-to-add entries; an unmerged path is listed once.
func TestIndexPathsMatchesGit(t *testing.T) {
	dir := newRepo(t)
	for p, c := range map[string]string{
		".mcp.json": "{}\n", "svc/a/.mcp.json": "{}\n", "docs/readme.md": "x\n", "agentgate.lock": "l\n",
	} {
		write(t, dir, p, c)
	}
	commitAll(t, dir, "base")
	write(t, dir, "new/.mcp.json", "{}\n")
	run(t, dir, "add", "new/.mcp.json")
	run(t, dir, "rm", "-q", "--cached", "svc/a/.mcp.json") // still in the work tree, not in the index
	write(t, dir, "later/.mcp.json", "{}\n")
	run(t, dir, "add", "-N", "later/.mcp.json")
	var want []string
	for _, p := range strings.Split(run(t, dir, "ls-files", "-z", "--cached"), "\x00") {
		if p != "" && isConfig(p) && p != "later/.mcp.json" {
			want = append(want, p)
		}
	}
	if strings.Join(want, ",") != ".mcp.json,agentgate.lock,new/.mcp.json" {
		t.Fatalf("test expectation: git ls-files gives %v", want)
	}
	got, err := mustOpen(t, dir).IndexPaths(isConfig)
	if err != nil || strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("IndexPaths = %v, %v; want %v", got, err, want)
	}
}

// SymlinkAt and SymlinkInIndex tell a committed or staged symbolic link
// (FileAt and FileInIndex then give its target) from a file.
func TestSymlinkAtAndInIndex(t *testing.T) {
	dir := newRepo(t)
	write(t, dir, "target.json", "{}\n")
	if err := os.Symlink("target.json", filepath.Join(dir, "link.json")); err != nil {
		t.Skipf("cannot make a symbolic link here: %v", err)
	}
	commitAll(t, dir, "base")
	r := mustOpen(t, dir)
	for _, tc := range []struct {
		path string
		want bool
	}{{"link.json", true}, {"target.json", false}, {"missing.json", false}} {
		at, err := r.SymlinkAt("HEAD", tc.path)
		if err != nil || at != tc.want {
			t.Errorf("SymlinkAt(HEAD, %s) = %v, %v; want %v", tc.path, at, err, tc.want)
		}
		in, err := r.SymlinkInIndex(tc.path)
		if err != nil || in != tc.want {
			t.Errorf("SymlinkInIndex(%s) = %v, %v; want %v", tc.path, in, err, tc.want)
		}
	}
	if data, ok, err := r.FileAt("HEAD", "link.json"); err != nil || !ok || string(data) != "target.json" {
		t.Errorf("FileAt(HEAD, link.json) = %q, %v, %v; want the target", data, ok, err)
	}
	// staged as a regular file from now on
	if err := os.Remove(filepath.Join(dir, "link.json")); err != nil {
		t.Fatal(err)
	}
	write(t, dir, "link.json", "{}\n")
	run(t, dir, "add", "link.json")
	if in, err := mustOpen(t, dir).SymlinkInIndex("link.json"); err != nil || in {
		t.Errorf("after staging a file: SymlinkInIndex = %v, %v; want false", in, err)
	}
}
