//go:build unix

// Package mmap maps files read-only where the OS can (unix; Windows in
// mmap_windows.go), for readers that must look at a large file without
// holding it in the heap (gitint's pack files), and copies a file into
// private memory outside the heap for readers that must not see later
// writes to it (agentgate guard's spilled messages).
//
// Written by hand: two calls per OS over golang.org/x/sys, which agentgate
// links already; edsrzf/mmap-go (one module more) would still leave Copy's
// read and mprotect here.
package mmap

import (
	"io"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
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

// Copy returns a private copy of the first size bytes of f, in memory
// outside Go's heap (an anonymous private mapping, made read-only once
// filled), read with f.ReadAt; nil when it cannot (the mapping fails, or
// the file holds fewer than size bytes). No write to the file, by this
// process or another that opened it (a same-user process can, through
// /proc/PID/fd even after the file was unlinked), changes the copy once
// Copy returned: unlike a view of the file (Map), whose pages are the
// file's own. Release it with Unmap.
func Copy(f *os.File, size int64) []byte {
	if size <= 0 || size != int64(int(size)) {
		return nil
	}
	b, err := syscall.Mmap(-1, 0, int(size), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return nil
	}
	if n, err := f.ReadAt(b, 0); n != len(b) || (err != nil && err != io.EOF) {
		syscall.Munmap(b)
		return nil
	}
	_ = unix.Mprotect(b, unix.PROT_READ) // best effort: nothing of guard's writes to it
	return b
}
