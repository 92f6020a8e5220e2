package gitint

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/internal/testing/testenv"
	"github.com/go-git/go-git/v5/plumbing"
)

// gitObject is one object as git cat-file --batch prints it.
type gitObject struct {
	id   plumbing.Hash
	typ  string
	data []byte
}

// allObjects is the oracle: every object of the repository, read by git.
func allObjects(t *testing.T, dir string) []gitObject {
	t.Helper()
	cmd := exec.Command("git", "cat-file", "--batch-all-objects", "--batch")
	cmd.Dir = dir
	cmd.Env = testenv.GitEnv()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git cat-file --batch-all-objects: %v", err)
	}
	var objs []gitObject
	rd := bufio.NewReader(bytes.NewReader(out))
	for {
		line, err := rd.ReadString('\n')
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		f := strings.Fields(line)
		if len(f) != 3 {
			t.Fatalf("cat-file header %q", line)
		}
		n, _ := strconv.Atoi(f[2])
		data := make([]byte, n+1) // and the newline after the content
		if _, err := io.ReadFull(rd, data); err != nil {
			t.Fatal(err)
		}
		objs = append(objs, gitObject{id: plumbing.NewHash(f[0]), typ: f[1], data: data[:n]})
	}
	return objs
}

// packEntryTypes counts the entry types of every pack in dir, walking the
// pack index with the fast reader's own decoders.
func packEntryTypes(t *testing.T, dir string) map[int]int {
	t.Helper()
	o := newObjects(filepath.Join(dir, ".git", "objects"))
	defer o.close()
	if err := o.listPacks(); err != nil {
		t.Fatal(err)
	}
	counts := map[int]int{}
	for _, p := range o.packs {
		if err := p.load(); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(p.packPath)
		if err != nil {
			t.Fatal(err)
		}
		idx, err := os.ReadFile(p.idxPath)
		if err != nil {
			t.Fatal(err)
		}
		n := int(p.fanout[255])
		for i := 0; i < n; i++ {
			off := int64(idx[idxFanout+n*24+i*4])<<24 | int64(idx[idxFanout+n*24+i*4+1])<<16 |
				int64(idx[idxFanout+n*24+i*4+2])<<8 | int64(idx[idxFanout+n*24+i*4+3])
			e, err := parseEntryHeader(data[off:min(off+32, int64(len(data)))], off)
			if err != nil {
				t.Fatal(err)
			}
			counts[e.typ]++
		}
	}
	return counts
}

// checkAllObjects reads every object with the fast reader and compares it
// with git's bytes; every object must be found without go-git.
func checkAllObjects(t *testing.T, dir, state string) {
	t.Helper()
	objs := allObjects(t, dir)
	if len(objs) < 20 {
		t.Fatalf("%s: only %d objects", state, len(objs))
	}
	o := newObjects(filepath.Join(dir, ".git", "objects"))
	defer o.close()
	for _, g := range objs {
		typ, data, err := o.read(g.id)
		if err != nil {
			t.Fatalf("%s: read %s (%s): %v", state, g.id, g.typ, err)
		}
		if typeNames[typ] != g.typ || !bytes.Equal(data, g.data) {
			t.Fatalf("%s: object %s: fast reader gives a %s of %d bytes, git a %s of %d bytes", state, g.id, typeNames[typ], len(data), g.typ, len(g.data))
		}
	}
}

// deltaRepo is a repository whose files change a little in every commit,
// so that packing makes delta chains of trees and blobs.
func deltaRepo(t *testing.T) string {
	dir := newRepo(t)
	var big strings.Builder
	for i := 0; i < 400; i++ {
		fmt.Fprintf(&big, "line %d: the quick brown fox jumps over the lazy dog\n", i)
	}
	for c := 0; c < 30; c++ {
		lines := strings.SplitAfter(big.String(), "\n")
		lines[(c*37)%400] = fmt.Sprintf("changed in commit %d\n", c)
		write(t, dir, "agentgate.lock", strings.Join(lines, ""))
		write(t, dir, fmt.Sprintf("dir%d/f.txt", c%5), fmt.Sprintf("%d\n", c))
		write(t, dir, ".mcp.json", fmt.Sprintf("{\"v\": %d}\n", c))
		commitAll(t, dir, fmt.Sprintf("commit %d", c))
	}
	return dir
}

// The fast reader agrees with git cat-file on every object: loose, packed
// by git gc, repacked aggressively (long OFS_DELTA chains), repacked with
// REF_DELTA bases, and spread over several packs plus loose objects.
func TestFastReaderMatchesGit(t *testing.T) {
	dir := deltaRepo(t)
	checkAllObjects(t, dir, "loose")

	run(t, dir, "gc", "-q")
	checkAllObjects(t, dir, "gc")

	run(t, dir, "repack", "-q", "-a", "-d", "-f", "--depth=250", "--window=250")
	if c := packEntryTypes(t, dir); c[objOfsDelta] < 10 {
		t.Fatalf("aggressive repack made %d OFS_DELTA entries (%v); the test needs deltas", c[objOfsDelta], c)
	}
	checkAllObjects(t, dir, "aggressive repack")

	run(t, dir, "-c", "repack.useDeltaBaseOffset=false", "repack", "-q", "-a", "-d", "-f")
	if c := packEntryTypes(t, dir); c[objRefDelta] < 10 || c[objOfsDelta] != 0 {
		t.Fatalf("repack without offsets: entry types %v, want REF_DELTA entries only", c)
	}
	checkAllObjects(t, dir, "REF_DELTA repack")

	// A second pack and some loose objects on top.
	write(t, dir, "agentgate.lock", "new\n")
	commitAll(t, dir, "more")
	run(t, dir, "repack", "-q", "-d")
	write(t, dir, "later.txt", "loose\n")
	commitAll(t, dir, "loose on top")
	packs, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "*.idx"))
	if len(packs) < 2 {
		t.Fatalf("%d packs, want several", len(packs))
	}
	checkAllObjects(t, dir, "several packs and loose objects")

	// And the Repo API on top of it agrees with git show.
	r := mustOpen(t, dir)
	for _, rev := range []string{"HEAD", "HEAD~1", "HEAD~5"} {
		got, ok, err := r.FileAt(rev, "agentgate.lock")
		want := run(t, dir, "show", rev+":agentgate.lock")
		if err != nil || !ok || strings.TrimSpace(string(got)) != want {
			t.Errorf("FileAt(%s) = %d bytes, %v, %v; git show has %d bytes", rev, len(got), ok, err, len(want))
		}
	}
}

// A damaged object never comes back: the content must hash to the id asked
// for, in the fast reader and in the go-git fallback (go-git itself does
// not check loose objects), so the error surfaces instead of wrong bytes.
func TestFastReaderVerifiesObjects(t *testing.T) {
	dir := newRepo(t)
	write(t, dir, "agentgate.lock", "good\n")
	commitAll(t, dir, "one")
	id := plumbing.NewHash(run(t, dir, "rev-parse", "HEAD:agentgate.lock"))
	other := plumbing.NewHash(run(t, dir, "hash-object", "-w", "--stdin", "-t", "blob", "/dev/null"))
	// Put another object's file under the id of agentgate.lock's blob.
	p := filepath.Join(dir, ".git", "objects", id.String()[:2], id.String()[2:])
	raw, err := os.ReadFile(filepath.Join(dir, ".git", "objects", other.String()[:2], other.String()[2:]))
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(p, 0o644)
	if err := os.WriteFile(p, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	o := newObjects(filepath.Join(dir, ".git", "objects"))
	if _, _, err := o.read(id); err == nil {
		t.Fatal("fast reader returned an object whose content does not hash to its id")
	}
	data, ok, err := mustOpen(t, dir).FileAt("HEAD", "agentgate.lock")
	var h interface{ Hints() []string }
	if err == nil || !strings.Contains(err.Error(), id.String()) || !errors.As(err, &h) || !slices.Equal(h.Hints(), []string{"run: git fsck"}) {
		t.Fatalf("FileAt of a damaged blob = %q, %v, %v; want an error naming %s with a hint", data, ok, err, id)
	}
}

// Alternates are read by the fast reader (go-git does not follow an
// absolute alternates path); what the fast paths do not handle goes to
// go-git, with the same answers: a repository extension, a symbolic ref
// chain. Packed and detached HEADs are resolved without go-git.
func TestFastPathFallbacks(t *testing.T) {
	base := newRepo(t)
	write(t, base, "agentgate.lock", "base\n")
	write(t, base, ".mcp.json", "{}\n")
	commitAll(t, base, "one")

	t.Run("alternates", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "shared")
		run(t, filepath.Dir(dir), "clone", "-q", "--shared", base, dir)
		if _, err := os.Stat(filepath.Join(dir, ".git", "objects", "info", "alternates")); err != nil {
			t.Fatal(err)
		}
		write(t, dir, "agentgate.lock", "base\n") // nothing new to write
		r := mustOpen(t, dir)
		got, ok, err := r.FileAt("HEAD", "agentgate.lock")
		if err != nil || !ok || string(got) != "base\n" {
			t.Errorf("FileAt = %q, %v, %v", got, ok, err)
		}
	})
	t.Run("extension", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "ext")
		run(t, filepath.Dir(dir), "clone", "-q", base, dir)
		run(t, dir, "config", "extensions.noop", "true")
		r := mustOpen(t, dir)
		if r.fastObjs || r.fastRefs {
			t.Error("fast paths used in a repository with an extension")
		}
		got, ok, err := r.FileAt("HEAD", "agentgate.lock")
		if err != nil || !ok || string(got) != "base\n" {
			t.Errorf("FileAt = %q, %v, %v", got, ok, err)
		}
	})
	t.Run("packed, detached and symbolic HEAD", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "refs")
		run(t, filepath.Dir(dir), "clone", "-q", base, dir)
		head := run(t, dir, "rev-parse", "HEAD")
		run(t, dir, "pack-refs", "--all")
		if _, err := os.Stat(filepath.Join(dir, ".git", "refs", "heads", "main")); !os.IsNotExist(err) {
			t.Fatalf("pack-refs left a loose ref: %v", err)
		}
		check := func(what string) {
			t.Helper()
			r := mustOpen(t, dir)
			h, ok, err := r.headCommit()
			if err != nil || !ok || h.String() != head {
				t.Errorf("%s: HEAD = %s, %v, %v; want %s", what, h, ok, err, head)
			}
			if got, ok, err := r.FileAt("HEAD", "agentgate.lock"); err != nil || !ok || string(got) != "base\n" {
				t.Errorf("%s: FileAt = %q, %v, %v", what, got, ok, err)
			}
		}
		check("packed-refs")
		if h, ok := mustOpen(t, dir).fastHead(); !ok || h.String() != head {
			t.Errorf("packed-refs: fast HEAD = %s, %v", h, ok)
		}
		run(t, dir, "checkout", "-q", "--detach")
		check("detached")
		run(t, dir, "symbolic-ref", "refs/heads/alias", "refs/heads/main")
		run(t, dir, "symbolic-ref", "HEAD", "refs/heads/alias")
		check("symbolic ref chain")
	})
	t.Run("no commits on the branch", func(t *testing.T) {
		dir := newRepo(t)
		r := mustOpen(t, dir)
		if has, err := r.HasCommits(); err != nil || has {
			t.Errorf("HasCommits = %v, %v", has, err)
		}
	})
}

// The staged file comes from the work tree only when its blob id is the
// index entry's; otherwise from the object store.
func TestFileInIndexWorkTreeShortcut(t *testing.T) {
	dir := newRepo(t)
	write(t, dir, "agentgate.lock", "staged\n")
	run(t, dir, "add", "agentgate.lock")
	r := mustOpen(t, dir)
	idx, err := r.index()
	if err != nil {
		t.Fatal(err)
	}
	e := entriesFor(idx, "agentgate.lock")[0]
	if data, ok := r.worktreeBlob("agentgate.lock", e); !ok || string(data) != "staged\n" {
		t.Fatalf("worktreeBlob of an unchanged file = %q, %v", data, ok)
	}
	// Edited after staging: the staged bytes come from the object store.
	write(t, dir, "agentgate.lock", "edited\n")
	if _, ok := r.worktreeBlob("agentgate.lock", e); ok {
		t.Fatal("worktreeBlob used an edited work-tree file")
	}
	if data, ok, err := r.FileInIndex("agentgate.lock"); err != nil || !ok || string(data) != "staged\n" {
		t.Fatalf("FileInIndex after an edit = %q, %v, %v", data, ok, err)
	}
	// A symlink to a file with the staged content is not followed.
	write(t, dir, "copy", "staged\n")
	os.Remove(filepath.Join(dir, "agentgate.lock"))
	if err := os.Symlink("copy", filepath.Join(dir, "agentgate.lock")); err != nil {
		t.Fatal(err)
	}
	if _, ok := r.worktreeBlob("agentgate.lock", e); ok {
		t.Fatal("worktreeBlob followed a symlink")
	}
	if data, ok, err := r.FileInIndex("agentgate.lock"); err != nil || !ok || string(data) != "staged\n" {
		t.Fatalf("FileInIndex with a symlink in the work tree = %q, %v, %v", data, ok, err)
	}
}

// A submodule's work tree has a .git file pointing into the superproject's
// .git/modules; Open finds it as go-git does, and reads its own HEAD,
// objects and index.
func TestOpenSubmodule(t *testing.T) {
	sub := newRepo(t)
	write(t, sub, "agentgate.lock", "in submodule\n")
	commitAll(t, sub, "sub")
	super := filepath.Join(filepath.Dir(sub), "super")
	if err := os.Mkdir(super, 0o755); err != nil {
		t.Fatal(err)
	}
	run(t, super, "init", "-q", "-b", "main")
	write(t, super, "agentgate.lock", "in superproject\n")
	commitAll(t, super, "super")
	run(t, super, "-c", "protocol.file.allow=always", "submodule", "add", "-q", sub, "mod")
	commitAll(t, super, "add submodule")
	dir := filepath.Join(super, "mod")
	if fi, err := os.Lstat(filepath.Join(dir, ".git")); err != nil || fi.IsDir() {
		t.Fatalf("submodule .git is not a file: %v", err)
	}
	r := mustOpen(t, filepath.Join(dir))
	if r.Root() != dir || r.gitDir == "" {
		t.Fatalf("Open(submodule) root %s gitdir %q, want root %s opened without go-git", r.Root(), r.gitDir, dir)
	}
	got, ok, err := r.FileAt("HEAD", "agentgate.lock")
	if err != nil || !ok || string(got) != "in submodule\n" {
		t.Errorf("submodule FileAt(HEAD) = %q, %v, %v", got, ok, err)
	}
	write(t, dir, "agentgate.lock", "staged in submodule\n")
	run(t, dir, "add", "agentgate.lock")
	ch, err := mustOpen(t, dir).StagedChanges(isConfig)
	if err != nil || strings.Join(ch, ",") != "agentgate.lock" {
		t.Errorf("submodule StagedChanges = %v, %v", ch, err)
	}
	if ch, err := mustOpen(t, super).StagedChanges(isConfig); err != nil || len(ch) != 0 {
		t.Errorf("superproject StagedChanges = %v, %v; want none", ch, err)
	}
}
