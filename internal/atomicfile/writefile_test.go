package atomicfile

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"testing"
)

// FileName is the file these tests replace, named as agentgate names the
// lockfile (lock.FileName), its main user.
const FileName = "agentgate.lock"

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, FileName)

	if err := WriteFile(path, []byte("one\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	checkFile(t, path, "one\n", 0o640)

	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, []byte("two\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	checkFile(t, path, "two\n", 0o600) // the existing mode wins
	assertNoTemp(t, dir, 1)
}

// TestWriteFileThroughSymlink: a symbolic link is kept and its target
// replaced, with the target's mode.
func TestWriteFileThroughSymlink(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, FileName)
	if err := os.WriteFile(path, []byte("two\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o600); err != nil { // whatever the umask
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.lock")
	if err := os.Symlink(FileName, link); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(link, []byte("three\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("symlink replaced: %v %v", fi, err)
	}
	checkFile(t, path, "three\n", 0o600)
	assertNoTemp(t, dir, 2)
}

func TestWriteFileErrorsLeaveOldFile(t *testing.T) {
	dir := t.TempDir()
	// The target is a directory: refused, nothing created.
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(sub, []byte("x"), 0o644); err == nil {
		t.Error("WriteFile over a directory succeeded")
	}
	// The directory does not exist.
	if err := WriteFile(filepath.Join(dir, "missing", FileName), []byte("x"), 0o644); err == nil {
		t.Error("WriteFile into a missing directory succeeded")
	}
	// The last step fails: the old content survives, the temporary file
	// is removed. (Root ignores directory permissions, so the failure is
	// injected.)
	path := filepath.Join(dir, FileName)
	if err := os.WriteFile(path, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rename = func(string, string) error { return errors.New("injected failure") }
	defer func() { rename = os.Rename }()
	err := WriteFile(path, []byte("new\n"), 0o600)
	if err == nil || err.Error() != "write "+path+": injected failure" {
		t.Errorf("error %v", err)
	}
	checkFile(t, path, "old\n", 0o644)
	assertNoTemp(t, dir, 2)
}

func TestWriteFileConcurrent(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, FileName)
	contents := map[string]bool{}
	var wg sync.WaitGroup
	for i := range 8 {
		data := bytes.Repeat([]byte(fmt.Sprintf("writer %d\n", i)), 20000)
		contents[string(data)] = true
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := WriteFile(path, data, 0o644); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !contents[string(got)] {
		t.Errorf("file holds an interleaving of writers (%d bytes)", len(got))
	}
	assertNoTemp(t, dir, 1)
}

func checkFile(t *testing.T, path, want string, mode os.FileMode) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil || string(got) != want {
		t.Errorf("%s = %q, %v; want %q", path, got, err, want)
	}
	if runtime.GOOS == "windows" {
		// A Windows file has one permission bit, read-only: Go reports
		// 0o666 or 0o444 and keeps only the owner's write bit of a mode.
		if mode&0o200 != 0 {
			mode = 0o666
		} else {
			mode = 0o444
		}
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != mode {
		t.Errorf("%s mode %v, want %v", path, fi.Mode().Perm(), mode)
	}
}

// assertNoTemp checks that dir holds n entries: no temporary file was left.
func assertNoTemp(t *testing.T, dir string, n int) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != n {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("%s holds %v, want %d entries", dir, names, n)
	}
}

// TestWriteFilesAllOrNothing: WriteFiles replaces every file or none. A
// file that cannot be prepared (its directory is missing) leaves every
// file as it was and no temporary file; a rename that fails after the
// first file was replaced puts the first one's old content back.
func TestWriteFilesAllOrNothing(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	for _, p := range []string{a, b} {
		if err := os.WriteFile(p, []byte("old "+filepath.Base(p)), 0o640); err != nil {
			t.Fatal(err)
		}
	}
	ws := []FileWrite{{Path: a, Data: []byte("new a"), Old: []byte("old a.json"), Perm: 0o644}, {Path: b, Data: []byte("new b"), Old: []byte("old b.json"), Perm: 0o644}}

	bad := append(slices.Clone(ws), FileWrite{Path: filepath.Join(dir, "missing", "c.json"), Data: []byte("c")})
	if i, err, restore := WriteFiles(bad); i != 2 || err == nil || restore != nil {
		t.Errorf("prepare fails: failed %d, %v, %v", i, err, restore)
	}
	checkFile(t, a, "old a.json", 0o640)
	checkFile(t, b, "old b.json", 0o640)
	assertNoTemp(t, dir, 2)

	rename = func(from, to string) error {
		if to == b {
			return errors.New("injected failure")
		}
		return os.Rename(from, to)
	}
	i, err, restore := WriteFiles(ws)
	rename = os.Rename
	if i != 1 || err == nil || err.Error() != "write "+b+": injected failure" || restore != nil {
		t.Errorf("commit fails: failed %d, %v, %v", i, err, restore)
	}
	checkFile(t, a, "old a.json", 0o640)
	checkFile(t, b, "old b.json", 0o640)
	assertNoTemp(t, dir, 2)

	if i, err, restore := WriteFiles(ws); i != -1 || err != nil || restore != nil {
		t.Errorf("failed %d, %v, %v", i, err, restore)
	}
	checkFile(t, a, "new a", 0o640)
	checkFile(t, b, "new b", 0o640)
	assertNoTemp(t, dir, 2)
}
