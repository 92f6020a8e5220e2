package launcher

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestProgramText: which command lines hand a program over as text, what
// agentgate reads of a shell's command string, and what it refuses to
// guess (issue #24 finding 10).
func TestProgramText(t *testing.T) {
	for _, tc := range []struct {
		argv  []string
		words []string // nil: none
		why   string   // a part of the reason; "" for none
	}{
		// No program text: the arguments are all there is.
		{argv: []string{"python3", "tools/srv.py", "-c", "conf.yml"}},
		{argv: []string{"node", "srv.js", "-e", "production"}},
		{argv: []string{"node", "--require", "./x.js", "srv.js"}},
		{argv: []string{"npx", "-y", "pkg@1.2.3"}},
		{argv: []string{"sh", "tools/srv.sh", "-c"}},
		{argv: []string{"bash", "-o", "pipefail", "tools/srv.sh"}},
		{argv: []string{"deno", "run", "srv.ts"}},
		{argv: []string{"pwsh", "-ExecutionPolicy", "Bypass", "-File", "x.ps1"}},
		{argv: []string{"python3", "-W", "ignore", "tools/srv.py"}},
		// Shell command strings agentgate reads.
		{argv: []string{"sh", "-c", `exec python3 "tools/srv.py"`}, words: []string{"exec", "python3", "tools/srv.py"}},
		{argv: []string{"bash", "-ec", `X=1 exec node 'a b.js'`}, words: []string{"X=1", "exec", "node", "a b.js", "1"}},
		{argv: []string{"sh", "-c", "exec sh -c ./tools/srv.sh"}, words: []string{"exec", "sh", "-c", "./tools/srv.sh", "./tools/srv.sh"}},
		{argv: []string{"cmd", "/c", "npx", "-y", "pkg@1"}, words: []string{"npx", "-y", "pkg@1"}},
		{argv: []string{"npx", "-y", "-c", "node tools/srv.js"}, words: []string{"node", "tools/srv.js"}},
		{argv: []string{"npm", "exec", "--call=node tools/srv.js"}, words: []string{"node", "tools/srv.js"}},
		{argv: []string{"env", "-S", "node tools/srv.js"}, words: []string{"node", "tools/srv.js"}},
		{argv: []string{"fish", "--command", "node srv.js"}, words: []string{"node", "srv.js"}},
		// What agentgate does not interpret.
		{argv: []string{"sh", "-c", "cd tools && python3 srv.py"}, why: `"sh -c" runs: its command has '&'`},
		{argv: []string{"sh", "-c", "cd tools\npython3 srv.py"}, why: "a newline"},
		{argv: []string{"sh", "-c", "python3 tools/sr?.py"}, why: `'?'`},
		{argv: []string{"sh", "-c", `python3 "$HOME/x.py"`}, why: `'$' inside double quotes`},
		{argv: []string{"sh", "-c", `python3 'tools/srv.py`}, why: "an unclosed '"},
		{argv: []string{"sh", "-c", "PATH=tools exec agentgate"}, why: "an assignment to PATH"},
		{argv: []string{"cmd", "/C", "tools\\srv.bat"}, why: `"cmd /C" runs`},
		{argv: []string{"cmd", "/c", "echo", "%PATH%"}, why: `'%'`},
		{argv: []string{"sh", "-c", `sh -c "sh -c 'sh -c x'"`}, words: []string{"sh", "-c", "sh -c 'sh -c x'", "sh", "-c", "sh -c x", "sh", "-c", "x", "x"}},
		{argv: []string{"python3", "-c", "exec(open('tools/srv.py').read())"}, why: `"python3 -c" runs a program given as text`},
		{argv: []string{"python3.12", "-Ic", "import x"}, why: `"python3.12 -Ic" runs a program given as text`},
		{argv: []string{"python3", "-m", "tools.srv"}, why: `"python3 -m" runs a module`},
		{argv: []string{"uv", "run", "python", "-c", "x"}, why: `"python -c" runs a program`},
		{argv: []string{"env", "node", "-e", "x"}, why: `"node -e" runs a program`},
		{argv: []string{"node", "--eval=x"}, why: `"node --eval" runs a program`},
		{argv: []string{"node", "--require", "./x.js", "-p", "1"}, why: `"node -p" runs a program`},
		{argv: []string{"deno", "eval", "x"}, why: `"deno eval" runs a program`},
		{argv: []string{"ruby", "-ne", "x"}, why: `"ruby -ne" runs a program`},
		{argv: []string{"perl", "-Mtools::x", "srv.pl"}, why: `"perl -Mtools::x" runs a module`},
		{argv: []string{"pwsh", "-EncodedCommand", "ZQBjAGgAbwA="}, why: `"pwsh -EncodedCommand" runs a program`},
		{argv: []string{"powershell", "-NoProfile", "./x.ps1"}, why: `"powershell ./x.ps1" runs a program`},
		{argv: []string{"pwsh", "-c", "./x.ps1"}, why: `"pwsh -c" runs a program`},
		{argv: []string{"sh", "-c", "exec python3 -c 'import runpy'"}, why: `"python3 -c" runs a program`},
		{argv: []string{"sh", "-c", `eval "cd tools; python3 srv.py"`}, why: `"eval" runs: the shell runs its arguments`},
		{argv: []string{"bash", "-c", `trap 'python3 x.py' EXIT`}, why: `"trap" runs`},
		{argv: []string{"env", "-C", "tools", "python3", "srv.py"}, why: `"env -C" changes the working directory`},
	} {
		words, why := ProgramText(tc.argv[0], tc.argv[1:])
		if tc.why == "" && why != "" || tc.why != "" && !strings.Contains(why, tc.why) {
			t.Errorf("%q: why %q, want %q", tc.argv, why, tc.why)
		}
		if !slices.Equal(words, tc.words) {
			t.Errorf("%q: words %q, want %q", tc.argv, words, tc.words)
		}
	}
}

// FuzzShellWords: whatever command string ProgramText reads, the real
// /bin/sh splits into the same words (it prints them after printf), so
// --trusted-ref checks the files the shell would be handed.
func FuzzShellWords(f *testing.F) {
	for _, s := range []string{`exec python3 "tools/srv.py"`, `X=1 exec node 'a b.js' --x=y`, `a'b'"c"d e`, "a\tb  c", `'' ""`, `%x% @a:b,c+d`, `"a'b" 'c"d'`, "x\n", "a && b", `"$x"`} {
		f.Add(s)
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		f.Fatalf("sh is needed as the referee: %v", err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		words, bad := shellWords(s, false)
		if bad != "" || strings.ContainsRune(s, 0) {
			return
		}
		out, err := exec.Command(sh, "-c", `printf '%s\0' `+s).Output()
		if err != nil {
			t.Fatalf("sh -c printf %q: %v", s, err)
		}
		got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
		if !slices.Equal(got, words) {
			t.Errorf("%q: agentgate reads %q, sh %q", s, words, got)
		}
	})
}
