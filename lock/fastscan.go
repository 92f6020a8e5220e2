package lock

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
)

// scalar returns the offset after the string, number, true, false or null
// at in[i], which must be in the fast subset (see fastcanon.go), or -1.
func scalar(in []byte, i int) int {
	switch c := in[i]; {
	case c == '"':
		end, _ := scanStr(in, i)
		return end
	case c == '-' || ('0' <= c && c <= '9'):
		return number(in, i)
	case c == 't':
		return literal(in, i, "true")
	case c == 'f':
		return literal(in, i, "false")
	case c == 'n':
		return literal(in, i, "null")
	}
	return -1
}

func literal(in []byte, i int, lit string) int {
	if !bytes.HasPrefix(in[i:], []byte(lit)) {
		return -1
	}
	return i + len(lit)
}

// number accepts -?(0|[1-9][0-9]{0,14}) not followed by a fraction or an
// exponent, and not -0, which ECMAScript prints exactly as written.
func number(in []byte, i int) int {
	start := i
	if in[i] == '-' {
		i++
	}
	digits := i
	for i < len(in) && '0' <= in[i] && in[i] <= '9' {
		i++
	}
	n := i - digits
	if n == 0 || n > 15 || (n > 1 && in[digits] == '0') {
		return -1
	}
	if in[digits] == '0' && digits > start { // -0 is printed as 0
		return -1
	}
	if i < len(in) {
		if c := in[i]; c == '.' || c == 'e' || c == 'E' {
			return -1
		}
	}
	return i
}

// String scan results, besides the end offset.
const (
	strEscape   = 1 << iota // holds an escape
	strNonASCII             // holds bytes at or above 0x80 (valid UTF-8)
)

// scanStr scans the string that starts with the quote at in[i], which must
// be in canonical form, and returns the offset after its closing quote and
// what it holds; end is -1 for any other string.
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

// nonPlain8 returns, for the 8 bytes packed little-endian in x, a mask with
// the high bit of a byte set where the byte is not plainByte: below 0x20,
// at or above 0x80, '"' or '\\' (SWAR tests for a zero byte, as in "Bit
// Twiddling Hacks"). Bytes above a flagged byte may be flagged wrongly, by
// a borrow, but the lowest flag is exact: bits.TrailingZeros64(m)/8 is the
// index of the first such byte.
func nonPlain8(x uint64) uint64 {
	_, m := specials8(x)
	return m
}

// specials8 returns nonPlain8(x) and, with the same exactness, the mask of
// its '"' bytes. A byte c below 0x20 or at or above 0x80 is one where c-0x20
// or c has its high bit set; only a byte below 0x20 borrows from the next.
func specials8(x uint64) (quotes, m uint64) {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	q := x ^ (ones * '"')
	b := x ^ (ones * '\\')
	quotes = (q - ones) &^ q
	return quotes & highs, ((x - ones*0x20) | x | quotes | (b-ones)&^b) & highs
}

// plain8 reports whether all 8 bytes packed in x are plainByte.
func plain8(x uint64) bool { return nonPlain8(x) == 0 }

// canonicalUEscape reports whether b starts with \u00hh (lowercase hex) for a
// control character that has no short escape: the only \u form JCS writes.
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
