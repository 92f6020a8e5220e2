package remote

import (
	"errors"

	"golang.org/x/sys/windows"
)

// refusedOS reports Winsock's refusal, WSAECONNREFUSED, which is not
// syscall.ECONNREFUSED on Windows.
func refusedOS(err error) bool { return errors.Is(err, windows.WSAECONNREFUSED) }
