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
