//go:build !linux

package pipes

import "os"

// Widen does nothing here: only Linux lets a process size a pipe.
func Widen(f *os.File, size int) (int, error) { return 0, nil }

// Size returns 0: this OS does not say.
func Size(f *os.File) int { return 0 }

// maxSize is 0: there is no limit to read.
func maxSize() int { return 0 }
