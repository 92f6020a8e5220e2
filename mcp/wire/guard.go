package wire

// guard.go: the versions agentgate gives `agentgate-mcp guard`.
//
// Guard's stdin and stdout are the MCP client's, handed to the helper as
// they are, so there is no request line for the versions to travel in:
// agentgate gives them as the first arguments instead,
// "agentgate-mcp guard --agentgate-version PROTOCOL/VERSION ARGS...", and
// the helper refuses (exit 3, before it reads a byte or starts a server)
// when they are missing or not its own. This form is frozen like the
// versions of the capture request.

import (
	"fmt"
	"strconv"
	"strings"
)

// guardVersionFlag is the flag that carries agentgate's versions to
// `agentgate-mcp guard`.
const guardVersionFlag = "--agentgate-version"

// GuardArgs returns the arguments agentgate starts agentgate-mcp with for
// `agentgate guard ARGS...`: "guard", the versions flag, then args.
func GuardArgs(args []string) []string {
	return append([]string{"guard", guardVersionFlag, fmt.Sprintf("%d/%s", ProtocolVersion, Version())}, args...)
}

// CheckGuardArgs reads the versions GuardArgs put before args (the
// arguments after "guard") and returns the arguments after them. Versions
// that are missing (an agentgate that gives none is older than protocol 3)
// or not this binary's are a *VersionError.
func CheckGuardArgs(args []string) ([]string, error) {
	if len(args) < 2 || args[0] != guardVersionFlag {
		return nil, &VersionError{Helper: Version(), HelperProtocol: ProtocolVersion}
	}
	p, v, _ := strings.Cut(args[1], "/")
	n, err := strconv.Atoi(p)
	if err != nil {
		n = 0
	}
	if (versions{n, v}).mismatch() {
		return nil, &VersionError{Agentgate: v, Protocol: n, Helper: Version(), HelperProtocol: ProtocolVersion}
	}
	return args[2:], nil
}
