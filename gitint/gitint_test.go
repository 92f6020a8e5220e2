package gitint

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestOpenRootFromSubdirAndWorktree(t *testing.T) {
	dir := newRepo(t)
	write(t, dir, "a/b/c.txt", "x\n")
	write(t, dir, "agentgate.lock", "v1\n")
	commitAll(t, dir, "one")

	for _, sub := range []string{".", "a", "a/b"} {
		r := mustOpen(t, filepath.Join(dir, sub))
		if r.Root() != dir {
			t.Errorf("Open(%s).Root() = %s, want %s", sub, r.Root(), dir)
		}
	}

	// A linked worktree: its own root, HEAD and index, the common objects.
	wt := filepath.Join(filepath.Dir(dir), "wt")
	run(t, dir, "worktree", "add", "-q", "-b", "feature", wt)
	write(t, wt, "agentgate.lock", "v2 in worktree\n")
	run(t, wt, "add", "agentgate.lock")
	for _, sub := range []string{wt, filepath.Join(wt, "a", "b")} {
		r := mustOpen(t, sub)
		if r.Root() != wt {
			t.Errorf("Open(%s).Root() = %s, want %s", sub, r.Root(), wt)
		}
		has, err := r.HasCommits()
		if err != nil || !has {
			t.Fatalf("worktree HasCommits = %v, %v; want true", has, err)
		}
		got, ok, err := r.FileAt("HEAD", "agentgate.lock")
		if err != nil || !ok || string(got) != "v1\n" {
			t.Errorf("worktree FileAt(HEAD) = %q, %v, %v", got, ok, err)
		}
		got, ok, err = r.FileInIndex("agentgate.lock")
		if err != nil || !ok || string(got) != "v2 in worktree\n" {
			t.Errorf("worktree FileInIndex = %q, %v, %v", got, ok, err)
		}
		ch, err := r.StagedChanges(func(string) bool { return true })
		if err != nil || strings.Join(ch, ",") != "agentgate.lock" {
			t.Errorf("worktree StagedChanges = %v, %v", ch, err)
		}
	}
	// The main work tree's index is untouched by the worktree's staging.
	got, ok, err := mustOpen(t, dir).FileInIndex("agentgate.lock")
	if err != nil || !ok || string(got) != "v1\n" {
		t.Errorf("main FileInIndex = %q, %v, %v", got, ok, err)
	}
}

func TestOpenOutsideRepository(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	_, err = Open(dir)
	if !errors.Is(err, ErrNotRepository) {
		t.Fatalf("Open outside a repository: err = %v, want ErrNotRepository", err)
	}
	var h interface{ Hints() []string }
	if !strings.Contains(err.Error(), dir) || !errors.As(err, &h) || !strings.Contains(strings.Join(h.Hints(), "\n"), "git init") || strings.Contains(err.Error(), "hint") {
		t.Errorf("error %q should name %s and carry a hint as a value", err, dir)
	}
}

func TestNoCommitsYet(t *testing.T) {
	dir := newRepo(t)
	write(t, dir, "agentgate.lock", "staged\n")
	write(t, dir, "other.txt", "o\n")
	run(t, dir, "add", "agentgate.lock", "other.txt")
	r := mustOpen(t, dir)
	has, err := r.HasCommits()
	if err != nil || has {
		t.Fatalf("HasCommits = %v, %v; want false, nil", has, err)
	}
	data, ok, err := r.FileAt("HEAD", "agentgate.lock")
	if err != nil || ok || data != nil {
		t.Fatalf("FileAt(HEAD) without commits = %q, %v, %v; want nil, false, nil", data, ok, err)
	}
	if _, _, err := r.FileAt("main", "agentgate.lock"); err == nil || !strings.Contains(err.Error(), `"main"`) {
		t.Errorf("FileAt(main) without commits: err = %v, want unknown revision naming it", err)
	}
	data, ok, err = r.FileInIndex("agentgate.lock")
	if err != nil || !ok || string(data) != "staged\n" {
		t.Fatalf("FileInIndex = %q, %v, %v", data, ok, err)
	}
	ch, err := r.StagedChanges(func(p string) bool { return p == "agentgate.lock" })
	if err != nil || strings.Join(ch, ",") != "agentgate.lock" {
		t.Errorf("StagedChanges = %v, %v; want [agentgate.lock]", ch, err)
	}
}

func TestFileAtRevisions(t *testing.T) {
	upstream := newRepo(t)
	write(t, upstream, "agentgate.lock", "one\n")
	write(t, upstream, "dir/nested.json", "{}\n")
	c1 := commitAll(t, upstream, "one")
	run(t, upstream, "tag", "v1")
	write(t, upstream, "agentgate.lock", "two\n")
	c2 := commitAll(t, upstream, "two")
	run(t, upstream, "tag", "-a", "-m", "annotated", "v2")

	// A clone, so that origin/main is a real remote-tracking branch.
	dir := filepath.Join(filepath.Dir(upstream), "clone")
	run(t, upstream, "clone", "-q", upstream, dir)
	write(t, dir, "agentgate.lock", "three\n")
	c3 := commitAll(t, dir, "three")
	run(t, dir, "branch", "old", c1)

	r := mustOpen(t, dir)
	tests := []struct {
		rev, path, want string
		ok              bool
	}{
		{"HEAD", "agentgate.lock", "three\n", true},
		{"main", "agentgate.lock", "three\n", true},
		{"refs/heads/main", "agentgate.lock", "three\n", true},
		{"origin/main", "agentgate.lock", "two\n", true},
		{"HEAD~1", "agentgate.lock", "two\n", true},
		{"HEAD~2", "agentgate.lock", "one\n", true},
		{"HEAD^", "agentgate.lock", "two\n", true},
		{"v1", "agentgate.lock", "one\n", true},
		{"v2", "agentgate.lock", "two\n", true}, // annotated tag
		{"old", "agentgate.lock", "one\n", true},
		{c1, "agentgate.lock", "one\n", true},
		{c2[:7], "agentgate.lock", "two\n", true},
		{c3[:12], "agentgate.lock", "three\n", true},
		{"HEAD", "dir/nested.json", "{}\n", true},
		{"HEAD", "missing.lock", "", false},
		{"HEAD", "dir/missing.json", "", false},
		{"HEAD", "nodir/x", "", false},
		{"HEAD", "dir", "", false}, // a directory is not a file
	}
	for _, tt := range tests {
		got, ok, err := r.FileAt(tt.rev, tt.path)
		if err != nil || ok != tt.ok || string(got) != tt.want {
			t.Errorf("FileAt(%q, %q) = %q, %v, %v; want %q, %v, nil", tt.rev, tt.path, got, ok, err, tt.want, tt.ok)
		}
	}
	for _, bad := range []string{"nope", "origin/nope", "HEAD~9", "deadbeef"} {
		_, _, err := r.FileAt(bad, "agentgate.lock")
		if err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("FileAt(%q): err = %v, want an error naming the revision", bad, err)
		}
	}
	for _, bad := range []string{"", "/abs", "../up", "a//b", "./x"} {
		if _, _, err := r.FileAt("HEAD", bad); err == nil {
			t.Errorf("FileAt(HEAD, %q): want an error for an unclean path", bad)
		}
	}
}

func TestFileInIndex(t *testing.T) {
	dir := newRepo(t)
	write(t, dir, "agentgate.lock", "committed\n")
	commitAll(t, dir, "one")
	write(t, dir, "agentgate.lock", "staged\n")
	run(t, dir, "add", "agentgate.lock")
	write(t, dir, "agentgate.lock", "unstaged work tree\n")
	write(t, dir, "intent.txt", "x\n")
	run(t, dir, "add", "-N", "intent.txt")

	r := mustOpen(t, dir)
	got, ok, err := r.FileInIndex("agentgate.lock")
	if err != nil || !ok || string(got) != "staged\n" {
		t.Errorf("FileInIndex = %q, %v, %v; want staged", got, ok, err)
	}
	if got, ok, err := r.FileInIndex("intent.txt"); err != nil || ok {
		t.Errorf("FileInIndex(intent-to-add) = %q, %v, %v; want not staged", got, ok, err)
	}
	if _, ok, err := r.FileInIndex("absent"); err != nil || ok {
		t.Errorf("FileInIndex(absent) = %v, %v", ok, err)
	}
}

func TestFileInIndexHonoursGitIndexFile(t *testing.T) {
	dir := newRepo(t)
	write(t, dir, "agentgate.lock", "committed\n")
	commitAll(t, dir, "one")
	write(t, dir, "agentgate.lock", "in the other index\n")
	run(t, dir, "add", "agentgate.lock")
	data, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	// The copy holds the staged version; the real index goes back to HEAD.
	if err := os.WriteFile(filepath.Join(dir, ".git", "next-index-1.lock"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	run(t, dir, "reset", "-q")

	for _, env := range []string{filepath.Join(dir, ".git", "next-index-1.lock"), ".git/next-index-1.lock"} {
		t.Setenv(IndexFileEnv, env)
		r := mustOpen(t, filepath.Join(dir))
		got, ok, err := r.FileInIndex("agentgate.lock")
		if err != nil || !ok || string(got) != "in the other index\n" {
			t.Errorf("GIT_INDEX_FILE=%s: FileInIndex = %q, %v, %v", env, got, ok, err)
		}
		ch, err := r.StagedChanges(func(string) bool { return true })
		if err != nil || strings.Join(ch, ",") != "agentgate.lock" {
			t.Errorf("GIT_INDEX_FILE=%s: StagedChanges = %v, %v", env, ch, err)
		}
	}
	t.Setenv(IndexFileEnv, "")
	got, ok, err := mustOpen(t, dir).FileInIndex("agentgate.lock")
	if err != nil || !ok || string(got) != "committed\n" {
		t.Errorf("without GIT_INDEX_FILE: FileInIndex = %q, %v, %v", got, ok, err)
	}
	t.Setenv(IndexFileEnv, filepath.Join(dir, "corrupt-index"))
	write(t, dir, "corrupt-index", "not an index")
	if _, _, err := mustOpen(t, dir).FileInIndex("agentgate.lock"); err == nil || !strings.Contains(err.Error(), "corrupt-index") {
		t.Errorf("corrupt GIT_INDEX_FILE: err = %v, want an error naming the file", err)
	}
}

// TestCloseReleasesPacks: the pack files the object reader maps or opens
// are released by Close, not left to a finalizer.
func TestCloseReleasesPacks(t *testing.T) {
	dir := newRepo(t)
	write(t, dir, "agentgate.lock", "packed\n")
	commitAll(t, dir, "one")
	run(t, dir, "gc", "-q")
	r := mustOpen(t, dir)
	if data, ok, err := r.FileAt("HEAD", "agentgate.lock"); err != nil || !ok || string(data) != "packed\n" {
		t.Fatalf("FileAt = %q, %v, %v", data, ok, err)
	}
	if r.odb == nil || len(r.odb.packs) == 0 || r.odb.packs[0].data == nil {
		t.Fatal("the object was not read from an open pack")
	}
	p := r.odb.packs[0]
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if p.data != nil || p.idx != nil || p.dataMap != nil || p.idxMap != nil || r.odb != nil {
		t.Error("Close left the pack open")
	}
	if err := r.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// TestDiscoverGitFile: a .git file with a relative gitdir and a commondir
// (a linked worktree, made by hand) is found from a subdirectory, and
// every part (HEAD, index, objects) is read from where the files say.
func TestDiscoverGitFile(t *testing.T) {
	dir := newRepo(t)
	write(t, dir, "agentgate.lock", "main\n")
	commitAll(t, dir, "one")
	wt := filepath.Join(filepath.Dir(dir), "wt")
	run(t, dir, "worktree", "add", "-q", "-b", "side", wt)
	// Make the .git file's gitdir relative, as git worktree add
	// --relative-paths does.
	rel, err := filepath.Rel(wt, filepath.Join(dir, ".git", "worktrees", "wt"))
	if err != nil {
		t.Fatal(err)
	}
	write(t, wt, ".git", "gitdir: "+rel+"\n")
	write(t, wt, "sub/x", "")
	l, err := discover(filepath.Join(wt, "sub"))
	if err != nil {
		t.Fatal(err)
	}
	want := layout{root: wt, gitDir: filepath.Join(dir, ".git", "worktrees", "wt"), commonDir: filepath.Join(dir, ".git")}
	if l != want {
		t.Errorf("discover = %+v, want %+v", l, want)
	}
	write(t, wt, ".git", "not a gitdir line\n")
	if _, err := Open(wt); err == nil || !strings.Contains(err.Error(), "gitdir") {
		t.Errorf("Open with a bad .git file: %v", err)
	}
}
