package reporoot

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFind shows the rule: the nearest .git entry by os.Stat, a
// directory or a file, a symbolic link by its target; a dangling link is
// no entry; any other Stat error ends the walk.
func TestFind(t *testing.T) {
	base := t.TempDir()
	mkdir := func(p ...string) string {
		d := filepath.Join(append([]string{base}, p...)...)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	symlink := func(target, link string) {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	repo := mkdir("repo")
	mkdir("repo", ".git")
	repoDeep := mkdir("repo", "a", "b")

	wt := mkdir("worktree")
	if err := os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: /elsewhere\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	wtDeep := mkdir("worktree", "x")

	linked := mkdir("linked")
	symlink(filepath.Join(repo, ".git"), filepath.Join(linked, ".git"))

	// A dangling .git link inside repo: no entry, so the walk goes on up.
	dangling := mkdir("repo", "dangling")
	symlink(filepath.Join(base, "missing"), filepath.Join(dangling, ".git"))

	for _, tc := range []struct {
		name, dir, want string
		dir2            bool // the entry found is a directory
	}{
		{".git directory", repo, repo, true},
		{".git directory, from below", repoDeep, repo, true},
		{".git file", wtDeep, wt, false},
		{"symlinked .git", linked, linked, true},
		{"dangling .git link", dangling, repo, true},
		{"unclean path", repo + string(filepath.Separator) + ".", repo, true},
	} {
		root, fi, err := Find(tc.dir)
		if err != nil || root != tc.want || fi.IsDir() != tc.dir2 {
			t.Errorf("%s: Find(%s) = %q (directory %v), %v; want %q (directory %v)", tc.name, tc.dir, root, fi != nil && fi.IsDir(), err, tc.want, tc.dir2)
		}
	}

	// None: no .git in the temporary tree. (A .git above the temporary
	// directory would be found instead; it is not inside base.)
	plain := mkdir("plain", "dir")
	root, _, err := Find(plain)
	if err == nil && (root == base || strings.HasPrefix(root, base+string(filepath.Separator))) {
		t.Errorf("Find(%s) = %q; want no root inside %s", plain, root, base)
	}
	if err != nil && !errors.Is(err, ErrNone) {
		t.Errorf("Find(%s): %v; want ErrNone", plain, err)
	}

	// A .git link that loops: a Stat error other than "does not exist"
	// ends the walk, though repo (above) has a .git.
	loop := mkdir("repo", "loop")
	symlink(".git", filepath.Join(loop, ".git"))
	if root, _, err := Find(loop); err == nil || errors.Is(err, ErrNone) {
		t.Errorf("Find(%s) with a looping .git link = %q, %v; want the Stat error", loop, root, err)
	}
}
