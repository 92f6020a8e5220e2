package cli

import (
	"bytes"
	"flag"
	"io"
	"regexp"
	"strings"
	"testing"
)

// TestUsageLinesListEveryFlag (issue #26 item 12): each command's Usage
// line (up to the first blank line of its help) names every flag it
// accepts, in the --flag style, and the flag list uses that style too.
func TestUsageLinesListEveryFlag(t *testing.T) {
	for _, c := range commands {
		if c.flags == nil {
			continue
		}
		fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		c.flags(fs)
		usage, _, _ := strings.Cut(c.usage, "\n\n")
		fs.VisitAll(func(f *flag.Flag) {
			if !regexp.MustCompile(`--` + regexp.QuoteMeta(f.Name) + `\b`).MatchString(usage) {
				t.Errorf("agentgate %s: the usage line lacks --%s:\n%s", c.name, f.Name, usage)
			}
		})
		var help bytes.Buffer
		printCommandHelp(&help, c, fs)
		_, list, _ := strings.Cut(help.String(), "\nFlags:\n")
		if m := regexp.MustCompile(`(?m)^  -[a-z]`).FindString(list); m != "" {
			t.Errorf("agentgate %s -h: a flag in the -flag style:\n%s", c.name, list)
		}
	}
}

// TestFlagErrorsInFlagStyle: the flag package's errors name flags as the
// help does (--flag), and an unknown flag is said so.
func TestFlagErrorsInFlagStyle(t *testing.T) {
	r := newRepo(t, false, nil)
	for args, want := range map[string]string{
		"diff --nope":      "agentgate diff: error: unknown flag --nope\n",
		"lock --timeout x": `agentgate lock: error: invalid value "x" for flag --timeout: parse error` + "\n",
		"lock --server":    "agentgate lock: error: flag needs an argument: --server\n",
		"ci -format":       "agentgate ci: error: flag needs an argument: --format\n",
	} {
		code, _, stderr := r.agentgate(strings.Fields(args)...)
		if code != ExitInvalid || !strings.HasPrefix(stderr, want) {
			t.Errorf("agentgate %s: exit %d, stderr %q, want it to start %q", args, code, stderr, want)
		}
	}
}

// TestFlagDefaultsHaveNumbers: the capture flags name the built-in
// defaults (60 s, 8), not "the built-in default".
func TestFlagDefaultsHaveNumbers(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	captureFlags(fs)
	if u := fs.Lookup("timeout").Usage; !strings.Contains(u, "else 60s") {
		t.Errorf("--timeout: %s", u)
	}
	if u := fs.Lookup("concurrency").Usage; !strings.Contains(u, "else 8") {
		t.Errorf("--concurrency: %s", u)
	}
}
