//go:build !windows

package proc

// holderMain is Windows-only (tree_windows_test.go).
func holderMain() (int, bool) { return 0, false }
