package remote

import (
	"errors"
	"net"
	"net/url"
	"syscall"
)

// errRefused is a refused connection, in the words Linux and macOS use.
var errRefused = errors.New("connect: connection refused")

// ReachCause is why the request ue could not reach a remote server, for
// "cannot reach URL: CAUSE" messages: the dial's own error without the
// "dial tcp ADDR" the URL already says, and a refused connection in the
// same words on every OS ("connect: connection refused"; Windows would
// say "connectex: No connection could be made because the target
// machine actively refused it.").
func ReachCause(ue *url.Error) error {
	cause := ue.Err
	var oe *net.OpError
	if errors.As(cause, &oe) {
		cause = oe.Err
	}
	if errors.Is(cause, syscall.ECONNREFUSED) || refusedOS(cause) {
		return errRefused
	}
	return cause
}
