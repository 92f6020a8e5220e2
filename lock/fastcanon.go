package lock

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"hash"
	"math"
	"slices"
	"sync"
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
// are at ks-1 and ke), in[vs:ve] its value's text, tape[v] its value; v is
// -1 when the value's text is canonical as it stands (a scalar, or a
// verbatim container), which then has no tape entry.
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
	case a.ke-a.ks < 8:
		return 0 // equal names of under 8 bytes
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

// parse reads in, which must be one JSON text in the fast subset, onto the
// tape; tape[0] is its top-level value.
func (f *fastCanon) parse(in []byte) bool {
	if len(in) >= math.MaxInt32 {
		return false
	}
	f.in, f.dirty = in, 0
	f.tape, f.stack, f.order = f.tape[:0], f.stack[:0], f.order[:0]
	i := f.value(f.ws(in, 0), 0)
	return i >= 0 && f.ws(in, i) == len(in)
}

// ws returns the offset of the first byte at or after in[i] that is not
// JSON whitespace.
func (f *fastCanon) ws(in []byte, i int) int {
	if i < len(in) && in[i] <= ' ' {
		return f.skipWS(in, i)
	}
	return i
}

// skipWS skips the whitespace at in[i]. A control character there is
// invalid JSON: it stops, and the caller fails on it.
func (f *fastCanon) skipWS(in []byte, i int) int {
	f.dirty++
	for i < len(in) && wsByte[in[i]] {
		i++
	}
	return i
}

// value reads the value at in[i] onto the tape and returns the offset after
// it, or -1 when it is not in the fast subset.
func (f *fastCanon) value(i, depth int) int {
	in := f.in
	if i >= len(in) {
		return -1
	}
	switch in[i] {
	case '{':
		if depth >= maxFastDepth {
			return -1
		}
		return f.object(i, depth+1)
	case '[':
		if depth >= maxFastDepth {
			return -1
		}
		return f.array(i, depth+1)
	}
	end := scalar(in, i)
	if end >= 0 {
		f.tape = append(f.tape, entry{a: int32(i), b: int32(end)})
	}
	return end
}

// done records the container in[open:end], tape entry idx: as one
// verbatim entry when nothing in it was made canonical (dirty is f.dirty at
// its opening), otherwise as kind with entries up to the end of the tape.
// It returns end.
func (f *fastCanon) done(end, idx, open, dirty int, kind uint8, a, b int) int {
	if f.dirty == dirty {
		f.tape = f.tape[:idx+1]
		f.tape[idx] = entry{a: int32(open), b: int32(end)}
	} else {
		f.tape[idx] = entry{a: int32(a), b: int32(b), next: int32(len(f.tape)), kind: kind}
	}
	return end
}

func (f *fastCanon) array(open, depth int) int {
	in := f.in
	idx, dirty := len(f.tape), f.dirty
	f.tape = append(f.tape, entry{})
	i := f.ws(in, open+1)
	if i < len(in) && in[i] == ']' {
		return f.done(i+1, idx, open, dirty, kindArray, 0, 0)
	}
	for {
		if i = f.value(i, depth); i < 0 {
			return -1
		}
		if i = f.ws(in, i); i >= len(in) {
			return -1
		}
		switch in[i] {
		case ',':
			i = f.ws(in, i+1)
		case ']':
			return f.done(i+1, idx, open, dirty, kindArray, 0, 0)
		default:
			return -1
		}
	}
}

func (f *fastCanon) object(open, depth int) int {
	in := f.in
	idx, dirty, base := len(f.tape), f.dirty, len(f.stack)
	f.tape = append(f.tape, entry{})
	i := f.ws(in, open+1)
	if i < len(in) && in[i] == '}' {
		return f.closeObject(i+1, idx, open, dirty, base, depth)
	}
	sorted := true
	for {
		if i >= len(in) || in[i] != '"' {
			return -1
		}
		ks := i + 1
		end, flags := scanStr(in, i)
		if end < 0 || flags&strEscape != 0 {
			return -1
		}
		ke := end - 1
		if flags != 0 && !fastKey(in[ks:ke]) {
			return -1
		}
		if i = f.ws(in, end); i >= len(in) || in[i] != ':' {
			return -1
		}
		if i = f.ws(in, i+1); i >= len(in) {
			return -1
		}
		vs, v := i, int32(-1) // a verbatim value has no tape entry
		if c := in[i]; c == '{' || c == '[' {
			if depth >= maxFastDepth {
				return -1
			}
			v = int32(len(f.tape))
			if c == '{' {
				i = f.object(i, depth+1)
			} else {
				i = f.array(i, depth+1)
			}
			if i < 0 {
				return -1
			}
			if f.tape[v].kind == kindVerbatim {
				f.tape, v = f.tape[:v], -1
			}
		} else if c == '"' {
			if i, _ = scanStr(in, i); i < 0 {
				return -1
			}
		} else if i = scalar(in, i); i < 0 {
			return -1
		}
		// Field by field into the stack: a member built aside and copied
		// costs a store-forwarding stall.
		n := len(f.stack)
		f.stack = append(f.stack, member{})
		m := &f.stack[n]
		m.pre, m.ks, m.ke, m.vs, m.ve, m.v = prefix(in, ks, ke), int32(ks), int32(ke), int32(vs), int32(i), v
		if n > base {
			switch c := compareNames(in, &f.stack[n-1], m); {
			case c == 0:
				return -1 // duplicate: jcs reports it
			case c > 0:
				sorted = false
			}
		}
		if i = f.ws(in, i); i >= len(in) {
			return -1
		}
		switch in[i] {
		case ',':
			i = f.ws(in, i+1)
		case '}':
			if !sorted {
				if !f.sortMembers(f.stack[base:]) {
					return -1
				}
				f.dirty++
			}
			return f.closeObject(i+1, idx, open, dirty, base, depth)
		default:
			return -1
		}
	}
}

// closeObject records the object in[open:end] whose members are
// stack[base:], and returns end.
func (f *fastCanon) closeObject(end, idx, open, dirty, base, depth int) int {
	if depth == 1 && f.keepTop {
		dirty = -1
	}
	lo := len(f.order)
	if f.dirty != dirty {
		f.order = append(f.order, f.stack[base:]...)
	}
	f.stack = f.stack[:base]
	return f.done(end, idx, open, dirty, kindObject, lo, len(f.order))
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
	if len(ms) == 2 { // compared when the second was read
		ms[0], ms[1] = ms[1], ms[0]
		return true
	}
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
