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
// before guard reads the client's stdin or starts the server (run with no
// versions at all, by hand, it is bad usage: exit 2, naming agentgate
// guard); the
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
		{"no versions: run by hand", append([]string{"guard"}, guardArgs...), 2,
			"agentgate-mcp: error: agentgate-mcp guard is started by agentgate guard, which gives it agentgate's version first; it was run without one\n" +
				"agentgate: hint: run agentgate guard instead; its usage: agentgate guard --server NAME [--lockfile PATH] [--on-drift withhold|block|warn] -- COMMAND [ARGS...], or for a remote server: agentgate guard --server NAME [...] --url URL [--header 'K: V' ...] [--transport http|sse]\n" +
				"agentgate: hint: if agentgate guard started it, that agentgate is older than this agentgate-mcp: install agentgate and agentgate-mcp together, from one checkout, into one directory: go install ./cmd/... (or go build -o DIR/ ./cmd/..., DIR being agentgate's directory); for the latest release: go install github.com/agentgate/agentgate/cmd/...@latest\n"},
		{"another version", append([]string{"guard", "--agentgate-version", strconv.Itoa(wire.ProtocolVersion) + "/v1.2.3"}, guardArgs...), 3,
			"agentgate: error: agentgate v1.2.3 (protocol " + strconv.Itoa(wire.ProtocolVersion) + ") and agentgate-mcp " + wire.Version() + " (protocol " + strconv.Itoa(wire.ProtocolVersion) + ") are different versions\n" +
				"agentgate: hint: install agentgate and agentgate-mcp together, from one version, into one directory: go install github.com/agentgate/agentgate/cmd/...@v1.2.3 (or the three binaries of one release archive: README.md, Install)\n"},
		{"another protocol", append([]string{"guard", "--agentgate-version", strconv.Itoa(wire.ProtocolVersion+1) + "/" + wire.Version()}, guardArgs...), 3,
			"(protocol " + strconv.Itoa(wire.ProtocolVersion+1) + ") and agentgate-mcp " + wire.Version() + " (protocol " + strconv.Itoa(wire.ProtocolVersion) + ") are different versions\n"},
		{"unreadable versions", append([]string{"guard", "--agentgate-version", "x"}, guardArgs...), 2, "it was run without one"},
		{"flag without value", []string{"guard", "--agentgate-version"}, 2, "it was run without one"},
		{"guard alone", []string{"guard"}, 2, "agentgate: hint: run agentgate guard instead; its usage: agentgate guard "},
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
			if tc.code != 0 && stdin.Len() == 0 && !strings.Contains(tc.name, "runs") {
				t.Error("guard read the client's stdin before refusing")
			}
		})
	}
}

// TestBadUsage: every agentgate-mcp command run wrongly, or by hand when
// only agentgate should run it, is exit 2 with an error naming the
// command and a hint naming what to run instead; nothing on stdout but
// the capture's greeting (written before the request is read). The
// bridge's own usage errors are mcp/bridge's TestServeUsage.
func TestBadUsage(t *testing.T) {
	const capture = "agentgate: hint: agentgate-mcp is started by agentgate, which sends it the servers to capture: run agentgate lock (or diff, ci) instead\n"
	const auth = "agentgate: hint: agentgate-mcp auth is started by agentgate auth, which sends it the servers: run agentgate auth login|status|logout [NAME...] instead\n"
	const unknown = "agentgate: hint: agentgate starts agentgate-mcp itself: run agentgate (lock, diff, ci, auth, guard) instead; agentgate-mcp's own commands: agentgate-mcp bridge --url URL [--server NAME] [--header 'Name: value' ...] [--transport http|sse], agentgate-mcp version\n"
	const release = "agentgate: hint: install agentgate and agentgate-mcp together, from one version, into one directory: go install github.com/agentgate/agentgate/cmd/...@v1.2.3 (or the three binaries of one release archive: README.md, Install)\n"
	other := `{"protocol":` + strconv.Itoa(wire.ProtocolVersion) + `,"agentgate":"v1.2.3","action":"login","servers":[],"options":{}}` + "\n"
	tests := []struct {
		name, stdin string
		args        []string
		stderr      string // exactly
		stdout      bool   // the greeting
	}{
		{"unknown command", "", []string{"lock"}, "agentgate-mcp: error: unknown command \"lock\"\n" + unknown, false},
		{"a flag", "", []string{"--url"}, "agentgate-mcp: error: unknown command \"--url\"\n" + unknown, false},
		{"capture: no request", "", nil, "agentgate-mcp: error: the request is not a JSON object {protocol, agentgate, options, servers}: unexpected end of JSON input\n" + capture, true},
		{"capture: typed by hand", "lock\n", nil, "agentgate-mcp: error: the request is not a JSON object {protocol, agentgate, options, servers}: invalid character 'l' looking for beginning of value\n" + capture, true},
		{"capture: another version", other, nil, "agentgate-mcp: error: agentgate v1.2.3 (protocol " + strconv.Itoa(wire.ProtocolVersion) + ") and agentgate-mcp " + wire.Version() + " (protocol " + strconv.Itoa(wire.ProtocolVersion) + ") are different versions\n" + release, true},
		{"auth: no request", "", []string{"auth"}, "agentgate-mcp: error: the request is not a JSON object {protocol, agentgate, action, servers}: unexpected end of JSON input\n" + auth, false},
		{"auth: arguments", "", []string{"auth", "login", "linear"}, "agentgate-mcp: error: agentgate-mcp auth takes no arguments (agentgate sends it the servers on stdin), got \"login\"\n" + auth, false},
		{"auth: another version", other, []string{"auth"}, "agentgate-mcp: error: agentgate v1.2.3 (protocol " + strconv.Itoa(wire.ProtocolVersion) + ") and agentgate-mcp " + wire.Version() + " (protocol " + strconv.Itoa(wire.ProtocolVersion) + ") are different versions\n" + release, false},
		{"version: argument", "", []string{"version", "x"}, "agentgate-mcp: error: version takes no arguments, got \"x\"\nagentgate: hint: run agentgate-mcp version\n", false},
		{"bridge: no url", "", []string{"bridge"}, "agentgate-mcp bridge: error: --url is required: the remote server's URL\nagentgate: hint: usage: agentgate-mcp bridge --url URL [--server NAME] [--header 'Name: value' ...] [--transport http|sse] (to check the server against agentgate.lock: agentgate guard --server NAME --url URL)\n", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := Main(context.Background(), tc.args, strings.NewReader(tc.stdin), &stdout, &stderr)
			if code != 2 || stderr.String() != tc.stderr {
				t.Errorf("exit %d, stderr:\n%s\nwant exit 2 and:\n%s", code, stderr.String(), tc.stderr)
			}
			if greeting := strings.HasPrefix(stdout.String(), `{"protocol":`); greeting != tc.stdout || (!tc.stdout && stdout.Len() > 0) {
				t.Errorf("stdout %q", stdout.String())
			}
			if strings.Contains(stderr.String(), "auth login bridge") || strings.Contains(stderr.String(), "@VERSION") {
				t.Errorf("a wrong hint:\n%s", stderr.String())
			}
		})
	}
	// Help is not an error: the usage, on stdout.
	for _, h := range []string{"help", "-h", "--help"} {
		var stdout, stderr bytes.Buffer
		if code := Main(context.Background(), []string{h}, strings.NewReader(""), &stdout, &stderr); code != 0 || stdout.String() != Usage || stderr.Len() > 0 ||
			!strings.Contains(Usage, "agentgate-mcp bridge --url URL") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", h, code, stdout.String(), stderr.String())
		}
	}
}
