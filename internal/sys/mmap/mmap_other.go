//go:build !unix && !windows

package mmap

import "os"

// Map returns nil: this OS has no mmap here; the caller reads the file.
func Map(f *os.File, size int64) []byte { return nil }

// Unmap releases a mapping Map returned (nil is allowed).
func Unmap(b []byte) {}

// Copy returns nil: this OS has no mapping here; the caller reads the
// file into the heap.
func Copy(f *os.File, size int64) []byte { return nil }
