package render

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/internal/safetext"
)

// TestOneListOfHiddenCharacters: for every Unicode scalar value, the
// terminal (Visible, Suspicious) and the JSON reports (VisibleJSON) agree
// with internal/safetext's list, which the lockfile writer uses too (lock's
// TestFormatEscapesEveryHiddenCharacter).
func TestOneListOfHiddenCharacters(t *testing.T) {
	bad := 0
	for r := rune(0); r <= 0x10FFFF && bad < 10; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			continue
		}
		s := string(r)
		listed := safetext.Kind(r) != ""
		shown := safetext.VisibleLine(s) != s
		if shown != (listed || r == '\n' || r == '\t') {
			t.Errorf("U+%04X: VisibleLine escapes it: %v, on the list: %v", r, shown, listed)
			bad++
		}
		if flagged := safetext.Suspicious(s) != nil; flagged != listed {
			t.Errorf("U+%04X: Suspicious flags it: %v, on the list: %v", r, flagged, listed)
			bad++
		}
		b, _ := json.Marshal(s)
		if raw := strings.ContainsRune(string(safetext.VisibleJSON(b)), r); listed && raw {
			t.Errorf("U+%04X: on the list, raw in VisibleJSON", r)
			bad++
		}
	}
}

// TestNoWorkflowCommands: text shown through Visible cannot start a GitHub
// Actions workflow command line, nor hold a legacy one; VisibleJSON keeps
// the value and writes no "##[".
func TestNoWorkflowCommands(t *testing.T) {
	for in, want := range map[string]string{
		"::warning::x":                   `\x3a:warning::x`,
		"a\n  ::add-mask::secret\nb":     "a\n  \\x3a:add-mask::secret\nb",
		"a\n\u00a0\u3000::error::x":      "a\n\u00a0\u3000\\x3a:error::x",
		"mid :: line ::ok":               "mid :: line ::ok",
		"x ##[error]legacy":              `x ##\x5berror]legacy`,
		"a\n\t::warning::tab is escaped": "a\n\\t::warning::tab is escaped",
	} {
		if got := safetext.Visible(in); got != want {
			t.Errorf("Visible(%q) = %q, want %q", in, got, want)
		}
	}
	if got := safetext.VisibleLine("a\n::warning::x"); got != `a\n::warning::x` {
		t.Errorf("VisibleLine: %q (one line: :: is mid-line)", got)
	}
	b, _ := json.Marshal("##[error]x\n::warning::y")
	got := safetext.VisibleJSON(b)
	var back string
	if err := json.Unmarshal(got, &back); err != nil || back != "##[error]x\n::warning::y" || strings.Contains(string(got), "##[") {
		t.Errorf("VisibleJSON: %s (%q, %v)", got, back, err)
	}
}
