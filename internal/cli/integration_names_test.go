package cli

import (
	"strings"
	"testing"

	"github.com/agentgate/agentgate/internal/safetext"
)

// TestLockServerNamesVisible: server names come from the configs, so a
// name holding escape or bidi characters must not reach the terminal raw
// through lock's summary table or its failure line; it is shown as
// safetext.VisibleLine shows it.
func TestLockServerNamesVisible(t *testing.T) {
	good, bad := "a\x1b[31mb\u202ec", "d\x1b]0;title\x07\u2066e"
	r := newRepo(t, true, map[string]any{good: fakeServer("-tools", "notes.json"), bad: downServer()})
	code, stdout, stderr := r.agentgate("lock")
	if code != ExitUnverified {
		t.Fatalf("exit %d, want %d\n%s", code, ExitUnverified, stderr)
	}
	if w := "could not be captured: " + safetext.VisibleLine(bad) + "\n"; !strings.Contains(stderr, w) {
		t.Errorf("stderr lacks %q:\n%s", w, stderr)
	}
	r.writeConfig(map[string]any{good: fakeServer("-tools", "notes.json")})
	code, stdout2, stderr2 := r.agentgate("lock")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr2)
	}
	if w := "locked  " + safetext.VisibleLine(good) + "  2 tools"; !strings.Contains(stdout2, w) {
		t.Errorf("stdout lacks %q:\n%s", w, stdout2)
	}
	if all := stdout + stderr + stdout2 + stderr2; strings.ContainsAny(all, "\x1b\x07\u202e\u2066") {
		t.Errorf("output carries raw escape or bidi characters: %q", all)
	}
}

// TestServerNamesVisibleInDiffCIHook: the same for diff and ci (their
// could-not-verify lines and verdicts, ci's GitHub annotations) and for
// hook's one-line summary of a commit's surface change.
func TestServerNamesVisibleInDiffCIHook(t *testing.T) {
	good, bad := "a\x1b[31mb\u202ec", "d\x1b]0;title\x07\u2066e"
	raw := func(t *testing.T, what, out string) {
		t.Helper()
		if strings.ContainsAny(out, "\x1b\x07\u202e\u2066") {
			t.Errorf("%s carries raw escape or bidi characters: %q", what, out)
		}
	}
	r := lockedRepo(t, map[string]any{good: fakeServer("-tools", "notes.json")})
	r.writeConfig(map[string]any{good: fakeServer("-tools", "notes.json"), bad: downServer()})
	r.commitAll()
	stdout, stderr := r.mustRun(ExitUnverified, "diff")
	if w := "could not verify 1 of 2 servers: " + safetext.VisibleLine(bad) + "\n"; !strings.Contains(stdout, w) {
		t.Errorf("diff stdout lacks %q:\n%s", w, stdout)
	}
	raw(t, "diff", stdout+stderr)
	r.env["GITHUB_ACTIONS"] = "true"
	stdout, stderr = r.mustRun(ExitUnverified, "ci")
	if w := "title=agentgate%3A could not verify server " + safetext.VisibleLine(bad) + "::"; !strings.Contains(stdout, w) {
		t.Errorf("ci stdout lacks %q:\n%s", w, stdout)
	}
	raw(t, "ci", stdout+stderr)

	h := newRepo(t, true, nil)
	h.commitAll()
	h.writeConfig(map[string]any{good: fakeServer("-tools", "notes.json")})
	h.mustRun(ExitOK, "lock")
	h.git("add", "-A")
	stdout, stderr = h.mustRun(ExitOK, "hook")
	if w := "this commit: " + safetext.VisibleLine(good) + " added (2 tools)\n"; !strings.Contains(stdout, w) {
		t.Errorf("hook stdout lacks %q:\n%s", w, stdout)
	}
	raw(t, "hook", stdout+stderr)
}
