package mmap

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// mapsHere reports whether Map is expected to map on this OS (unix and
// Windows); elsewhere it returns nil and callers read the file.
func mapsHere() bool {
	return runtime.GOOS != "js" && runtime.GOOS != "wasip1" && runtime.GOOS != "plan9"
}

// TestMapReadsTheFile maps files of several sizes (one byte, one page, a
// page and one byte, 3 MiB: more than one 64 KiB Windows allocation
// granule) and checks every byte against the file, then that the file can
// be removed once unmapped: Windows refuses to delete a mapped file, which
// is why guard unmaps a spilled message before removing it.
func TestMapReadsTheFile(t *testing.T) {
	if !mapsHere() {
		t.Skip("no mmap on " + runtime.GOOS)
	}
	for _, size := range []int{1, 4096, 4097, 3 << 20} {
		data := make([]byte, size)
		for i := range data {
			data[i] = byte(i*7 + i>>8)
		}
		path := filepath.Join(t.TempDir(), "spill")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		m := Map(f, int64(size))
		if m == nil {
			f.Close()
			t.Fatalf("size %d: Map returned nil on %s", size, runtime.GOOS)
		}
		if len(m) != size || !bytes.Equal(m, data) {
			t.Errorf("size %d: mapped %d bytes, differing from the file", size, len(m))
		}
		// The view outlives the file's handle (guard maps, then reads,
		// then closes; gitint closes the file at once).
		f.Close()
		sum := sha256.Sum256(m)
		want := sha256.Sum256(data)
		if sum != want {
			t.Errorf("size %d: after Close the view hashes to %s, want %s", size, hex.EncodeToString(sum[:]), hex.EncodeToString(want[:]))
		}
		Unmap(m)
		if err := os.Remove(path); err != nil {
			t.Errorf("size %d: remove after Unmap: %v", size, err)
		}
	}
}

// TestMapRefuses: an empty file and a negative size give nil (the caller
// reads the file instead), and Unmap(nil) does nothing.
func TestMapRefuses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "empty")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if m := Map(f, 0); m != nil {
		t.Errorf("Map of an empty file = %d bytes, want nil", len(m))
	}
	if m := Map(f, -1); m != nil {
		t.Errorf("Map with size -1 = %d bytes, want nil", len(m))
	}
	Unmap(nil)
}

// TestCopyIsPrivate: Copy returns the file's bytes, and a write to the
// file afterwards (through another descriptor, as another process would
// make it) leaves the copy as it was, where a view (Map) shows the write.
// A file shorter than size gives nil.
func TestCopyIsPrivate(t *testing.T) {
	if !mapsHere() {
		t.Skip("no mmap on " + runtime.GOOS)
	}
	data := bytes.Repeat([]byte("checked "), 3<<17) // 3 MiB
	path := filepath.Join(t.TempDir(), "spill")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c := Copy(f, int64(len(data)))
	if c == nil || !bytes.Equal(c, data) {
		t.Fatalf("Copy gave %d bytes, differing from the file's %d", len(c), len(data))
	}
	defer Unmap(c)
	view := Map(f, int64(len(data)))
	defer Unmap(view)
	w, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.WriteAt([]byte("REWRITTEN"), int64(len(data)-100)); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if !bytes.Equal(c, data) {
		t.Error("a write to the file changed the copy")
	}
	if runtime.GOOS != "windows" && bytes.Equal(view, data) {
		t.Error("the view does not show the write: this test no longer tells a copy from a view")
	}
	if b := Copy(f, int64(len(data))+1); b != nil {
		Unmap(b)
		t.Error("Copy of more bytes than the file holds did not give nil")
	}
}
