//go:build !unix

package gitint

import "os"

func mapFile(f *os.File, size int64) []byte { return nil }

func unmapFile(b []byte) {}
