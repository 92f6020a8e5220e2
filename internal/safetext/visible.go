package safetext

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf16"
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
//     paragraph separators and private-use characters (safetext's
//     list, the one the lockfile writer and the JSON reports use):
//     <U+XXXX NAME> (<U+XXXX> when the name is not in this package's table);
//   - a run of Unicode tag characters (U+E0000-U+E007F), which smuggles
//     ASCII past a human: ⟦tags:"TEXT"⟧ with the ASCII the tags spell (and
//     <U+XXXX> for tags that do not map to printable ASCII).
//
// Text cannot start a GitHub Actions workflow command: "::" at the start
// of a line (after white space, which the runner skips) is shown as
// \x3a:, and "##[" anywhere as ##\x5b.
//
// Newlines are kept, so multi-line descriptions stay readable; the caller
// indents continuation lines. Backslashes are not escaped: in Visible output
// "\x1b" may come from either the escape or the four literal characters, and
// Suspicious tells them apart. Everything else, including non-Latin scripts,
// emoji and ordinary spaces, is unchanged.
func Visible(s string) string { return visible(s, false) }

// VisibleLine is Visible for single-line contexts: newline is shown as \n.
func VisibleLine(s string) string { return visible(s, true) }

// Quote is s as VisibleLine shows it, cut after 400 bytes (at a character
// boundary, marked "...") and in double quotes: a name or text from a
// config or a server, quoted in a message.
func Quote(s string) string {
	v := VisibleLine(s)
	const max = 400
	if len(v) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(v[cut]) {
			cut--
		}
		v = v[:cut] + "..."
	}
	return `"` + v + `"`
}

func visible(s string, oneLine bool) string {
	if isPlain(s, oneLine) {
		return s
	}
	var b strings.Builder
	lineStart := true // only white space since the start of a line
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if lineStart && strings.HasPrefix(s[i:], "::") {
			b.WriteString(`\x3a`) // not a GitHub Actions workflow command
			i++
			lineStart = false
			continue
		}
		if strings.HasPrefix(s[i:], "##[") {
			b.WriteString(`##\x5b`) // nor a legacy one
			i += 3
			lineStart = false
			continue
		}
		lineStart = lineStart && r != '\t' && unicode.IsSpace(r) && kindOf(r) == ""
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n' && !oneLine:
			b.WriteByte('\n')
			lineStart = true
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case isTag(r):
			i = writeTagRun(&b, s, i)
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
	if strings.Contains(s, "##[") || strings.Contains(s, "::") && commandAtLineStart(s) {
		return false
	}
	return isPlainRunes(s, oneLine)
}

// commandAtLineStart reports whether a line of s starts, after white
// space, with "::".
func commandAtLineStart(s string) bool {
	for line := range strings.SplitSeq(s, "\n") {
		if strings.HasPrefix(strings.TrimLeftFunc(line, unicode.IsSpace), "::") {
			return true
		}
	}
	return false
}

func isPlainRunes(s string, oneLine bool) bool {
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

// writeTagRun writes the run of tag characters starting at s[i] as
// ⟦tags:"TEXT"⟧ (Visible) and returns the index after it.
func writeTagRun(b *strings.Builder, s string, i int) int {
	b.WriteString(`⟦tags:"`)
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
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
			writeCodePoint(b, r)
		}
		i += n
	}
	b.WriteString(`"⟧`)
	return i
}

func writeCodePoint(b *strings.Builder, r rune) {
	if name, ok := runeNames[r]; ok {
		fmt.Fprintf(b, "<U+%04X %s>", r, name)
		return
	}
	fmt.Fprintf(b, "<U+%04X>", r)
}

func isTag(r rune) bool { return Kind(r) == Tags }

// The kinds Suspicious reports (safetext's list, which the
// lockfile writer and the JSON reports use too).
const (
	KindANSI       = ANSI
	KindControl    = Control
	KindBidi       = Bidi
	KindZeroWidth  = ZeroWidth
	KindInvisible  = Invisible
	KindTags       = Tags
	KindPrivateUse = PrivateUse
	KindSeparator  = Separator
	KindInvalid    = "invalid UTF-8"
)

var kindOrder = append(slices.Clone(Kinds), KindInvalid)

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

// kindOf classifies one valid rune (Kind); "" for a character
// shown as is. Tab and newline are "" here and escaped by the caller as
// needed.
func kindOf(r rune) string { return Kind(r) }

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

// VisibleJSON rewrites, in a JSON text from encoding/json, every character
// the hidden list names that encoding/json leaves raw (DEL, C1 controls,
// bidi, zero-width, invisible, tag, private-use and separator characters)
// as a \uXXXX escape (a surrogate pair above U+FFFF). The JSON value is
// the same, so tool names stay exact for a program, but a person reading
// the report in a CI log sees no hidden or reordered text; "##[" is
// written "##\u005b", so that no line is a GitHub Actions legacy workflow
// command (an indented JSON line never starts with "::"). encoding/json
// escapes the other control characters itself, and emits these
// characters only inside strings, so the result is valid JSON.
func VisibleJSON(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for len(b) > 0 {
		if bytes.HasPrefix(b, []byte("##[")) {
			out = append(out, `##\u005b`...) // not a legacy workflow command
			b = b[3:]
			continue
		}
		r, n := utf8.DecodeRune(b)
		if r >= 0x7f && r != utf8.RuneError && Kind(r) != "" {
			if r > 0xFFFF {
				hi, lo := utf16.EncodeRune(r)
				out = fmt.Appendf(out, `\u%04x\u%04x`, hi, lo)
			} else {
				out = fmt.Appendf(out, `\u%04x`, r)
			}
		} else {
			out = append(out, b[:n]...)
		}
		b = b[n:]
	}
	return out
}
