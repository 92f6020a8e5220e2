package lock

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"hash"
	"math"
	"math/bits"
	"slices"
	"sync"
	"unicode/utf8"
)

// This file is a fast path for Canonicalize, not a second canonicaliser.
// github.com/gowebpki/jcs is the reference implementation of RFC 8785 in this
// package; it is correct but allocates per token and runs at about 55 MB/s,
// which is 35 times slower than SHA-256 of the same bytes. The fast path
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
//
// It works in two passes. parse reads the input once, validates it and
// records a tape: one entry per value, in document order, except that a
// container whose text is canonical already (no whitespace, members sorted
// at every depth) is one verbatim entry for its whole text. For the other
// objects it records their members, sorted, in order. emit then walks the
// tape and writes the canonical form, copying whole verbatim runs of the
// input; when hashing, it streams them into the SHA-256 without building
// the whole output. A member whose text is canonical is copied in one
// piece, name and value.

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

// wsByte[c] is true for JSON whitespace.
var wsByte = [256]bool{' ': true, '\t': true, '\n': true, '\r': true}

// Tape entry kinds.
const (
	// in[a:b] is canonical as it stands: a scalar, or a container with
	// no whitespace and sorted members at every depth.
	kindVerbatim uint8 = iota
	// Elements follow on the tape, up to entry next.
	kindArray
	// order[a:b] are the members, in canonical order; the member values
	// follow on the tape, up to entry next.
	kindObject
)

// entry is one value on the tape. Offsets are int32: larger input goes to
// jcs.
type entry struct {
	a, b, next int32
	kind       uint8
}

// member is one object member: in[ks:ke] is its name's content (the quotes
// are at ks-1 and ke), in[vs:ve] its value's text, tape[v] its value.
// pre is the name's first 8 bytes, big-endian, padded with zero bytes: as
// a name in the fast subset holds no zero byte, comparing pre orders names
// by their first 8 bytes, and equal pre means either equal names of under
// 8 bytes or names both at least 8 bytes long. It holds no pointers, so
// sorting members costs no write barriers.
type member struct {
	pre               uint64
	ks, ke, vs, ve, v int32
}

// prefix returns member.pre for the name in[ks:ke].
func prefix(in []byte, ks, ke int) uint64 {
	if ks+8 <= len(in) {
		x := binary.BigEndian.Uint64(in[ks:])
		if n := ke - ks; n < 8 {
			x &^= math.MaxUint64 >> (8 * n)
		}
		return x
	}
	var x uint64
	for i := range 8 {
		x <<= 8
		if ks+i < ke {
			x |= uint64(in[ks+i])
		}
	}
	return x
}

// compareNames compares the names of a and b as bytes.
func compareNames(in []byte, a, b *member) int {
	switch {
	case a.pre < b.pre:
		return -1
	case a.pre > b.pre:
		return 1
	case a.ke-a.ks <= 8:
		return 0
	}
	return bytes.Compare(in[a.ks+8:a.ke], in[b.ks+8:b.ke])
}

// flushAt is how much canonical output emit buffers before it writes it to
// the hash; verbatim runs of at least directAt bytes go to the hash without
// a copy.
const (
	flushAt  = 16 << 10
	directAt = 1 << 10
)

type fastCanon struct {
	in    []byte
	i     int
	dirty int // whitespace runs and unsorted objects seen so far
	tape  []entry
	stack []member // members of the objects being parsed
	order []member // members of the finished objects on the tape, sorted
	// keepTop keeps a top-level object on the tape as kindObject even when
	// it is verbatim, so that its members can be looked up.
	keepTop bool

	out []byte    // buffer for hashValue
	h   hash.Hash // a SHA-256, for hashValue
	sum [32]byte
}

var fastCanons = sync.Pool{New: func() any { return &fastCanon{h: sha256.New()} }}

// getFastCanon returns a fastCanon from the pool; putFastCanon returns it,
// dropping buffers that grew large.
func getFastCanon() *fastCanon { return fastCanons.Get().(*fastCanon) }

func putFastCanon(f *fastCanon) {
	const keep = 1 << 20
	f.in, f.keepTop = nil, false
	if cap(f.out) > keep {
		f.out = nil
	}
	if cap(f.tape)*16 > keep || cap(f.order)*32 > keep || cap(f.stack)*32 > keep {
		f.tape, f.order, f.stack = nil, nil, nil
	}
	fastCanons.Put(f)
}

// fastCanonical appends the canonical form of in to dst. ok is false when in
// is outside the fast subset (or is not valid JSON at all).
func fastCanonical(dst, in []byte) (out []byte, ok bool) {
	f := getFastCanon()
	defer putFastCanon(f)
	if !f.parse(in) {
		return dst, false
	}
	return f.emit(dst, 0, nil), true
}

// fastHash returns the SHA-256 of the canonical form of in, and whether that
// form is null. ok is false when in is outside the fast subset.
func fastHash(in []byte) (sum [32]byte, null, ok bool) {
	f := getFastCanon()
	defer putFastCanon(f)
	if !f.parse(in) {
		return sum, false, false
	}
	return f.hashValue(0), f.tape[0].kind == kindVerbatim && string(f.in[f.tape[0].a:f.tape[0].b]) == "null", true
}

// hashValue returns the SHA-256 of the canonical form of tape[idx].
func (f *fastCanon) hashValue(idx int) (sum [32]byte) {
	if e := f.tape[idx]; e.kind == kindVerbatim {
		return sha256.Sum256(f.in[e.a:e.b])
	}
	f.h.Reset()
	f.out = f.emit(f.out[:0], idx, f.h)
	f.h.Write(f.out)
	f.h.Sum(f.sum[:0])
	return f.sum
}

// parse reads in, which must be one JSON text in the fast subset, onto the
// tape; tape[0] is its top-level value.
func (f *fastCanon) parse(in []byte) bool {
	if len(in) >= math.MaxInt32 {
		return false
	}
	f.in, f.i, f.dirty = in, 0, 0
	f.tape, f.stack, f.order = f.tape[:0], f.stack[:0], f.order[:0]
	f.ws()
	if !f.value(0) {
		return false
	}
	f.ws()
	return f.i == len(in)
}

func (f *fastCanon) ws() {
	if f.i < len(f.in) && wsByte[f.in[f.i]] {
		f.skipWS()
	}
}

func (f *fastCanon) skipWS() {
	f.dirty++
	for f.i < len(f.in) && wsByte[f.in[f.i]] {
		f.i++
	}
}

func (f *fastCanon) value(depth int) bool {
	if f.i >= len(f.in) {
		return false
	}
	start := f.i
	switch c := f.in[f.i]; {
	case c == '"':
		if !f.str() {
			return false
		}
	case c == '{':
		return depth < maxFastDepth && f.object(depth+1)
	case c == '[':
		return depth < maxFastDepth && f.array(depth+1)
	case c == '-' || ('0' <= c && c <= '9'):
		if !f.number() {
			return false
		}
	case c == 't':
		if !f.literal("true") {
			return false
		}
	case c == 'f':
		if !f.literal("false") {
			return false
		}
	case c == 'n':
		if !f.literal("null") {
			return false
		}
	default:
		return false
	}
	f.tape = append(f.tape, entry{a: int32(start), b: int32(f.i)})
	return true
}

func (f *fastCanon) literal(lit string) bool {
	if !bytes.HasPrefix(f.in[f.i:], []byte(lit)) {
		return false
	}
	f.i += len(lit)
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
	return true
}

// str reads one string that is already in canonical form. It reports false
// for any other string.
func (f *fastCanon) str() bool {
	end, _ := scanStr(f.in, f.i)
	f.i = end
	return end >= 0
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
			m := nonPlain8(binary.LittleEndian.Uint64(in[i:]))
			if m == 0 {
				i += 8
				continue
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
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	q := x ^ (ones * '"')
	b := x ^ (ones * '\\')
	return ((x-ones*0x20)&^x | (q-ones)&^q | (b-ones)&^b | x) & highs
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

// done records the container opened at input offset open, tape entry idx:
// as one verbatim entry when nothing in it since then was made canonical
// (dirty is f.dirty at its opening), otherwise as kind with entries up to
// the end of the tape.
func (f *fastCanon) done(idx, open, dirty int, kind uint8, a, b int) {
	if f.dirty == dirty {
		f.tape = f.tape[:idx+1]
		f.tape[idx] = entry{a: int32(open), b: int32(f.i)}
		return
	}
	f.tape[idx] = entry{a: int32(a), b: int32(b), next: int32(len(f.tape)), kind: kind}
}

func (f *fastCanon) array(depth int) bool {
	open, idx, dirty := f.i, len(f.tape), f.dirty
	f.tape = append(f.tape, entry{})
	f.i++
	f.ws()
	if f.i < len(f.in) && f.in[f.i] == ']' {
		f.i++
		f.done(idx, open, dirty, kindArray, 0, 0)
		return true
	}
	for {
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
			f.ws()
		case ']':
			f.i++
			f.done(idx, open, dirty, kindArray, 0, 0)
			return true
		default:
			return false
		}
	}
}

func (f *fastCanon) object(depth int) bool {
	open, idx, dirty, base := f.i, len(f.tape), f.dirty, len(f.stack)
	f.tape = append(f.tape, entry{})
	f.i++
	f.ws()
	if f.i < len(f.in) && f.in[f.i] == '}' {
		f.i++
		f.closeObject(idx, open, dirty, base, depth)
		return true
	}
	sorted := true
	for {
		if f.i >= len(f.in) || f.in[f.i] != '"' {
			return false
		}
		ks := f.i + 1
		end, flags := scanStr(f.in, f.i)
		if end < 0 || flags&strEscape != 0 {
			return false
		}
		f.i = end
		ke := end - 1
		if flags != 0 && !fastKey(f.in[ks:ke]) {
			return false
		}
		f.ws()
		if f.i >= len(f.in) || f.in[f.i] != ':' {
			return false
		}
		f.i++
		f.ws()
		vs, v := f.i, len(f.tape)
		if !f.value(depth) {
			return false
		}
		m := member{pre: prefix(f.in, ks, ke), ks: int32(ks), ke: int32(ke), vs: int32(vs), ve: int32(f.i), v: int32(v)}
		if n := len(f.stack); n > base {
			switch c := compareNames(f.in, &f.stack[n-1], &m); {
			case c == 0:
				return false // duplicate: jcs reports it
			case c > 0:
				sorted = false
			}
		}
		f.stack = append(f.stack, m)
		f.ws()
		if f.i >= len(f.in) {
			return false
		}
		switch f.in[f.i] {
		case ',':
			f.i++
			f.ws()
		case '}':
			f.i++
			if !sorted {
				if !f.sortMembers(f.stack[base:]) {
					return false
				}
				f.dirty++
			}
			f.closeObject(idx, open, dirty, base, depth)
			return true
		default:
			return false
		}
	}
}

// closeObject records the object whose members are stack[base:].
func (f *fastCanon) closeObject(idx, open, dirty, base, depth int) {
	if depth == 1 && f.keepTop {
		dirty = -1
	}
	lo := len(f.order)
	if f.dirty != dirty {
		f.order = append(f.order, f.stack[base:]...)
	}
	f.stack = f.stack[:base]
	f.done(idx, open, dirty, kindObject, lo, len(f.order))
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

// sortMembers sorts ms by name. It reports false on a duplicate name.
func (f *fastCanon) sortMembers(ms []member) bool {
	in := f.in
	if len(ms) <= 24 {
		// Insertion sort compares every pair that ends up adjacent, so a
		// duplicate shows as a comparison that returns 0.
		for i := 1; i < len(ms); i++ {
			for j := i; j > 0; j-- {
				c := compareNames(in, &ms[j-1], &ms[j])
				if c == 0 {
					return false
				}
				if c < 0 {
					break
				}
				ms[j-1], ms[j] = ms[j], ms[j-1]
			}
		}
		return true
	}
	slices.SortFunc(ms, func(a, b member) int { return compareNames(in, &a, &b) })
	for i := 1; i < len(ms); i++ {
		if compareNames(in, &ms[i-1], &ms[i]) == 0 {
			return false
		}
	}
	return true
}

// after returns the index of the tape entry after the value at idx.
func (f *fastCanon) after(idx int) int {
	if e := f.tape[idx]; e.kind != kindVerbatim {
		return int(e.next)
	}
	return idx + 1
}

// emit appends the canonical form of tape[idx] to out; with h non-nil, it
// writes the output to h whenever it grows past flushAt.
func (f *fastCanon) emit(out []byte, idx int, h hash.Hash) []byte {
	in := f.in
	switch e := f.tape[idx]; e.kind {
	case kindVerbatim:
		out = put(out, in[e.a:e.b], h)
	case kindArray:
		out = append(out, '[')
		for j := idx + 1; j < int(e.next); j = f.after(j) {
			if j > idx+1 {
				out = append(out, ',')
			}
			out = f.emit(out, j, h)
		}
		out = append(out, ']')
	case kindObject:
		out = append(out, '{')
		for k, m := range f.order[e.a:e.b] {
			if k > 0 {
				out = append(out, ',')
			}
			if m.vs == m.ke+2 && f.tape[m.v].kind == kindVerbatim {
				out = put(out, in[m.ks-1:m.ve], h) // "name":value as it stands
				continue
			}
			out = append(out, in[m.ks-1:m.ke+1]...)
			out = append(out, ':')
			out = f.emit(out, int(m.v), h)
		}
		out = append(out, '}')
	}
	return out
}

// put appends b to out, or with h non-nil may write both to h instead.
func put(out, b []byte, h hash.Hash) []byte {
	if h == nil {
		return append(out, b...)
	}
	if len(b) >= directAt {
		h.Write(out)
		h.Write(b)
		return out[:0]
	}
	out = append(out, b...)
	if len(out) >= flushAt {
		h.Write(out)
		out = out[:0]
	}
	return out
}
