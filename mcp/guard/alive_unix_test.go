//go:build unix

package guard

import (
	"strconv"
	"syscall"
)

// processAlive reports whether the process pid exists and is not a
// zombie waiting for its parent.
func processAlive(pid string) bool {
	n, err := strconv.Atoi(pid)
	if err != nil {
		return false
	}
	return syscall.Kill(n, 0) == nil && !zombie(n)
}
