package cli

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/agentgate/agentgate/internal/mcpmain"
	"github.com/agentgate/agentgate/internal/testing/fakehttp"
	"github.com/agentgate/agentgate/internal/testing/testenv"
	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain serves three roles: the test binary itself; the fake MCP server
// when AGENTGATE_FAKESERVER=1 (exit_test.go's configs run os.Args[0]); and,
// under testscript, the commands "agentgate", "git-agentgate" (so that
// "git agentgate" works), "agentgate-mcp" and "fakemcp". testscript.Main
// puts copies of this binary under those names in a directory it prepends
// to PATH, in this process too: agentgate, in-process or not, finds its
// helper agentgate-mcp there (wire.FindHelper), as it would next to an
// installed agentgate.
func TestMain(m *testing.M) {
	if os.Getenv("AGENTGATE_FAKESERVER") == "1" {
		os.Exit(fakehttp.Main(os.Args[1:]))
	}
	testscript.Main(m, map[string]func(){
		"agentgate":     func() { os.Exit(Main(context.Background(), os.Args[1:], os.Stdout, os.Stderr)) },
		"git-agentgate": func() { os.Exit(Main(context.Background(), os.Args[1:], os.Stdout, os.Stderr)) },
		"agentgate-mcp": func() { os.Exit(helperMain()) },
		"fakemcp":       func() { os.Exit(fakehttp.Main(os.Args[1:])) },
		"fakebrowser":   func() { os.Exit(fakeBrowser(os.Args[1:])) },
	})
}

// helperMain is cmd/agentgate-mcp's main (internal/mcpmain).
func helperMain() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return mcpmain.Main(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
}

// TestScripts runs testdata/script/*.txtar, each in a fresh directory that
// the script usually turns into a git repository. UPDATE_GOLDEN=1 rewrites
// the golden files embedded in the scripts.
func TestScripts(t *testing.T) {
	npmBin, err := filepath.Abs(filepath.Join("..", "..", "testdata", "npm", "node_modules", ".bin"))
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("testdata", "script"),
		UpdateScripts:       testenv.UpdateGolden(),
		RequireExplicitExec: true,
		Cmds:                map[string]func(ts *testscript.TestScript, neg bool, args []string){"sarifvalid": cmdSARIFValid, "gitlabvalid": cmdGitLabValid, "workflowscript": cmdWorkflowScript, "fakeregistry": cmdFakeRegistry, "everything": cmdEverything},
		Condition: func(cond string) (bool, error) {
			// [npm]: the pinned npm MCP servers are installed (scripts/test.sh).
			// Under CI=true their absence is a failure, never a skip.
			if cond != "npm" {
				return false, fmt.Errorf("unknown condition %q", cond)
			}
			if _, err := os.Stat(filepath.Join(npmBin, "mcp-server-memory")); err != nil {
				if testenv.CI() {
					return false, fmt.Errorf("%s is missing: run scripts/test.sh (npm ci --prefix testdata/npm)", npmBin)
				}
				return false, nil
			}
			return true, nil
		},
		Setup: func(e *testscript.Env) error {
			e.Setenv("NPM_BIN", npmBin)
			home := filepath.Join(e.WorkDir, ".home")
			if err := os.MkdirAll(home, 0o755); err != nil {
				return err
			}
			for k, v := range map[string]string{
				"HOME":                home,
				"GIT_CONFIG_NOSYSTEM": "1",
				"GIT_CONFIG_GLOBAL":   filepath.Join(home, ".gitconfig"),
				"GIT_AUTHOR_NAME":     "Test",
				"GIT_AUTHOR_EMAIL":    "test@example.com",
				"GIT_COMMITTER_NAME":  "Test",
				"GIT_COMMITTER_EMAIL": "test@example.com",
				"GIT_AUTHOR_DATE":     "2026-01-01T00:00:00Z",
				"GIT_COMMITTER_DATE":  "2026-01-01T00:00:00Z",
				"SOURCE_DATE_EPOCH":   "1785758400", // 2026-08-03T12:00:00Z
				"NO_COLOR":            "",
				"GITHUB_ACTIONS":      "",
			} {
				e.Setenv(k, v)
			}
			return nil
		},
	})
}

// fakeBrowser is $BROWSER for the OAuth tests: it GETs its URL and follows
// redirects, as a browser would, back to agentgate's loopback callback.
func fakeBrowser(args []string) int {
	if len(args) != 1 {
		fmt.Fprintln(os.Stderr, "usage: fakebrowser URL")
		return 2
	}
	resp, err := http.Get(args[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakebrowser:", err)
		return 1
	}
	resp.Body.Close()
	return 0
}
