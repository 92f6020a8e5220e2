package wire

// auth.go: `agentgate auth` runs in agentgate-mcp, which links the OAuth
// client (mcp/auth); agentgate sends it the servers as for a capture.
//
// agentgate starts `agentgate-mcp auth` with an AuthRequest on stdin (then
// EOF); the helper writes what it has to say to its own stdout and stderr,
// which are agentgate's, and exits with agentgate's exit code for the
// action.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"syscall"

	"github.com/agentgate/agentgate/mcp/config"
)

// AuthRequest is what agentgate sends to `agentgate-mcp auth`.
type AuthRequest struct {
	Protocol  int    `json:"protocol"`  // ProtocolVersion
	Agentgate string `json:"agentgate"` // Version() of the sender
	// Action is "login", "status" or "logout".
	Action  string            `json:"action"`
	Servers []config.Resolved `json:"servers"`
}

// NewAuthRequest returns the request for action on servers.
func NewAuthRequest(action string, servers []config.Resolved) *AuthRequest {
	return &AuthRequest{Protocol: ProtocolVersion, Agentgate: Version(), Action: action, Servers: servers}
}

// ReadAuthRequest reads an AuthRequest like ReadRequest reads a Request.
func ReadAuthRequest(r io.Reader) (*AuthRequest, error) {
	var req AuthRequest
	if err := readVersioned(r, &req, "{protocol, agentgate, action, servers}"); err != nil {
		return nil, err
	}
	return &req, nil
}

// RunAuth runs `agentgate-mcp auth` for req with the given stdout and
// stderr and returns its exit code. A helper that cannot be started, or
// that dies of a signal, is a *HelperError.
func (h Helper) RunAuth(ctx context.Context, req *AuthRequest, stdout, stderr io.Writer) (int, error) {
	data, err := json.Marshal(req)
	if err != nil {
		return 0, &HelperError{Path: h.Path, Msg: err.Error(), Kind: ErrHelperFailed}
	}
	return h.runWith(ctx, []string{"auth"}, bytes.NewReader(data), stdout, stderr, false)
}

// RunGuard runs `agentgate-mcp guard ARGS...` (see mcp/guard.Serve; the
// versions go first, see GuardArgs) with
// the given stdin, stdout and stderr (an *os.File is handed to the helper
// as it is: the client's pipes reach it unbuffered) and returns its exit
// code. A helper that cannot be started, or that dies of a signal, is a
// *HelperError. When ctx ends the helper gets SIGTERM, stops the server
// and exits with guard's own code for that (0: the client ended the
// session), which RunGuard returns as it does any other.
func (h Helper) RunGuard(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	return h.runWith(ctx, GuardArgs(args), stdin, stdout, stderr, true)
}

// runWith runs the helper with args and returns its exit code. When ctx
// ended, the run is a *HelperError of kind context.Canceled, unless
// ownCode is set and the helper exited (not killed by a signal): then its
// exit code.
func (h Helper) runWith(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, ownCode bool) (int, error) {
	cmd := exec.CommandContext(ctx, h.Path, args...)
	cmd.Dir = h.Dir
	cmd.Stdin = stdin
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = helperWaitDelay
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, nil
	case ownCode && cmd.ProcessState != nil && cmd.ProcessState.Exited():
		return cmd.ProcessState.ExitCode(), nil
	case ctx.Err() != nil:
		return 0, &HelperError{Path: h.Path, Msg: "interrupted", Kind: context.Canceled}
	case errors.As(err, &ee) && ee.ExitCode() >= 0:
		return ee.ExitCode(), nil
	}
	return 0, &HelperError{Path: h.Path, Msg: err.Error(), Kind: ErrHelperFailed, Overloaded: killed(err)}
}
