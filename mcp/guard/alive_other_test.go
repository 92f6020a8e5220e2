//go:build !unix

package guard

func processAlive(pid string) bool { return false }
