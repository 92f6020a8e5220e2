package gitint

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agentgate/agentgate/internal/testing/testenv"
)

// run runs git in dir and returns its trimmed stdout (testenv.Git).
func run(t testing.TB, dir string, args ...string) string {
	t.Helper()
	return testenv.Git(t, dir, args...)
}

// newRepo makes an empty repository (branch main) in a fresh directory whose
// path has no symlinks (testenv.NewGitRepo).
func newRepo(t testing.TB) string {
	t.Helper()
	return testenv.NewGitRepo(t)
}

func write(t testing.TB, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func commitAll(t testing.TB, dir, msg string) string {
	t.Helper()
	run(t, dir, "add", "-A")
	run(t, dir, "commit", "-q", "-m", msg)
	return run(t, dir, "rev-parse", "HEAD")
}

func mustOpen(t testing.TB, dir string) *Repo {
	t.Helper()
	r, err := Open(dir)
	if err != nil {
		t.Fatalf("Open(%s): %v", dir, err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// HasCommits reports whether HEAD points at a commit (false in a repository
// created by git init with nothing committed yet).
func (r *Repo) HasCommits() (bool, error) {
	_, ok, err := r.headCommit()
	return ok, err
}
