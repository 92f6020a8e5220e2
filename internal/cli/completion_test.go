package cli

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentgate/agentgate/internal/testing/testenv"
)

// needTool returns the path of a shell or tool the test drives for real.
// On Linux scripts/test.sh installs them, so there a missing one fails the
// test under CI; elsewhere (macOS, Windows runners) it is skipped.
func needTool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		msg := fmt.Sprintf("%s is not installed: run scripts/test.sh (it installs it on Linux)", name)
		if runtime.GOOS == "linux" {
			testenv.Missing(t, msg)
		}
		t.Skip(msg)
	}
	return p
}

// completionScript writes `agentgate completion SHELL` into a temp file.
func completionScript(t *testing.T, shell string) string {
	t.Helper()
	r := newRepo(t, false, nil)
	out, _ := r.mustRun(ExitOK, "completion", shell)
	f := filepath.Join(t.TempDir(), "agentgate."+shell)
	if err := os.WriteFile(f, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

// bashComplete sources the bash script in a real bash and returns what
// completing words (the last one being completed) offers, sorted.
func bashComplete(t *testing.T, script, fn string, words ...string) []string {
	t.Helper()
	bash := needTool(t, "bash")
	var quoted []string
	for _, w := range words {
		quoted = append(quoted, shellWord(w))
	}
	prog := `source "$1" || exit 9
complete -p agentgate >/dev/null || exit 8
COMP_WORDS=(` + strings.Join(quoted, " ") + `)
COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
` + fn + `
printf '%s\n' "${COMPREPLY[@]}"`
	out, err := exec.Command(bash, "--norc", "--noprofile", "-c", prog, "bash", script).CombinedOutput()
	if err != nil {
		t.Fatalf("bash: %v\n%s", err, out)
	}
	got := strings.Fields(string(out))
	slices.Sort(got)
	return got
}

// TestCompletionBash loads `agentgate completion bash` in bash and
// completes commands, flags, --format's values and git agentgate's words.
func TestCompletionBash(t *testing.T) {
	script := completionScript(t, "bash")
	for _, tt := range []struct {
		fn    string
		words []string
		want  []string
	}{
		{"_agentgate", []string{"agentgate", "lo"}, []string{"lock"}},
		{"_agentgate", []string{"agentgate", "ver"}, []string{"verify", "version"}},
		{"_agentgate", []string{"agentgate", "diff", "--f"}, []string{"--format"}},
		{"_agentgate", []string{"agentgate", "diff", "--format", ""}, []string{"gitlab", "json", "markdown", "sarif", "text", "title"}},
		{"_agentgate", []string{"agentgate", "ci", "--format", "=", "j"}, []string{"json"}},
		{"_agentgate", []string{"agentgate", "completion", ""}, completionShells},
		{"_agentgate", []string{"agentgate", "auth", "lo"}, []string{"login", "logout"}},
		{"_agentgate", []string{"agentgate", "help", "pi"}, []string{"pin"}},
		{"_agentgate", []string{"agentgate", "lock", "--timeout", ""}, nil},
		{"_git_agentgate", []string{"git", "agentgate", "dif"}, []string{"diff"}},
		{"_git_agentgate", []string{"git", "agentgate", "verify", "--no"}, []string{"--no-config"}},
	} {
		want := slices.Sorted(slices.Values(tt.want))
		if got := bashComplete(t, script, tt.fn, tt.words...); !slices.Equal(got, want) {
			t.Errorf("%s %q: got %q, want %q", tt.fn, tt.words, got, want)
		}
	}
}

// TestCompletionFish completes with fish's own `complete -C`.
func TestCompletionFish(t *testing.T) {
	fish := needTool(t, "fish")
	script := completionScript(t, "fish")
	for _, tt := range []struct{ line, want string }{
		{"agentgate lo", "lock"},
		{"agentgate diff --for", "--format"},
		{"agentgate servers --format ", "json"},
		{"agentgate completion z", "zsh"},
	} {
		out, err := exec.Command(fish, "--no-config", "-c", "source $argv[1]; complete -C "+shellWord(tt.line), script).CombinedOutput()
		if err != nil {
			t.Fatalf("fish: %v\n%s", err, out)
		}
		var got []string
		for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			got = append(got, strings.SplitN(l, "\t", 2)[0])
		}
		if !slices.Contains(got, tt.want) {
			t.Errorf("complete -C %q: got %q, want %q among them", tt.line, got, tt.want)
		}
	}
}

// TestCompletionZsh loads the script in zsh with compinit: it parses, and
// registers _agentgate for agentgate.
func TestCompletionZsh(t *testing.T) {
	zsh := needTool(t, "zsh")
	script := completionScript(t, "zsh")
	prog := `autoload -Uz compinit && compinit -u -d "$2/zcompdump" && source "$1" && print -r -- "$_comps[agentgate]" && whence -w _agentgate`
	out, err := exec.Command(zsh, "-f", "-c", prog, "zsh", script, t.TempDir()).CombinedOutput()
	if err != nil {
		t.Fatalf("zsh: %v\n%s", err, out)
	}
	if got := strings.Fields(string(out)); !slices.Equal(got, []string{"_agentgate", "_agentgate:", "function"}) {
		t.Errorf("zsh: got %q, want _agentgate registered as a function", out)
	}
}

// TestCompletionFromTable: every script names every command and every
// flag of the table, and each value a synopsis lists for a flag is also
// in that flag's help text (the synopsis is the one list of values).
func TestCompletionFromTable(t *testing.T) {
	scripts := map[string]string{}
	for _, sh := range completionShells {
		b, err := os.ReadFile(completionScript(t, sh))
		if err != nil {
			t.Fatal(err)
		}
		scripts[sh] = string(b)
	}
	ss := specs()
	if len(ss) < 15 {
		t.Fatalf("%d commands in the table", len(ss))
	}
	withChoices := 0
	for _, s := range ss {
		for sh, text := range scripts {
			if !strings.Contains(text, s.name) {
				t.Errorf("%s: no command %s", sh, s.name)
			}
			for _, f := range s.flags {
				flag := "--" + f.name
				if sh == "fish" {
					flag = "-l " + f.name
				}
				if !strings.Contains(text, flag) {
					t.Errorf("%s: %s has no %s", sh, s.name, flag)
				}
			}
		}
		for _, f := range s.flags {
			if len(f.choices) > 0 {
				withChoices++
			}
			for _, c := range f.choices {
				if !strings.Contains(f.usage, c) {
					t.Errorf("%s --%s: the synopsis offers %q, the flag's help does not mention it: %q", s.name, f.name, c, f.usage)
				}
			}
		}
	}
	if withChoices < 3 {
		t.Errorf("only %d flags with listed values (ci, diff, servers --format at least)", withChoices)
	}
	if !strings.Contains(scripts["powershell"], "Register-ArgumentCompleter -Native -CommandName 'agentgate'") {
		t.Error("powershell: no native argument completer for agentgate")
	}
}

// TestCompletionUsage: no shell or an unknown one is invalid usage.
func TestCompletionUsage(t *testing.T) {
	r := newRepo(t, false, nil)
	for _, args := range [][]string{{"completion"}, {"completion", "tcsh"}, {"completion", "bash", "zsh"}} {
		_, stderr := r.mustRun(ExitInvalid, args...)
		if !strings.Contains(stderr, "want one shell: bash, zsh, fish, powershell") {
			t.Errorf("%q: stderr %q", args, stderr)
		}
	}
}

// zshComplete drives a real interactive zsh in a pseudo-terminal (zsh's
// zpty module): it loads compinit and the script, types line and TAB, and
// reads until want appears in what zsh prints (the test's timeout bounds
// a zsh that never prints it).
const zshComplete = `zmodload zsh/zpty
zpty z zsh -f -i
zpty -w z 'PS1="%% "; autoload -Uz compinit; compinit -u -d "$ZD"; source "$SCRIPT"; zstyle ":completion:*" menu no'
zpty -w -n z "$LINE"$'\t'
zpty -r z out "*$WANT*" && print -r -- "$out"
zpty -d z
`

// TestCompletionZshInteractive: in a real zsh, TAB after a prefix lists
// the matching commands, after --format the formats, after completion the
// shells.
func TestCompletionZshInteractive(t *testing.T) {
	zsh := needTool(t, "zsh")
	script := completionScript(t, "zsh")
	for _, tt := range []struct{ line, want string }{
		{"agentgate ver", "version"},
		{"agentgate diff --format ", "title"},
		{"agentgate completion ", "powershell"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		cmd := exec.CommandContext(ctx, zsh, "-f", "-c", zshComplete)
		cmd.Env = append(os.Environ(), "ZD="+filepath.Join(t.TempDir(), "zcompdump"), "SCRIPT="+script, "LINE="+tt.line, "WANT="+tt.want)
		out, err := cmd.CombinedOutput()
		cancel()
		if err != nil || !strings.Contains(string(out), tt.want) {
			t.Errorf("zsh: %q TAB: %v, want %q listed:\n%q", tt.line, err, tt.want, out)
		}
	}
}
