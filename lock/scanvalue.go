package lock

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// scalar reads the string, number, true, false or null at in[i] and
// returns the offset after it, or -1 after an error.
func (f *scanner) scalar(i int) int {
	in := f.in
	switch c := in[i]; {
	case c == '"':
		end, _ := f.str(i)
		return end
	case c == '-' || ('0' <= c && c <= '9'):
		return f.number(i)
	case c == 't':
		return f.literal(i, "true")
	case c == 'f':
		return f.literal(i, "false")
	case c == 'n':
		return f.literal(i, "null")
	}
	return f.unexpected(i, "a value")
}

func (f *scanner) literal(i int, lit string) int {
	if !bytes.HasPrefix(f.in[i:], []byte(lit)) {
		return f.unexpected(i, "a value")
	}
	return i + len(lit)
}

// number reads a number. The fast subset is -?(0|[1-9][0-9]{0,14}) not
// followed by a fraction or an exponent, and not -0: ECMAScript prints
// those exactly as written. Any other number must match RFC 8259's grammar
// and be a finite double; it counts in slow.
func (f *scanner) number(i int) int {
	in := f.in
	start := i
	if in[i] == '-' {
		i++
	}
	digits := i
	for i < len(in) && '0' <= in[i] && in[i] <= '9' {
		i++
	}
	n := i - digits
	if n == 0 || n > 15 || in[digits] == '0' && (n > 1 || digits > start) ||
		i < len(in) && (in[i] == '.' || in[i] == 'e' || in[i] == 'E') {
		return f.slowNumber(start)
	}
	return i
}

// slowNumber reads the number at in[start] that is not in the fast subset.
func (f *scanner) slowNumber(start int) int {
	in := f.in
	i := start
	if in[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(in) && '0' <= in[i] && in[i] <= '9' {
			i++
			n++
		}
		return n
	}
	intStart := i
	if n := digits(); n == 0 || (n > 1 && in[intStart] == '0') {
		return f.fail(start, "invalid JSON: invalid number")
	}
	if i < len(in) && in[i] == '.' {
		i++
		if digits() == 0 {
			return f.fail(start, "invalid JSON: invalid number")
		}
	}
	if i < len(in) && (in[i] == 'e' || in[i] == 'E') {
		i++
		if i < len(in) && (in[i] == '+' || in[i] == '-') {
			i++
		}
		if digits() == 0 {
			return f.fail(start, "invalid JSON: invalid number")
		}
	}
	if _, err := strconv.ParseFloat(string(in[start:i]), 64); err != nil {
		return f.fail(start, "invalid JSON: number %s is not a finite double", clip(string(in[start:i])))
	}
	f.slow++
	return i
}

// String scan results, besides the end offset.
const (
	strEscape   = 1 << iota // holds an escape RFC 8785 writes
	strNonASCII             // holds bytes at or above 0x80 (valid UTF-8)
	strSlow                 // holds another escape (\/, \uXXXX): counted in slow
)

// str reads the string that starts with the quote at in[i] and returns the
// offset after its closing quote and what it holds, or -1 after an error.
func (f *scanner) str(i int) (end int, flags uint8) {
	if end, flags = scanStr(f.in, i); end < 0 {
		return f.slowStr(i)
	}
	return end, flags
}

// scanStr is str for a string in the fast subset, and otherwise returns -1:
// it has no error path, so that its loop stays tight.
func scanStr(in []byte, i int) (end int, flags uint8) {
	start := i
	i++ // opening quote
	for {
		if i+8 <= len(in) {
			q, m := specials8(binary.LittleEndian.Uint64(in[i:]))
			if m == 0 {
				i += 8
				continue
			}
			if q&(m&-m) != 0 { // the first special byte is the closing quote
				i += bits.TrailingZeros64(m)>>3 + 1
				if flags&strNonASCII != 0 && !utf8.Valid(in[start+1:i-1]) {
					return -1, 0
				}
				return i, flags
			}
			i += bits.TrailingZeros64(m) >> 3
		} else {
			for i < len(in) && plainByte[in[i]] {
				i++
			}
			if i >= len(in) {
				return -1, 0
			}
		}
		switch c := in[i]; {
		case c == '"':
			i++
			if flags&strNonASCII != 0 && !utf8.Valid(in[start+1:i-1]) {
				return -1, 0
			}
			return i, flags
		case c == '\\':
			if i+1 >= len(in) {
				return -1, 0
			}
			switch in[i+1] {
			case '"', '\\', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if !canonicalUEscape(in[i:]) {
					return -1, 0
				}
				i += 6
			default: // \/ and anything invalid
				return -1, 0
			}
			flags |= strEscape
		case c >= 0x80:
			flags |= strNonASCII
			i++
		default: // raw control character: invalid JSON
			return -1, 0
		}
	}
}

// slowStr is str for a string outside the fast subset: it accepts every
// escape JSON allows (counted in slow) and reports every error.
func (f *scanner) slowStr(start int) (end int, flags uint8) {
	in := f.in
	for i := start + 1; ; {
		if i >= len(in) {
			return f.fail(i, "invalid JSON: unterminated string"), 0
		}
		switch c := in[i]; {
		case c == '"':
			i++
			if flags&strNonASCII != 0 && !utf8.Valid(in[start+1:i-1]) {
				return f.badUTF8(start+1, i-1), 0
			}
			return i, flags
		case c == '\\':
			if i+1 < len(in) {
				switch in[i+1] {
				case '"', '\\', 'b', 'f', 'n', 'r', 't':
					flags |= strEscape
					i += 2
					continue
				case 'u':
					if canonicalUEscape(in[i:]) {
						flags |= strEscape
						i += 6
						continue
					}
				}
			}
			if i = f.escape(i); i < 0 {
				return -1, 0
			}
			flags |= strSlow
			f.slow++
		case c >= 0x80:
			flags |= strNonASCII
			i++
		case c < 0x20:
			return f.fail(i, "invalid JSON: control character %s in a string must be escaped", describeByte(c)), 0
		default:
			i++
		}
	}
}

// badUTF8 fails on the first byte of in[i:end] that is not valid UTF-8.
func (f *scanner) badUTF8(i, end int) int {
	for i < end {
		r, n := utf8.DecodeRune(f.in[i:end])
		if r == utf8.RuneError && n <= 1 {
			break
		}
		i += n
	}
	return f.fail(i, "invalid JSON: invalid UTF-8 (byte 0x%02x) in a string", f.in[i])
}

// escape checks the escape sequence at in[i], a backslash, that RFC 8785
// does not write, and returns the offset after it, or -1 after an error.
func (f *scanner) escape(i int) int {
	in := f.in
	if i+1 >= len(in) {
		return f.fail(i, "invalid JSON: unterminated string")
	}
	switch in[i+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return i + 2
	case 'u':
		r, ok := hex4(in[i+2:])
		if !ok {
			return f.fail(i, "invalid JSON: invalid \\u escape")
		}
		if !utf16.IsSurrogate(r) {
			return i + 6
		}
		if r < 0xdc00 && len(in) >= i+12 && in[i+6] == '\\' && in[i+7] == 'u' {
			if r2, ok := hex4(in[i+8:]); ok && utf16.DecodeRune(r, r2) != utf8.RuneError {
				return i + 12
			}
		}
		if f.wtf8 {
			if f.loneAt == 0 {
				f.loneAt, f.loneR = i+1, r
			}
			return i + 6
		}
		return f.fail(i, loneSurrogate, r)
	}
	if in[i+1] < 0x80 {
		return f.fail(i, "invalid JSON: invalid escape \\%c in a string", in[i+1])
	}
	return f.fail(i, "invalid JSON: invalid escape in a string")
}

// loneSurrogate is the message for an unpaired surrogate escape outside
// wtf8 mode.
const loneSurrogate = "invalid JSON: lone surrogate \\u%04x in a string"

// hex4 decodes the 4 hex digits at the start of b.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// simpleEscape returns the byte that the one-character JSON escape \c
// stands for (c one of " \ / b f n r t), and false for any other c.
func simpleEscape(c byte) (byte, bool) {
	switch c {
	case '"', '\\', '/':
		return c, true
	case 'b':
		return '\b', true
	case 'f':
		return '\f', true
	case 'n':
		return '\n', true
	case 'r':
		return '\r', true
	case 't':
		return '\t', true
	}
	return 0, false
}

// unquote decodes the JSON string literal v, which the scanner has
// validated.
func unquote(v []byte) string {
	content := v[1 : len(v)-1]
	i := bytes.IndexByte(content, '\\')
	if i < 0 {
		return string(content)
	}
	b := make([]byte, 0, len(content))
	for i >= 0 {
		b = append(b, content[:i]...)
		c := content[i+1]
		n := 2
		if e, ok := simpleEscape(c); ok {
			b = append(b, e)
		} else { // \u, the only other escape the scanner lets through
			r, _ := hex4(content[i+2:])
			n = 6
			switch {
			case !utf16.IsSurrogate(r):
				b = utf8.AppendRune(b, r)
			case r < 0xdc00 && len(content) >= i+12 && content[i+6] == '\\' && content[i+7] == 'u':
				if r2, ok := hex4(content[i+8:]); ok && r2 >= 0xdc00 && r2 <= 0xdfff {
					b, n = utf8.AppendRune(b, utf16.DecodeRune(r, r2)), 12
					break
				}
				fallthrough
			default: // unpaired: only in the scanner's wtf8 mode
				b = appendWTF8Surrogate(b, r)
			}
		}
		content = content[i+n:]
		i = bytes.IndexByte(content, '\\')
	}
	return string(append(b, content...))
}

// specials8 returns, for the 8 bytes packed little-endian in x, m: a mask
// with the high bit of a byte set where the byte is not plainByte: below
// 0x20, at or above 0x80, '"' or '\\' (SWAR tests for a zero byte, as in
// "Bit Twiddling Hacks"). Bytes above a flagged byte may be flagged
// wrongly, by a borrow, but the lowest flag is exact:
// bits.TrailingZeros64(m)/8 is the index of the first such byte. quotes is,
// with the same exactness, the mask of its '"' bytes. A byte c below 0x20
// or at or above 0x80 is one where c-0x20 or c has its high bit set; only a
// byte below 0x20 borrows from the next.
func specials8(x uint64) (quotes, m uint64) {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	q := x ^ (ones * '"')
	b := x ^ (ones * '\\')
	quotes = (q - ones) &^ q
	return quotes & highs, ((x - ones*0x20) | x | quotes | (b-ones)&^b) & highs
}

// canonicalUEscape reports whether b starts with \u00hh (lowercase hex) for
// a control character that has no short escape: the only \u form RFC 8785
// writes.
func canonicalUEscape(b []byte) bool {
	if len(b) < 6 || b[2] != '0' || b[3] != '0' || (b[4] != '0' && b[4] != '1') {
		return false
	}
	c := b[5]
	var v byte
	switch {
	case '0' <= c && c <= '9':
		v = c - '0'
	case 'a' <= c && c <= 'f':
		v = c - 'a' + 10
	default:
		return false
	}
	v += (b[4] - '0') << 4
	switch v {
	case '\b', '\t', '\n', '\f', '\r':
		return false
	}
	return true
}
