package mcpmain

import (
	"bytes"
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/mcp/wire"
)

// TestGuardVersions: `agentgate-mcp guard` runs only for an agentgate of
// its own version (wire.GuardArgs): one that gives no version (older than
// protocol 3) or another is refused with exit 3 and the reinstall hint,
// before guard reads the client's stdin or starts the server; the
// matching versions reach guard.Serve, whose own checks then apply.
func TestGuardVersions(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "agentgate.lock")
	guardArgs := []string{"--server", "s", "--lockfile", missing, "--", "false"}
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no versions", append([]string{"guard"}, guardArgs...), 3,
			"agentgate: error: an older agentgate (one that gives agentgate-mcp no version) and agentgate-mcp " + wire.Version() + " (protocol " + strconv.Itoa(wire.ProtocolVersion) + ") are different versions\n" +
				"agentgate: hint: install agentgate and agentgate-mcp together, from one checkout, into one directory: go install ./cmd/... (or go build -o DIR/ ./cmd/..., DIR being agentgate's directory); for the latest release: go install github.com/agentgate/agentgate/cmd/...@latest\n"},
		{"another version", append([]string{"guard", "--agentgate-version", strconv.Itoa(wire.ProtocolVersion) + "/v1.2.3"}, guardArgs...), 3,
			"agentgate: error: agentgate v1.2.3 (protocol " + strconv.Itoa(wire.ProtocolVersion) + ") and agentgate-mcp " + wire.Version() + " (protocol " + strconv.Itoa(wire.ProtocolVersion) + ") are different versions\n" +
				"agentgate: hint: install agentgate and agentgate-mcp together, from one version, into one directory: go install github.com/agentgate/agentgate/cmd/...@v1.2.3 (or the three binaries of one release archive: README.md, Install)\n"},
		{"another protocol", append([]string{"guard", "--agentgate-version", strconv.Itoa(wire.ProtocolVersion+1) + "/" + wire.Version()}, guardArgs...), 3,
			"(protocol " + strconv.Itoa(wire.ProtocolVersion+1) + ") and agentgate-mcp " + wire.Version() + " (protocol " + strconv.Itoa(wire.ProtocolVersion) + ") are different versions\n"},
		{"unreadable versions", append([]string{"guard", "--agentgate-version", "x"}, guardArgs...), 3, "are different versions"},
		{"flag without value", []string{"guard", "--agentgate-version"}, 3, "an older agentgate"},
		{"same version: guard runs", wire.GuardArgs(guardArgs), 2, "no lockfile"},
		// The usage hint names the remote form too.
		{"--header without --url", wire.GuardArgs([]string{"--server", "s", "--header", "X: y", "--", "false"}), 2,
			"agentgate: error: --header and --transport go with --url\nagentgate: hint: usage: agentgate guard --server NAME [--lockfile PATH] [--on-drift withhold|block|warn] -- COMMAND [ARGS...], or for a remote server: agentgate guard --server NAME [...] --url URL [--header 'K: V' ...] [--transport http|sse]\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			stdin := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}` + "\n")
			code := Main(context.Background(), tc.args, stdin, &stdout, &stderr)
			if code != tc.code || !strings.Contains(stderr.String(), tc.want) {
				t.Errorf("exit %d, stderr:\n%s\nwant exit %d and %q", code, stderr.String(), tc.code, tc.want)
			}
			if stdout.Len() > 0 {
				t.Errorf("stdout (the client's) got %q", stdout.String())
			}
			if tc.code == 3 && stdin.Len() == 0 {
				t.Error("guard read the client's stdin before refusing")
			}
		})
	}
}
