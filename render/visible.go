package render

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Visible returns s with every character that could hide text or rewrite a
// terminal shown as a visible escape, so that a reviewer sees exactly what
// an agent would read:
//
//   - ASCII controls except newline: \t, \r, and \xHH (ESC is \x1b, which
//     leaves an ANSI sequence inert and readable, e.g. \x1b[2J); DEL is \x7f;
//   - bytes that are not valid UTF-8: \xHH;
//   - C1 controls, bidi controls, zero-width and other invisible or
//     format characters, variation selectors, Hangul fillers, line and
//     paragraph separators and private-use characters: <U+XXXX NAME>
//     (<U+XXXX> when the name is not in this package's table);
//   - a run of Unicode tag characters (U+E0000-U+E007F), which smuggles
//     ASCII past a human: ⟦tags:"TEXT"⟧ with the ASCII the tags spell (and
//     <U+XXXX> for tags that do not map to printable ASCII).
//
// Newlines are kept, so multi-line descriptions stay readable; the caller
// indents continuation lines. Backslashes are not escaped: in Visible output
// "\x1b" may come from either the escape or the four literal characters, and
// Suspicious tells them apart. Everything else, including non-Latin scripts,
// emoji and ordinary spaces, is unchanged.
func Visible(s string) string { return visible(s, false) }

// VisibleLine is Visible for single-line contexts: newline is shown as \n.
func VisibleLine(s string) string { return visible(s, true) }

func visible(s string, oneLine bool) string {
	if isPlain(s, oneLine) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n' && !oneLine:
			b.WriteByte('\n')
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case isTag(r):
			j := i
			b.WriteString(`⟦tags:"`)
			for j < len(s) {
				r, n := utf8.DecodeRuneInString(s[j:])
				if !isTag(r) {
					break
				}
				switch a := r - 0xE0000; {
				case a == '"' || a == '\\':
					b.WriteByte('\\')
					b.WriteByte(byte(a))
				case a >= 0x20 && a < 0x7f:
					b.WriteByte(byte(a))
				default:
					writeCodePoint(&b, r)
				}
				j += n
			}
			b.WriteString(`"⟧`)
			i = j
			continue
		case kindOf(r) != "":
			writeCodePoint(&b, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// isPlain reports whether visible would return s unchanged (the common case,
// checked without allocating).
func isPlain(s string, oneLine bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 {
			for _, r := range s[i:] {
				if r == utf8.RuneError || (r < 0x80 && !plainASCII(byte(r), oneLine)) || kindOf(r) != "" || isTag(r) {
					return false
				}
			}
			return utf8.ValidString(s[i:])
		}
		if !plainASCII(c, oneLine) {
			return false
		}
	}
	return true
}

func plainASCII(c byte, oneLine bool) bool {
	return (c >= 0x20 && c < 0x7f) || (c == '\n' && !oneLine)
}

func writeCodePoint(b *strings.Builder, r rune) {
	if name, ok := runeNames[r]; ok {
		fmt.Fprintf(b, "<U+%04X %s>", r, name)
		return
	}
	fmt.Fprintf(b, "<U+%04X>", r)
}

func isTag(r rune) bool { return r >= 0xE0000 && r <= 0xE007F }

// The kinds Suspicious reports, in the order it reports them.
const (
	KindANSI       = "ANSI escape"
	KindControl    = "control character"
	KindBidi       = "bidi control"
	KindZeroWidth  = "zero-width character"
	KindInvisible  = "invisible character"
	KindTags       = "Unicode tag characters"
	KindPrivateUse = "private-use character"
	KindSeparator  = "line or paragraph separator"
	KindInvalid    = "invalid UTF-8"
)

var kindOrder = []string{KindANSI, KindControl, KindBidi, KindZeroWidth, KindInvisible, KindTags, KindPrivateUse, KindSeparator, KindInvalid}

// Suspicious lists the kinds (the Kind constants, in that order) of hidden
// or direction-changing characters s contains, for warnings; nil if none.
// Newline and tab are not suspicious; every other character Visible
// escapes is.
func Suspicious(s string) []string {
	found := map[string]bool{}
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			found[KindInvalid] = true
		case isTag(r):
			found[KindTags] = true
		default:
			if k := kindOf(r); k != "" {
				found[k] = true
			}
		}
		i += n
	}
	var out []string
	for _, k := range kindOrder {
		if found[k] {
			out = append(out, k)
		}
	}
	return out
}

// kindOf classifies one valid rune; "" for a character shown as is.
// Tab and newline are "" here and escaped by the caller as needed.
func kindOf(r rune) string {
	switch {
	case r == '\n' || r == '\t':
		return ""
	case r == 0x1b:
		return KindANSI
	case r < 0x20 || (r >= 0x7f && r <= 0x9f):
		return KindControl
	case r == 0x061C || r == 0x200E || r == 0x200F || (r >= 0x202A && r <= 0x202E) || (r >= 0x2066 && r <= 0x2069):
		return KindBidi
	case (r >= 0x200B && r <= 0x200D) || r == 0x2060 || r == 0xFEFF:
		return KindZeroWidth
	case r == 0x2028 || r == 0x2029:
		return KindSeparator
	case (r >= 0xE000 && r <= 0xF8FF) || (r >= 0xF0000 && r <= 0xFFFFD) || (r >= 0x100000 && r <= 0x10FFFD):
		return KindPrivateUse
	case isTag(r):
		return KindTags
	case r == 0x00AD, r == 0x034F, r == 0x115F, r == 0x1160, r == 0x17B4, r == 0x17B5,
		r >= 0x180B && r <= 0x180F, r >= 0x2061 && r <= 0x2064, r >= 0x206A && r <= 0x206F,
		r == 0x3164, r == 0xFFA0, r >= 0xFE00 && r <= 0xFE0F, r >= 0xE0100 && r <= 0xE01EF,
		r >= 0xFFF9 && r <= 0xFFFB, r >= 0x1D173 && r <= 0x1D17A, r == 0x2800,
		r == 0xFFFE, r == 0xFFFF,
		unicode.Is(unicode.Cf, r):
		return KindInvisible
	}
	return ""
}

var runeNames = map[rune]string{
	0x0085: "NEXT LINE",
	0x009B: "CONTROL SEQUENCE INTRODUCER",
	0x00AD: "SOFT HYPHEN",
	0x034F: "COMBINING GRAPHEME JOINER",
	0x061C: "ARABIC LETTER MARK",
	0x115F: "HANGUL CHOSEONG FILLER",
	0x1160: "HANGUL JUNGSEONG FILLER",
	0x180E: "MONGOLIAN VOWEL SEPARATOR",
	0x200B: "ZERO WIDTH SPACE",
	0x200C: "ZERO WIDTH NON-JOINER",
	0x200D: "ZERO WIDTH JOINER",
	0x200E: "LEFT-TO-RIGHT MARK",
	0x200F: "RIGHT-TO-LEFT MARK",
	0x2028: "LINE SEPARATOR",
	0x2029: "PARAGRAPH SEPARATOR",
	0x202A: "LEFT-TO-RIGHT EMBEDDING",
	0x202B: "RIGHT-TO-LEFT EMBEDDING",
	0x202C: "POP DIRECTIONAL FORMATTING",
	0x202D: "LEFT-TO-RIGHT OVERRIDE",
	0x202E: "RIGHT-TO-LEFT OVERRIDE",
	0x2060: "WORD JOINER",
	0x2061: "FUNCTION APPLICATION",
	0x2062: "INVISIBLE TIMES",
	0x2063: "INVISIBLE SEPARATOR",
	0x2064: "INVISIBLE PLUS",
	0x2066: "LEFT-TO-RIGHT ISOLATE",
	0x2067: "RIGHT-TO-LEFT ISOLATE",
	0x2068: "FIRST STRONG ISOLATE",
	0x2069: "POP DIRECTIONAL ISOLATE",
	0x2800: "BRAILLE PATTERN BLANK",
	0x3164: "HANGUL FILLER",
	0xFE0E: "VARIATION SELECTOR-15",
	0xFE0F: "VARIATION SELECTOR-16",
	0xFEFF: "ZERO WIDTH NO-BREAK SPACE",
	0xFFA0: "HALFWIDTH HANGUL FILLER",
}
