package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHostileHeadersHelperNotRun: a pull request adds a Codex
// http_headers_helper (a command Codex runs when it connects) to a remote
// server. agentgate lock and diff never run it: the server
// could not be verified (exit 3) with an error naming the field, and no
// connection is made without the headers; the lockfile is untouched. The
// same helper beside "command" is refused as Codex refuses the file
// (exit 2). (issue #25 findings 4 and 5)
func TestHostileHeadersHelperNotRun(t *testing.T) {
	r := newRepo(t, true, nil)
	marker := filepath.Join(t.TempDir(), "helper-ran")
	r.write(".codex/config.toml", "[mcp_servers.web]\nurl = \"http://127.0.0.1:9/mcp\"\nhttp_headers_helper = \"touch "+marker+"\"\n")
	for _, cmd := range [][]string{{"lock"}, {"diff"}} {
		_, stderr := r.mustRun(ExitUnverified, cmd...)
		if !strings.Contains(stderr, "http_headers_helper") || !strings.Contains(stderr, "agentgate does not run commands from a config file") {
			t.Errorf("agentgate %s: stderr does not name http_headers_helper:\n%s", cmd[0], stderr)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the helper ran")
	}
	if _, err := os.Stat(filepath.Join(r.dir, "agentgate.lock")); err == nil {
		t.Error("agentgate.lock written")
	}
	r.write(".codex/config.toml", "[mcp_servers.web]\ncommand = \"srv\"\nhttp_headers_helper = \"touch "+marker+"\"\n")
	if _, stderr := r.mustRun(ExitInvalid, "lock"); !strings.Contains(stderr, "http_headers_helper is not supported for stdio") {
		t.Errorf("stdio entry with a helper: %s", stderr)
	}
}
