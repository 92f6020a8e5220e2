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

import "sort"

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
	case r < hidden[0].lo:
		return ""
	}
	// The first range that does not end below r.
	if i := sort.Search(len(hidden), func(i int) bool { return hidden[i].hi >= r }); i < len(hidden) && hidden[i].lo <= r {
		return hidden[i].kind
	}
	return ""
}

// hidden is Kind's list above U+009F: disjoint ranges in order, lo to hi
// inclusive (TestHiddenSorted).
var hidden = []hiddenRange{
	{0x00AD, 0x00AD, Invisible},
	{0x034F, 0x034F, Invisible},
	{0x0600, 0x0605, Invisible},
	{0x061C, 0x061C, Bidi},
	{0x06DD, 0x06DD, Invisible},
	{0x070F, 0x070F, Invisible},
	{0x0890, 0x0891, Invisible},
	{0x08E2, 0x08E2, Invisible},
	{0x115F, 0x1160, Invisible},
	{0x17B4, 0x17B5, Invisible},
	{0x180B, 0x180F, Invisible},
	{0x200B, 0x200D, ZeroWidth},
	{0x200E, 0x200F, Bidi},
	{0x2028, 0x2029, Separator},
	{0x202A, 0x202E, Bidi},
	{0x2060, 0x2060, ZeroWidth},
	{0x2061, 0x2064, Invisible},
	{0x2066, 0x2069, Bidi},
	{0x206A, 0x206F, Invisible},
	{0x2800, 0x2800, Invisible},
	{0x3164, 0x3164, Invisible},
	{0xE000, 0xF8FF, PrivateUse},
	{0xFE00, 0xFE0F, Invisible},
	{0xFEFF, 0xFEFF, ZeroWidth},
	{0xFFA0, 0xFFA0, Invisible},
	{0xFFF9, 0xFFFB, Invisible},
	{0xFFFE, 0xFFFF, Invisible},
	{0x110BD, 0x110BD, Invisible},
	{0x110CD, 0x110CD, Invisible},
	{0x13430, 0x1343F, Invisible},
	{0x1BCA0, 0x1BCA3, Invisible},
	{0x1D173, 0x1D17A, Invisible},
	{0xE0000, 0xE007F, Tags},
	{0xE0100, 0xE01EF, Invisible},
	{0xF0000, 0xFFFFD, PrivateUse},
	{0x100000, 0x10FFFD, PrivateUse},
}

type hiddenRange struct {
	lo, hi rune
	kind   string
}
