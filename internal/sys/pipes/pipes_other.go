//go:build !linux

package pipes

import "os"

// Widen does nothing here: only Linux lets a process size a pipe.
func Widen(f *os.File, size int) (int, error) { return 0, nil }

// maxSize is 0: there is no limit to read.
func maxSize() int { return 0 }
