package safetext

import (
	"testing"
	"unicode"
)

// TestCoversUnicodeCf: every format character in Go's Unicode tables is
// on the list (fails when a Go release adds some: extend Kind's list and
// its doc comment, and the spec's list in docs/spec/lockfile.md).
func TestCoversUnicodeCf(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if unicode.Is(unicode.Cf, r) && Kind(r) == "" {
			t.Errorf("U+%04X is a format character (Unicode %s) that Kind does not list", r, unicode.Version)
		}
	}
}

// TestKinds pins one character of each kind, from the doc comment.
func TestKinds(t *testing.T) {
	for r, want := range map[rune]string{
		'a': "", '\n': "", '\t': "", ' ': "", 'é': "", '中': "", 0x1F600: "",
		0x1b: ANSI, 0x00: Control, 0x7f: Control, 0x9b: Control,
		0x202E: Bidi, 0x061C: Bidi, 0x2069: Bidi,
		0x200B: ZeroWidth, 0xFEFF: ZeroWidth, 0x2060: ZeroWidth,
		0x2028: Separator, 0x2029: Separator,
		0xE000: PrivateUse, 0x10FFFD: PrivateUse,
		0xE0000: Tags, 0xE0041: Tags, 0xE007F: Tags,
		0x00AD: Invisible, 0xFE0F: Invisible, 0xE0100: Invisible, 0x3164: Invisible, 0x13430: Invisible,
	} {
		if got := Kind(r); got != want {
			t.Errorf("Kind(U+%04X) = %q, want %q", r, got, want)
		}
	}
}

// TestHiddenSorted: Kind's binary search needs its ranges in order and
// disjoint, each with lo <= hi.
func TestHiddenSorted(t *testing.T) {
	for i, h := range hidden {
		if h.lo > h.hi || i > 0 && hidden[i-1].hi >= h.lo {
			t.Errorf("hidden[%d] = %X-%X: not after %X-%X", i, h.lo, h.hi, hidden[max(i-1, 0)].lo, hidden[max(i-1, 0)].hi)
		}
	}
}
