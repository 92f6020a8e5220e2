//go:build unix

// Package mmap maps files read-only where the OS can (unix; Windows in
// mmap_windows.go), for readers that must look at a large file without
// holding it in the heap: gitint's pack files, agentgate guard's spilled
// messages.
package mmap

import (
	"os"
	"syscall"
)

// Map maps f (size bytes) read-only; nil when it cannot (or on systems
// without mmap), and the caller then reads the file instead.
func Map(f *os.File, size int64) []byte {
	if size <= 0 || size != int64(int(size)) {
		return nil
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil
	}
	return b
}

// Unmap releases a mapping Map returned (nil is allowed).
func Unmap(b []byte) {
	if b != nil {
		syscall.Munmap(b)
	}
}
