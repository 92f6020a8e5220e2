package gitint

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// Our decoder must agree with go-git's on real indexes of every version,
// and read the cached trees that git writes.
func TestDecodeIndexMatchesGoGit(t *testing.T) {
	dir := newRepo(t)
	for _, p := range []string{"a.txt", "dir/b.txt", "dir/sub/c.txt", "dir/sub/d.txt", "long/" + strings.Repeat("n", 200) + "/" + strings.Repeat("m", 200), "z"} {
		write(t, dir, p, p+"\n")
	}
	commitAll(t, dir, "one")
	write(t, dir, "new.txt", "n\n")
	run(t, dir, "add", "-N", "new.txt") // intent-to-add: extended flags, version 3
	for _, version := range []string{"2", "3", "4"} {
		if version == "2" {
			run(t, dir, "rm", "-q", "--cached", "new.txt")
		} else {
			run(t, dir, "add", "-N", "new.txt")
		}
		run(t, dir, "update-index", "--index-version", version)
		run(t, dir, "write-tree")
		data, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
		if err != nil {
			t.Fatal(err)
		}
		ours, err := decodeIndex(data)
		if err != nil {
			t.Fatalf("v%s: %v", version, err)
		}
		theirs := &index.Index{}
		if err := index.NewDecoder(bytes.NewReader(data)).Decode(theirs); err != nil {
			t.Fatalf("v%s: go-git: %v", version, err)
		}
		if len(ours.entries) != len(theirs.Entries) {
			t.Fatalf("v%s: %d entries, go-git %d", version, len(ours.entries), len(theirs.Entries))
		}
		for i, e := range ours.entries {
			g := theirs.Entries[i]
			if e.Name != g.Name || e.Hash != g.Hash || e.Mode != g.Mode || e.Stage != g.Stage || e.IntentToAdd != g.IntentToAdd || e.SkipWorktree != g.SkipWorktree {
				t.Errorf("v%s entry %d: ours %+v, go-git %+v", version, i, *e, *g)
			}
		}
		if version != "2" {
			continue // with an intent-to-add entry git keeps no root tree
		}
		head := run(t, dir, "rev-parse", "HEAD^{tree}")
		for d, want := range map[string]string{"": head, "dir/": run(t, dir, "rev-parse", "HEAD:dir"), "dir/sub/": run(t, dir, "rev-parse", "HEAD:dir/sub")} {
			if got := ours.trees[d].String(); got != want {
				t.Errorf("v%s cached tree %q = %s, want %s", version, d, got, want)
			}
		}
	}
}

// After "git add" git invalidates the cached trees on the path; the others
// keep their place (go-git's own decoder loses it).
func TestDecodeIndexPartialTrees(t *testing.T) {
	dir := newRepo(t)
	write(t, dir, "a/x", "1\n")
	write(t, dir, "d/a/x", "1\n")
	write(t, dir, "d/b/x", "1\n")
	commitAll(t, dir, "one")
	write(t, dir, "d/b/x", "2\n")
	run(t, dir, "add", "d/b/x")
	r := mustOpen(t, dir)
	idx, err := r.index()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"a/": run(t, dir, "rev-parse", "HEAD:a"), "d/a/": run(t, dir, "rev-parse", "HEAD:d/a")}
	if len(idx.trees) != len(want) {
		t.Errorf("cached trees = %v, want only %v", idx.trees, want)
	}
	for d, h := range want {
		if idx.trees[d].String() != h {
			t.Errorf("cached tree %q = %s, want %s", d, idx.trees[d], h)
		}
	}
}

func TestDecodeIndexRejects(t *testing.T) {
	good := func() []byte {
		dir := newRepo(t)
		write(t, dir, "a", "a\n")
		commitAll(t, dir, "one")
		data, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
		if err != nil {
			t.Fatal(err)
		}
		return data
	}()
	for name, data := range map[string][]byte{
		"empty":       nil,
		"bad magic":   append([]byte("DIRX"), good[4:]...),
		"version 5":   append(append([]byte("DIRC"), 0, 0, 0, 5), good[8:]...),
		"truncated":   good[:40],
		"huge count":  append(append([]byte("DIRC"), 0, 0, 0, 2, 0xff, 0xff, 0xff, 0xff), good[12:]...),
		"split index": append(append(append([]byte{}, good[:len(good)-20]...), 'l', 'i', 'n', 'k', 0, 0, 0, 0), good[len(good)-20:]...),
	} {
		if _, err := decodeIndex(data); err == nil {
			t.Errorf("%s: decodeIndex accepted it", name)
		}
	}
}

func FuzzDecodeIndex(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/index-*")
	for _, s := range seeds {
		data, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("DIRC\x00\x00\x00\x02\x00\x00\x00\x00" + strings.Repeat("\x00", 20)))
	f.Fuzz(func(t *testing.T, data []byte) {
		idx, err := decodeIndex(data)
		if err != nil {
			return
		}
		for _, e := range idx.entries {
			if e.Stage > 3 {
				t.Fatalf("stage %d", e.Stage)
			}
		}
	})
}
