package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestWriteFileRetriesBusyTarget: Windows refuses to rename over a file an
// editor holds open. WriteFile retries (here: the target is "busy" for 3
// attempts, then free) and then replaces it; when it stays busy, the error
// is a *BusyError naming the file with a hint, the old content survives and
// no temporary file is left. (The refusal is injected: Linux renames over
// open files; busy_windows.go maps the real Windows errors.)
func TestWriteFileRetriesBusyTarget(t *testing.T) {
	errBusy := errors.New("The process cannot access the file because it is being used by another process.")
	savedWaits, savedBusy := replaceWaits, fileBusy
	t.Cleanup(func() { replaceWaits, fileBusy, rename = savedWaits, savedBusy, os.Rename })
	replaceWaits = []time.Duration{time.Millisecond, time.Millisecond, time.Millisecond, time.Millisecond}
	fileBusy = func(err error) bool { return errors.Is(err, errBusy) }
	busyFor := func(n int) *int {
		calls := 0
		rename = func(from, to string) error {
			calls++
			if calls <= n {
				return &os.LinkError{Op: "rename", Old: from, New: to, Err: errBusy}
			}
			return os.Rename(from, to)
		}
		return &calls
	}

	dir := t.TempDir()
	path := filepath.Join(dir, FileName)
	if err := os.WriteFile(path, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	calls := busyFor(3)
	if err := WriteFile(path, []byte("new\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	checkFile(t, path, "new\n", 0o644)
	if *calls != 4 {
		t.Errorf("%d rename attempts, want 4", *calls)
	}

	calls = busyFor(100)
	err := WriteFile(path, []byte("newer\n"), 0o644)
	var be *BusyError
	if !errors.As(err, &be) || be.Path != path || !strings.Contains(err.Error(), "another program holds "+path+" open") ||
		!strings.Contains(strings.Join(be.Hints(), "\n"), "close "+path) {
		t.Fatalf("error %v", err)
	}
	if *calls != 1+len(replaceWaits) {
		t.Errorf("%d rename attempts, want %d", *calls, 1+len(replaceWaits))
	}
	checkFile(t, path, "new\n", 0o644)
	assertNoTemp(t, dir, 1)
}
