package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/internal/check"
	"github.com/agentgate/agentgate/mcp/config"
)

// Under --trusted-ref, a shell command or an inline program names the
// repository files it runs inside a string agentgate would have to
// interpret (issue #24 finding 10). Each case commits a server and
// tools/srv.py on main; the branch "pr" changes only tools/srv.py. Where
// agentgate can read the words the shell runs (plain and quoted words of
// one simple command), it checks them as files and refuses the changed
// script by name; where it cannot (an operator, a cd, a glob, an
// expansion, a program given as text), it refuses the server as untrusted
// code, saying why. Nothing is started.
func TestHostileTrustedRefShellWords(t *testing.T) {
	for _, tc := range []struct {
		name    string
		command string
		args    []string
		why     string
	}{
		{"quoted word in sh -c", "sh", []string{"-c", `exec python3 "tools/srv.py"`}, "it uses tools/srv.py, which differs from main"},
		{"single-quoted word in bash -c", "bash", []string{"-c", `exec python3 'tools/srv.py' --port 1`}, "it uses tools/srv.py, which differs from main"},
		{"cd then a relative name", "sh", []string{"-c", "cd tools && python3 srv.py"}, `cannot tell which repository files "sh -c" runs`},
		{"a glob", "sh", []string{"-c", "python3 tools/sr?.py"}, `cannot tell which repository files "sh -c" runs`},
		{"an expansion", "sh", []string{"-c", `python3 "$PWD/tools/srv.py"`}, `cannot tell which repository files "sh -c" runs`},
		{"two lines", "sh", []string{"-c", "cd tools\npython3 srv.py"}, `cannot tell which repository files "sh -c" runs`},
		{"clustered -ec", "sh", []string{"-ec", "cd tools; python3 srv.py"}, `cannot tell which repository files "sh -c" runs`},
		{"python -c", "python3", []string{"-c", "exec(open('tools/srv.py').read())"}, `"python3 -c" runs a program given as text`},
		{"node -e behind env", "env", []string{"node", "-e", "require('./tools/srv.py')"}, `"node -e" runs a program given as text`},
		{"python -m", "python3", []string{"-m", "tools.srv"}, `"python3 -m" runs a module`},
		{"a shell inside a shell", "sh", []string{"-c", "exec sh -c ./tools/srv.py"}, "it uses tools/srv.py, which differs from main"},
		{"an inline program inside a shell", "sh", []string{"-c", "exec python3 -c 'import runpy'"}, `"python3 -c" runs a program given as text`},
		{"npx -c", "npx", []string{"-c", "python3 tools/sr*.py"}, `cannot tell which repository files "npx -c" runs`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRepo(t, true, map[string]any{"s": map[string]any{"command": tc.command, "args": tc.args}})
			r.write("tools/srv.py", "print('honest')\n")
			r.commitAll()
			r.git("checkout", "-q", "-b", "pr")
			r.write("tools/srv.py", "print('payload')\n")
			r.commitAll()
			ok, refused, err := trustFilterMain(t, r)
			if err != nil {
				t.Fatal(err)
			}
			if len(ok) != 0 || len(refused) != 1 {
				t.Fatalf("trusted %d, refused %+v; want the server refused", len(ok), refused)
			}
			f := refused[0]
			if f.Class != check.Unverified || !strings.Contains(f.Msg, "not started: ") || !strings.Contains(f.Msg, tc.why) {
				t.Errorf("refusal %q (class %v), want check.Unverified saying %q", f.Msg, f.Class, tc.why)
			}
		})
	}
}

// TestTrustedRefShellWordsProven: a shell command whose words agentgate
// can read, naming files unchanged at the trusted revision, still starts
// (the rule refuses what it cannot prove, not every shell).
func TestTrustedRefShellWordsProven(t *testing.T) {
	for _, args := range [][]string{
		{"-c", `exec python3 "tools/srv.py"`},
		{"-c", "AGENTGATE_X=1 exec python3 tools/srv.py --name 'a b'"},
	} {
		r := newRepo(t, true, map[string]any{"s": map[string]any{"command": "sh", "args": args}})
		r.write("tools/srv.py", "print('honest')\n")
		r.commitAll()
		r.git("checkout", "-q", "-b", "pr")
		r.write("README", "unrelated\n")
		r.commitAll()
		ok, refused, err := trustFilterMain(t, r)
		if err != nil || len(ok) != 1 || len(refused) != 0 {
			t.Errorf("sh %q: trusted %d, refused %+v, err %v; want it trusted", args, len(ok), refused, err)
		}
	}
}

// TestTrustedRefCommandOnEntryPath: a bare command that the server's own
// PATH (its env) finds in the repository is the file checked, as capture
// and the client find it: the pull request changing tools/srv is refused.
func TestTrustedRefCommandOnEntryPath(t *testing.T) {
	r := newRepo(t, true, nil)
	r.writeConfig(map[string]any{"s": map[string]any{"command": "srv", "env": map[string]string{"PATH": r.dir + "/tools:/usr/bin:/bin"}}})
	r.write("tools/srv", "#!/bin/sh\necho honest\n")
	if err := os.Chmod(filepath.Join(r.dir, "tools", "srv"), 0o755); err != nil {
		t.Fatal(err)
	}
	r.commitAll()
	r.git("checkout", "-q", "-b", "pr")
	r.write("tools/srv", "#!/bin/sh\necho payload\n")
	r.commitAll()
	ok, refused, err := trustFilterMain(t, r)
	if err != nil || len(ok) != 0 || len(refused) != 1 || !strings.Contains(refused[0].Msg, "it uses tools/srv, which differs from main") {
		t.Fatalf("trusted %d, refused %+v, err %v; want tools/srv refused", len(ok), refused, err)
	}
}

// trustFilterMain runs --trusted-ref main's filter (check.TrustFilter) over the
// servers of r's work tree, as agentgate ci would.
func trustFilterMain(t *testing.T, r *testRepo) (ok []config.Resolved, refused []check.Failure, err error) {
	t.Helper()
	e := inProcessEnv(r)
	ws, err := openWorkspace(e, true, true, "", "ci")
	if err != nil {
		t.Fatal(err)
	}
	ok, refused, _, err = check.TrustFilter(e.engine(), ws, "main", ws.Project.Servers)
	return ok, refused, err
}
