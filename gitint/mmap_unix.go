//go:build unix

package gitint

import (
	"os"
	"syscall"
)

// mapFile maps f (size bytes) read-only; nil when it cannot, and the
// caller then reads with ReadAt.
func mapFile(f *os.File, size int64) []byte {
	if size <= 0 || size != int64(int(size)) {
		return nil
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil
	}
	return b
}

func unmapFile(b []byte) {
	if b != nil {
		syscall.Munmap(b)
	}
}
