package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/agentgate/agentgate/internal/testing/testenv"
)

// TestManPages writes the pages with `agentgate man DIR`, renders every
// one with groff (warnings are errors) and checks what a reader finds:
// each command's page has its synopsis, every flag, its exit codes and
// examples; agentgate.1 lists every command.
func TestManPages(t *testing.T) {
	groff := needTool(t, "groff")
	r := newRepo(t, false, nil)
	r.mustRun(ExitOK, "man", "pages")
	dir := filepath.Join(r.dir, "pages")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	ss := specs()
	want := []string{"agentgate.1", "git-agentgate.1"}
	for _, s := range ss {
		want = append(want, "agentgate-"+s.name+".1")
	}
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Fatalf("pages %q, want %q", names, want)
	}
	render := func(name string) string {
		t.Helper()
		// -P-cbou: plain text, no bold or underline.
		cmd := exec.Command(groff, "-man", "-Tutf8", "-P-cbou", "-ww", "-rLL=200n", filepath.Join(dir, name))
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil || stderr.Len() > 0 {
			t.Fatalf("groff %s: %v\n%s", name, err, stderr.String())
		}
		return string(out)
	}
	main := render("agentgate.1")
	for _, s := range ss {
		if !strings.Contains(main, "agentgate-"+s.name+"(1)") {
			t.Errorf("agentgate.1 does not point at agentgate-%s(1)", s.name)
		}
		page := render("agentgate-" + s.name + ".1")
		for _, sec := range []string{"NAME", "SYNOPSIS", "DESCRIPTION", "SEE ALSO"} {
			if !strings.Contains(page, "\n"+sec+"\n") {
				t.Errorf("agentgate-%s.1: no %s section", s.name, sec)
			}
		}
		if !strings.Contains(page, s.synopsis[0]) {
			t.Errorf("agentgate-%s.1: synopsis %q not shown as written", s.name, s.synopsis[0])
		}
		for _, f := range s.flags {
			if !strings.Contains(page, "--"+f.name) {
				t.Errorf("agentgate-%s.1: no --%s", s.name, f.name)
			}
		}
		if _, ok := s.section("Exit codes:"); ok && !strings.Contains(page, "\nEXIT STATUS\n") {
			t.Errorf("agentgate-%s.1: its help has exit codes, the page no EXIT STATUS", s.name)
		}
		if ex, ok := s.section("Examples:"); ok {
			if !strings.Contains(page, strings.TrimSpace(ex[0])) {
				t.Errorf("agentgate-%s.1: example %q missing", s.name, ex[0])
			}
		}
	}
	if git := render("git-agentgate.1"); !strings.Contains(git, "git agentgate command [flags]") {
		t.Errorf("git-agentgate.1 synopsis:\n%s", git)
	}
}

// TestGitHelpOpensManPage: once git-agentgate.1 is on MANPATH, `git
// agentgate --help` (git help agentgate) shows it, through the real man.
func TestGitHelpOpensManPage(t *testing.T) {
	needTool(t, "man")
	r := newRepo(t, false, nil)
	r.mustRun(ExitOK, "man", "share/man1")
	cmd := exec.Command("git", "agentgate", "--help")
	cmd.Dir = r.dir
	cmd.Env = append(os.Environ(), "MANPATH="+filepath.Join(r.dir, "share"), "MANPAGER=cat", "PAGER=cat", "MANWIDTH=100", "GIT_PAGER=cat")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git agentgate --help: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "GIT-AGENTGATE(1)") || !strings.Contains(string(out), "git agentgate command") {
		t.Errorf("git agentgate --help did not show git-agentgate(1):\n%s", out)
	}
}

// TestRoffEscapes: text that would be a roff request or escape stays text.
func TestRoffEscapes(t *testing.T) {
	for in, want := range map[string]string{
		`.TH evil`:      `\&.TH evil`,
		`'br`:           `\&'br`,
		`a\fBb`:         `a\efBb`,
		`--flag`:        `\-\-flag`,
		`plain text 1.`: `plain text 1.`,
	} {
		if got := roff(in); got != want {
			t.Errorf("roff(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestManUsage: no directory is invalid usage.
func TestManUsage(t *testing.T) {
	r := newRepo(t, false, nil)
	if _, stderr := r.mustRun(ExitInvalid, "man"); !strings.Contains(stderr, "want one directory") {
		t.Errorf("stderr %q", stderr)
	}
}

// TestGoReleaserManPages: the Homebrew cask in .goreleaser.yaml installs
// every page agentgate man writes, no more (a cask lists its pages).
func TestGoReleaserManPages(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		HomebrewCasks []struct {
			Manpages []string `yaml:"manpages"`
		} `yaml:"homebrew_casks"`
	}
	if err := yaml.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	if len(cfg.HomebrewCasks) != 1 {
		t.Fatalf("%d homebrew_casks", len(cfg.HomebrewCasks))
	}
	var want []string
	for name := range manPages(specs(), "v0") {
		want = append(want, "man/"+name+".gz")
	}
	slices.Sort(want)
	got := slices.Sorted(slices.Values(cfg.HomebrewCasks[0].Manpages))
	if !slices.Equal(got, want) {
		t.Errorf("the cask's manpages:\n%q\nagentgate man writes:\n%q", got, want)
	}
}
