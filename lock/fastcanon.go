package lock

import (
	"bytes"
	"encoding/binary"
	"slices"
	"sync"
	"unicode/utf8"
)

// This file is a fast path for Canonicalize, not a second canonicaliser.
// github.com/gowebpki/jcs is the reference implementation of RFC 8785 in this
// package; it is correct but allocates per token and runs at about 55 MB/s,
// which is 35 times slower than SHA-256 of the same bytes. fastCanonical
// handles only a subset of JSON for which the canonical form is obvious:
//
//   - strings without escapes other than the ones RFC 8785 itself writes
//     (\" \\ \b \f \n \r \t and \u00hh for other control characters);
//   - object member names without any escape and without characters at or
//     above U+E000, where UTF-8 byte order equals UTF-16 code unit order;
//   - integers of at most 15 digits, other than -0, which ECMAScript prints
//     exactly as written;
//   - true, false, null, and JSON whitespace.
//
// On anything else, including every error, it reports ok == false and
// Canonicalize hands the whole input to jcs, so errors and all unusual
// values are always jcs's. FuzzCanonicalize checks that both agree
// byte for byte on every input the fast path accepts.

// maxFastDepth bounds recursion; deeper input goes to jcs (limit 10000).
const maxFastDepth = 512

// plainByte[c] is true for bytes that a canonical string holds verbatim
// and that need no further check: printable ASCII other than '"' and '\\'.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// member is one object member already written to the output: out[start:end]
// is its canonical `"name":value` text and in[ks:ke] its name's raw bytes.
// It holds no pointers, so sorting members costs no write barriers.
type member struct {
	ks, ke, start, end int
}

type fastCanon struct {
	in      []byte
	i       int
	out     []byte
	members []member // a stack shared by the nested objects being written
	scratch []byte
}

// fastCanonical appends the canonical form of in to dst. ok is false when in
// is outside the fast subset (or is not valid JSON at all).
func fastCanonical(dst, in []byte) (out []byte, ok bool) {
	f := fastCanons.Get().(*fastCanon)
	f.in, f.i, f.out = in, 0, dst
	defer func() {
		f.in, f.out = nil, nil
		fastCanons.Put(f)
	}()
	f.ws()
	if !f.value(0) {
		return dst, false
	}
	f.ws()
	if f.i != len(in) {
		return dst, false
	}
	return f.out, true
}

var fastCanons = sync.Pool{New: func() any { return new(fastCanon) }}

func (f *fastCanon) key(m member) []byte { return f.in[m.ks:m.ke] }

func (f *fastCanon) ws() {
	for f.i < len(f.in) {
		switch f.in[f.i] {
		case ' ', '\t', '\n', '\r':
			f.i++
		default:
			return
		}
	}
}

func (f *fastCanon) value(depth int) bool {
	if f.i >= len(f.in) {
		return false
	}
	switch c := f.in[f.i]; {
	case c == '"':
		_, ok := f.str()
		return ok
	case c == '{':
		return depth < maxFastDepth && f.object(depth+1)
	case c == '[':
		return depth < maxFastDepth && f.array(depth+1)
	case c == '-' || ('0' <= c && c <= '9'):
		return f.number()
	case c == 't':
		return f.literal("true")
	case c == 'f':
		return f.literal("false")
	case c == 'n':
		return f.literal("null")
	}
	return false
}

func (f *fastCanon) literal(lit string) bool {
	if !bytes.HasPrefix(f.in[f.i:], []byte(lit)) {
		return false
	}
	f.i += len(lit)
	f.out = append(f.out, lit...)
	return true
}

// number accepts -?(0|[1-9][0-9]{0,14}) not followed by a fraction or an
// exponent, and not -0.
func (f *fastCanon) number() bool {
	start := f.i
	if f.in[f.i] == '-' {
		f.i++
	}
	digits := f.i
	for f.i < len(f.in) && '0' <= f.in[f.i] && f.in[f.i] <= '9' {
		f.i++
	}
	n := f.i - digits
	if n == 0 || n > 15 || (n > 1 && f.in[digits] == '0') {
		return false
	}
	if f.in[digits] == '0' && digits > start { // -0 is printed as 0
		return false
	}
	if f.i < len(f.in) {
		if c := f.in[f.i]; c == '.' || c == 'e' || c == 'E' {
			return false
		}
	}
	f.out = append(f.out, f.in[start:f.i]...)
	return true
}

// str copies one string that is already in canonical form and returns its
// content (between the quotes). ok is false for any other string.
func (f *fastCanon) str() (content []byte, ok bool) {
	start := f.i
	f.i++ // opening quote
	nonASCII := false
	for {
		for f.i+8 <= len(f.in) && plain8(binary.LittleEndian.Uint64(f.in[f.i:])) {
			f.i += 8
		}
		for f.i < len(f.in) && plainByte[f.in[f.i]] {
			f.i++
		}
		if f.i >= len(f.in) {
			return nil, false
		}
		switch c := f.in[f.i]; {
		case c == '"':
			f.i++
			content = f.in[start+1 : f.i-1]
			if nonASCII && !utf8.Valid(content) {
				return nil, false
			}
			f.out = append(f.out, f.in[start:f.i]...)
			return content, true
		case c == '\\':
			if f.i+1 >= len(f.in) {
				return nil, false
			}
			switch f.in[f.i+1] {
			case '"', '\\', 'b', 'f', 'n', 'r', 't':
				f.i += 2
			case 'u':
				if !canonicalUEscape(f.in[f.i:]) {
					return nil, false
				}
				f.i += 6
			default: // \/ and anything invalid
				return nil, false
			}
		case c >= 0x80:
			nonASCII = true
			f.i++
		default: // raw control character: invalid JSON
			return nil, false
		}
	}
}

// plain8 reports whether all 8 bytes packed in x are plainByte: none is
// below 0x20, at or above 0x80, '"' or '\\' (exact SWAR tests for a zero
// byte, as in "Bit Twiddling Hacks").
func plain8(x uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	q := x ^ (ones * '"')
	b := x ^ (ones * '\\')
	t := (x-ones*0x20)&^x | (q-ones)&^q | (b-ones)&^b | x
	return t&highs == 0
}

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

func (f *fastCanon) array(depth int) bool {
	f.i++
	f.out = append(f.out, '[')
	f.ws()
	if f.i < len(f.in) && f.in[f.i] == ']' {
		f.i++
		f.out = append(f.out, ']')
		return true
	}
	for {
		f.ws()
		if !f.value(depth) {
			return false
		}
		f.ws()
		if f.i >= len(f.in) {
			return false
		}
		switch f.in[f.i] {
		case ',':
			f.i++
			f.out = append(f.out, ',')
		case ']':
			f.i++
			f.out = append(f.out, ']')
			return true
		default:
			return false
		}
	}
}

func (f *fastCanon) object(depth int) bool {
	f.i++
	f.out = append(f.out, '{')
	f.ws()
	if f.i < len(f.in) && f.in[f.i] == '}' {
		f.i++
		f.out = append(f.out, '}')
		return true
	}
	base := len(f.members)
	defer func() { f.members = f.members[:base] }()
	sorted := true
	for {
		f.ws()
		if f.i >= len(f.in) || f.in[f.i] != '"' {
			return false
		}
		start, ks := len(f.out), f.i+1
		key, ok := f.str()
		if !ok || !fastKey(key) {
			return false
		}
		f.ws()
		if f.i >= len(f.in) || f.in[f.i] != ':' {
			return false
		}
		f.i++
		f.out = append(f.out, ':')
		f.ws()
		if !f.value(depth) {
			return false
		}
		if n := len(f.members); n > base {
			switch c := bytes.Compare(f.key(f.members[n-1]), key); {
			case c == 0:
				return false // duplicate: jcs reports it
			case c > 0:
				sorted = false
			}
		}
		f.members = append(f.members, member{ks: ks, ke: ks + len(key), start: start, end: len(f.out)})
		f.ws()
		if f.i >= len(f.in) {
			return false
		}
		switch f.in[f.i] {
		case ',':
			f.i++
			f.out = append(f.out, ',')
		case '}':
			f.i++
			if !sorted && !f.sortMembers(base) {
				return false
			}
			f.out = append(f.out, '}')
			return true
		default:
			return false
		}
	}
}

// fastKey reports whether a member name is in the fast subset: no escapes and
// no character at or above U+E000 (UTF-8 lead bytes 0xEE-0xF4), so that
// comparing UTF-8 bytes orders names exactly as UTF-16 code units do.
func fastKey(key []byte) bool {
	for _, c := range key {
		if c == '\\' || c >= 0xEE {
			return false
		}
	}
	return true
}

// sortMembers rewrites the members from base on, already written to f.out,
// in name order. It reports false on a duplicate name.
func (f *fastCanon) sortMembers(base int) bool {
	ms := f.members[base:]
	slices.SortFunc(ms, func(a, b member) int { return bytes.Compare(f.key(a), f.key(b)) })
	for i := 1; i < len(ms); i++ {
		if bytes.Equal(f.key(ms[i-1]), f.key(ms[i])) {
			return false
		}
	}
	from := ms[0].start
	for _, m := range ms {
		from = min(from, m.start)
	}
	f.scratch = append(f.scratch[:0], f.out[from:]...)
	f.out = f.out[:from]
	for i, m := range ms {
		if i > 0 {
			f.out = append(f.out, ',')
		}
		f.out = append(f.out, f.scratch[m.start-from:m.end-from]...)
	}
	return true
}
