package gitint

import (
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/internal/testing/testenv"
)

// TestResolveRevisionAgainstGit resolves each revision with gitint and with
// git rev-parse, on a history with a merge, lightweight and annotated tags,
// a packed branch and a symbolic reference: both must name the same commit,
// or both must fail.
func TestResolveRevisionAgainstGit(t *testing.T) {
	dir := newRepo(t)
	write(t, dir, "f", "1\n")
	commitAll(t, dir, "first: base")
	run(t, dir, "tag", "light")
	run(t, dir, "checkout", "-q", "-b", "side")
	write(t, dir, "s", "side\n")
	commitAll(t, dir, "side work")
	run(t, dir, "checkout", "-q", "main")
	write(t, dir, "f", "2\n")
	commitAll(t, dir, "second: fix nasty bug")
	run(t, dir, "merge", "-q", "--no-ff", "-m", "merge side", "side")
	run(t, dir, "tag", "-a", "-m", "annotated", "v2")
	run(t, dir, "branch", "packed", "HEAD~1")
	run(t, dir, "pack-refs", "--all")
	run(t, dir, "symbolic-ref", "refs/heads/alias", "refs/heads/side")
	write(t, dir, "f", "3\n")
	head := commitAll(t, dir, "third")

	r := mustOpen(t, dir)
	revs := []string{
		"HEAD", "main", "refs/heads/main", "heads/main", "side", "packed", "alias",
		"light", "v2", "tags/v2", "refs/tags/light",
		"HEAD~", "HEAD~1", "HEAD~2", "HEAD~3", "HEAD^", "HEAD^1", "HEAD~1^2", "HEAD~1^2~1",
		"HEAD^0", "HEAD~^", "v2^2", "v2~2", "main~1^1",
		"HEAD^{commit}", "v2^{commit}", "HEAD^{/nasty}", "HEAD^{/^side}", "HEAD^{/!-third}",
		head, head[:4], head[:7], head[:13], strings.ToUpper(head[:10]),
		// errors, for both
		"nope", "HEAD~9", "HEAD^3", "light^2", "deadbeef", "HEAD^{/no such message}",
		"main..side", "a b",
	}
	for _, rev := range revs {
		cmd := exec.Command("git", "rev-parse", "--verify", "--quiet", rev+"^{commit}")
		cmd.Dir = dir
		cmd.Env = testenv.GitEnv()
		out, gitErr := cmd.Output()
		want := strings.TrimSpace(string(out))
		got, err := r.resolveRevision(rev)
		switch {
		case gitErr != nil && err == nil:
			t.Errorf("resolveRevision(%q) = %s; git rev-parse fails", rev, got)
		case gitErr == nil && err != nil:
			t.Errorf("resolveRevision(%q): %v; git rev-parse says %s", rev, err, want)
		case gitErr == nil && got.String() != want:
			t.Errorf("resolveRevision(%q) = %s; git rev-parse says %s", rev, got, want)
		}
	}
}

// TestResolveRevisionRefused pins the forms gitint refuses instead of
// guessing (go-git ignored these suffixes and resolved the base).
func TestResolveRevisionRefused(t *testing.T) {
	dir := newRepo(t)
	write(t, dir, "f", "1\n")
	commitAll(t, dir, "one")
	r := mustOpen(t, dir)
	for rev, want := range map[string]string{
		"main@{upstream}": "@{...}",
		"HEAD@{1}":        "@{...}",
		"HEAD^{tree}":     "^{tree} is not supported",
		"HEAD~1x":         `unsupported revision syntax at "x"`,
		"HEAD^{commit":    "unterminated",
		"":                "empty revision",
	} {
		if _, err := r.resolveRevision(rev); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("resolveRevision(%q): err = %v, want one containing %q", rev, err, want)
		}
	}
}

// TestFileAtUnsupportedRevision: a git revision form go-git does not read
// is an error saying so, with a hint naming the forms that work and git
// rev-parse, not "unknown revision" with a hint to fetch; a name that
// does not exist stays "unknown revision".
func TestFileAtUnsupportedRevision(t *testing.T) {
	dir := newRepo(t)
	write(t, dir, "f", "1\n")
	commitAll(t, dir, "one")
	write(t, dir, "f", "2\n")
	commitAll(t, dir, "two")
	r := mustOpen(t, dir)
	for _, rev := range []string{"HEAD@{1}", "main@{upstream}", "@{-1}", "HEAD^{tree}", "HEAD~1x", "HEAD:f", "HEAD~1..HEAD", "HEAD...main"} {
		_, _, err := r.FileAt(rev, "f")
		var h interface{ Hints() []string }
		if err == nil || !errors.Is(err, errUnsupportedRevision) || !strings.Contains(err.Error(), "not a revision form agentgate reads") ||
			strings.Contains(err.Error(), "unknown revision") || !errors.As(err, &h) || !strings.Contains(strings.Join(h.Hints(), "\n"), "git rev-parse") {
			t.Errorf("FileAt(%q): %v (hint %v), want the unsupported-form error and a git rev-parse hint", rev, err, h)
		}
	}
	for _, rev := range []string{"nope", "HEAD~5", "a b"} {
		_, _, err := r.FileAt(rev, "f")
		if err == nil || errors.Is(err, errUnsupportedRevision) || !strings.Contains(err.Error(), "unknown revision") {
			t.Errorf("FileAt(%q): %v, want unknown revision", rev, err)
		}
	}
}
