//go:build !windows

package capture

// refusedOS: syscall.ECONNREFUSED is the refusal here (see ReachCause).
func refusedOS(error) bool { return false }
