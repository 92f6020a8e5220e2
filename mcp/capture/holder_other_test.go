//go:build !windows

package capture

// holderMain is Windows-only (stdio_windows_test.go).
func holderMain() (int, bool) { return 0, false }
