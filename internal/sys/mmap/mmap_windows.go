//go:build windows

package mmap

import (
	"io"
	"os"
	"syscall"
	"unsafe"
)

// Map maps f (size bytes) read-only with a file mapping object and a
// view of it (CreateFileMapping, MapViewOfFile); nil when it cannot, and
// the caller then reads the file instead.
func Map(f *os.File, size int64) []byte {
	if size <= 0 || size != int64(int(size)) {
		return nil
	}
	return view(syscall.Handle(f.Fd()), syscall.PAGE_READONLY, syscall.FILE_MAP_READ, size)
}

// Unmap releases a view Map returned (nil is allowed). It must be called
// before the file is removed: Windows does not delete a mapped file.
func Unmap(b []byte) {
	if len(b) > 0 {
		syscall.UnmapViewOfFile(uintptr(unsafe.Pointer(&b[0])))
	}
}

// Copy returns a private copy of the first size bytes of f, in memory
// outside Go's heap (a view of a mapping backed by the paging file, not
// by f), read with f.ReadAt; nil when it cannot (the mapping fails, or
// the file holds fewer than size bytes). No write to the file, by this
// process or another, changes the copy once Copy returned: unlike a view
// of the file (Map). Release it with Unmap.
func Copy(f *os.File, size int64) []byte {
	if size <= 0 || size != int64(int(size)) {
		return nil
	}
	b := view(syscall.InvalidHandle, syscall.PAGE_READWRITE, syscall.FILE_MAP_WRITE, size)
	if b == nil {
		return nil
	}
	if n, err := f.ReadAt(b, 0); n != len(b) || (err != nil && err != io.EOF) {
		Unmap(b)
		return nil
	}
	return b
}

// view maps size bytes of file (syscall.InvalidHandle: of the paging
// file) with a mapping object of protection prot and returns a view of
// it with access; nil when it cannot. The mapping object's handle is
// closed at once: the view keeps it alive until Unmap.
func view(file syscall.Handle, prot, access uint32, size int64) []byte {
	h, err := syscall.CreateFileMapping(file, nil, prot, uint32(uint64(size)>>32), uint32(size), nil)
	if err != nil {
		return nil
	}
	defer syscall.CloseHandle(h)
	addr, err := syscall.MapViewOfFile(h, access, 0, 0, uintptr(size))
	if err != nil || addr == 0 {
		return nil
	}
	// addr is the view's address, outside Go's heap: read it as a pointer
	// without the uintptr conversion vet cannot tell from a misuse.
	return unsafe.Slice((*byte)(*(*unsafe.Pointer)(unsafe.Pointer(&addr))), int(size))
}
