//go:build !windows

package atomicfile

// isBusy is always false: unix renames over an open file.
func isBusy(error) bool { return false }
