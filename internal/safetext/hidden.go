// Package safetext is agentgate's one list of the characters that can hide
// text from a person or rewrite a terminal: controls, bidi controls,
// zero-width and other invisible characters, Unicode tag characters,
// private-use characters and line or paragraph separators. The lockfile
// writer (lock.Format) writes each as a \u escape, the JSON reports
// (VisibleJSON) too, and the terminal (Visible) shows each
// as a visible escape (Visible, VisibleLine; Suspicious names the kinds a
// text holds), so the three never disagree.
//
// The list is fixed, not read from Go's Unicode tables, so that lockfile
// bytes do not change with the Go version; TestCoversUnicodeCf fails when
// a Go release adds format characters (category Cf), so the list is
// extended deliberately.
package safetext

// The kinds Kind returns.
const (
	ANSI       = "ANSI escape"
	Control    = "control character"
	Bidi       = "bidi control"
	ZeroWidth  = "zero-width character"
	Invisible  = "invisible character"
	Tags       = "Unicode tag characters"
	PrivateUse = "private-use character"
	Separator  = "line or paragraph separator"
)

// Kinds lists the kinds in the order warnings report them.
var Kinds = []string{ANSI, Control, Bidi, ZeroWidth, Invisible, Tags, PrivateUse, Separator}

// Kind classifies r: "" for a character shown as is (tab and newline
// included, which callers escape where one line is wanted), else one of
// the kinds above:
//
//   - ANSI: U+001B (ESC);
//   - Control: the other C0 controls, DEL and the C1 controls
//     (U+007F-U+009F);
//   - Bidi: U+061C, U+200E, U+200F, U+202A-U+202E, U+2066-U+2069;
//   - ZeroWidth: U+200B-U+200D, U+2060, U+FEFF;
//   - Separator: U+2028, U+2029;
//   - PrivateUse: U+E000-U+F8FF, U+F0000-U+FFFFD, U+100000-U+10FFFD;
//   - Tags: U+E0000-U+E007F;
//   - Invisible: every other format character (Unicode 15.0 category Cf:
//     U+00AD, U+0600-U+0605, U+06DD, U+070F, U+0890, U+0891, U+08E2,
//     U+180E, U+2061-U+2064, U+206A-U+206F, U+FFF9-U+FFFB, U+110BD,
//     U+110CD, U+13430-U+1343F, U+1BCA0-U+1BCA3, U+1D173-U+1D17A), and
//     the blank or joining characters U+034F, U+115F, U+1160, U+17B4,
//     U+17B5, U+180B-U+180F, U+2800, U+3164, U+FFA0, the variation
//     selectors U+FE00-U+FE0F and U+E0100-U+E01EF, and the noncharacters
//     U+FFFE, U+FFFF.
func Kind(r rune) string {
	switch {
	case r == '\n' || r == '\t':
		return ""
	case r >= 0x20 && r < 0x7f: // the common case
		return ""
	case r == 0x1b:
		return ANSI
	case r < 0x20 || (r >= 0x7f && r <= 0x9f):
		return Control
	case r < 0xad:
		return ""
	case r == 0x061C || r == 0x200E || r == 0x200F || (r >= 0x202A && r <= 0x202E) || (r >= 0x2066 && r <= 0x2069):
		return Bidi
	case (r >= 0x200B && r <= 0x200D) || r == 0x2060 || r == 0xFEFF:
		return ZeroWidth
	case r == 0x2028 || r == 0x2029:
		return Separator
	case (r >= 0xE000 && r <= 0xF8FF) || (r >= 0xF0000 && r <= 0xFFFFD) || (r >= 0x100000 && r <= 0x10FFFD):
		return PrivateUse
	case r >= 0xE0000 && r <= 0xE007F:
		return Tags
	case r == 0x00AD, r == 0x034F, r >= 0x0600 && r <= 0x0605, r == 0x06DD, r == 0x070F,
		r == 0x0890, r == 0x0891, r == 0x08E2, r == 0x115F, r == 0x1160, r == 0x17B4, r == 0x17B5,
		r >= 0x180B && r <= 0x180F, r >= 0x2061 && r <= 0x2064, r >= 0x206A && r <= 0x206F,
		r == 0x2800, r == 0x3164, r == 0xFFA0, r >= 0xFE00 && r <= 0xFE0F, r >= 0xFFF9 && r <= 0xFFFB,
		r == 0xFFFE, r == 0xFFFF, r == 0x110BD, r == 0x110CD, r >= 0x13430 && r <= 0x1343F,
		r >= 0x1BCA0 && r <= 0x1BCA3, r >= 0x1D173 && r <= 0x1D17A, r >= 0xE0100 && r <= 0xE01EF:
		return Invisible
	}
	return ""
}
