package cli

import (
	"fmt"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// escapeInvisibleJSON rewrites, in a JSON text from encoding/json, every
// format character (Unicode category Cf: bidi controls, zero-width
// characters, BOM), Unicode tag character and line or paragraph separator
// as a \uXXXX escape (a surrogate pair above U+FFFF). The JSON value is
// the same, so tool names stay exact for a program, but a person reading
// the report in a CI log sees no hidden or reordered text. encoding/json
// already escapes control characters, and emits these characters only
// inside strings, so the result is valid JSON.
func escapeInvisibleJSON(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r == 0x2028 || r == 0x2029 || (r >= 0xE0000 && r <= 0xE007F) || (r != utf8.RuneError && unicode.Is(unicode.Cf, r)) {
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
