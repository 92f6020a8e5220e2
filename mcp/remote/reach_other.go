//go:build !windows

package remote

// refusedOS: syscall.ECONNREFUSED is the refusal here (see ReachCause).
func refusedOS(error) bool { return false }
