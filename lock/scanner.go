package lock

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash"
	"math"
	"slices"
	"strconv"
	"sync"
)

// scanner is this package's one JSON reader. One pass over the input
// validates it as I-JSON (RFC 7493: well-formed UTF-8, no lone surrogates,
// finite numbers, no two members of one object with equal names after
// unescaping), reports the first error with its byte offset, and records a
// tape from which callers both extract fields (Parse, DecodeTool) and emit
// the RFC 8785 canonical form (Canonicalize, HashInputSchema).
//
// The tape has one entry per value, in document order, except that a value
// whose text is canonical as it stands (a scalar, or a container with no
// whitespace and members sorted at every depth) is one verbatim entry for
// its whole text, and an object member's verbatim value has no entry at
// all. For other objects the tape records their members: sorted by name,
// or, for objects at depth keepDepth or less, in document order, so that
// fields can be looked up and errors reported in order.
//
// The canonical form is emitted from the tape only for input in the fast
// subset, where it is obvious:
//
//   - strings without escapes other than the ones RFC 8785 itself writes
//     (\" \\ \b \f \n \r \t and \u00hh for other control characters);
//   - object member names without any escape and without characters at or
//     above U+E000, where UTF-8 byte order equals UTF-16 code unit order;
//   - integers of at most 15 digits, other than -0, which ECMAScript prints
//     exactly as written;
//   - true, false, null, and JSON whitespace.
//
// Valid input outside it (fractions, exponents, long integers, other
// escapes, such member names) counts in slow, and its canonical form is
// github.com/gowebpki/jcs's, the reference implementation. FuzzCanonicalize
// checks that both agree byte for byte and accept exactly the same inputs.
type scanner struct {
	in    []byte
	dirty int // whitespace runs and unsorted objects seen: the canonical form differs
	slow  int // values outside the fast subset seen: the canonical form is jcs's
	tape  []entry
	stack []member // members of the objects being read
	order []member // members of the finished objects on the tape
	// keepDepth: objects at this depth or less (the top-level value is
	// at depth 1) are kindObject even when verbatim, with their members
	// in document order.
	keepDepth int
	// wtf8 is the recipe's mode (see DefinitionCanonical): an escaped
	// unpaired surrogate is accepted, counts in slow, and unquote decodes
	// it as WTF-8 (the three bytes UTF-8 would use for the code point).
	wtf8 bool
	// loneAt is 1 + the offset of the first unpaired surrogate escape
	// accepted in wtf8 mode, 0 when there was none; loneR is its value.
	loneAt int
	loneR  rune
	// name is the string value of the first "name" member of a top-level
	// object (with keepDepth >= 1) and names how many there were, for
	// DecodeTool's error messages.
	name  []byte
	names int
	err   *syntaxError

	out []byte    // buffer for hashValue
	h   hash.Hash // a SHA-256, for hashValue
	sum [32]byte
}

// maxDepth bounds nesting, as encoding/json and jcs do.
const maxDepth = 10000

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
	// order[a:b] are the members; the member values follow on the tape,
	// up to entry next.
	kindObject
)

// entry is one value on the tape. Offsets are int32: larger input is
// refused. For a kindArray entry, in[a] is its '['.
type entry struct {
	a, b, next int32
	kind       uint8
}

// member is one object member: in[ks:ke] is its name's content (the quotes
// are at ks-1 and ke), in[vs:ve] its value's text, tape[v] its value; v is
// -1 when the value's text is canonical as it stands (a scalar, or a
// verbatim container), which then has no tape entry.
// pre is the name's first 8 bytes, big-endian, padded with zero bytes: as
// an unescaped name holds no zero byte, comparing pre orders names by their
// first 8 bytes, and equal pre means either equal names of under 8 bytes or
// names both at least 8 bytes long. It holds no pointers, so sorting
// members costs no write barriers.
type member struct {
	pre               uint64
	ks, ke, vs, ve, v int32
	esc               bool // the name holds an escape
}

// syntaxError is input that is not I-JSON, at byte offset off. For a
// duplicate member name, dup is the name and path the JSON path of the
// object holding it, outermost first.
type syntaxError struct {
	off  int
	msg  string
	dup  string
	path []pathElem
}

// Unwrap makes a duplicate member name errors.Is ErrRepeatedMember.
func (e *syntaxError) Unwrap() error {
	if e.dup != "" {
		return ErrRepeatedMember
	}
	return nil
}

// pathElem is one step of a JSON path: a member name, or an array index
// when key is nil.
type pathElem struct {
	key   []byte
	index int
}

func (e *syntaxError) Error() string { return e.msg }

// fail records an error at in[off] and returns -1.
func (f *scanner) fail(off int, format string, args ...any) int {
	f.err = &syntaxError{off: off, msg: fmt.Sprintf(format, args...)}
	return -1
}

// unexpected fails on the byte at in[i], which is not what want describes.
func (f *scanner) unexpected(i int, want string) int {
	if i >= len(f.in) {
		return f.fail(i, "invalid JSON: unexpected end of file, want %s", want)
	}
	return f.fail(i, "invalid JSON: unexpected %s, want %s", describeByte(f.in[i]), want)
}

// at prepends a path step to a duplicate-name error on its way out.
func (f *scanner) at(key []byte, index int) {
	if f.err != nil && f.err.dup != "" {
		f.err.path = append(f.err.path, pathElem{key, index})
	}
}

func describeByte(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return strconv.QuoteRune(rune(c))
	}
	return fmt.Sprintf("byte 0x%02x", c)
}

// kind names the JSON type of the value starting with c, for messages.
func kind(c byte) string {
	switch {
	case c == '"':
		return "a string"
	case c == '{':
		return "an object"
	case c == '[':
		return "an array"
	case c == 't' || c == 'f':
		return "a boolean"
	case c == 'n':
		return "null"
	}
	return "a number"
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

var scanners = sync.Pool{New: func() any { return &scanner{h: sha256.New()} }}

// getScanner returns a scanner from the pool; putScanner returns it,
// dropping buffers that grew large.
func getScanner() *scanner { return scanners.Get().(*scanner) }

func putScanner(f *scanner) {
	const keep = 1 << 20
	f.in, f.keepDepth, f.wtf8, f.err, f.name = nil, 0, false, nil, nil
	if cap(f.out) > keep {
		f.out = nil
	}
	if cap(f.tape)*16 > keep || cap(f.order)*32 > keep || cap(f.stack)*32 > keep {
		f.tape, f.order, f.stack = nil, nil, nil
	}
	scanners.Put(f)
}

// parse reads in, one JSON text optionally surrounded by whitespace, onto
// the tape; tape[0] is its top-level value. It returns nil or a
// *syntaxError.
func (f *scanner) parse(in []byte) error {
	f.in, f.dirty, f.slow, f.err, f.name, f.names, f.loneAt = in, 0, 0, nil, nil, 0, 0
	f.tape, f.stack, f.order = f.tape[:0], f.stack[:0], f.order[:0]
	if len(in) >= math.MaxInt32 {
		f.fail(0, "invalid JSON: input of %d bytes is too large", len(in))
		return f.err
	}
	i := f.value(f.ws(in, 0), 0)
	if i >= 0 {
		if i = f.ws(in, i); i < len(in) {
			f.fail(i, "invalid JSON: unexpected data after the JSON text")
		}
	}
	if f.err != nil {
		return f.err
	}
	return nil
}

// ws returns the offset of the first byte at or after in[i] that is not
// JSON whitespace.
func (f *scanner) ws(in []byte, i int) int {
	if i < len(in) && in[i] <= ' ' {
		return f.skipWS(in, i)
	}
	return i
}

// skipWS skips the whitespace at in[i]: after a line end, indentation eight
// spaces at a time. A control character there is invalid JSON: it stops,
// and the caller fails on it. It is not inlined: canonical input has no
// whitespace, and object's loop stays smaller without five copies.
//
//go:noinline
func (f *scanner) skipWS(in []byte, i int) int {
	f.dirty++
	if in[i] == '\n' {
		i++
		for i+8 <= len(in) && binary.LittleEndian.Uint64(in[i:]) == 0x2020202020202020 {
			i += 8
		}
	}
	for i < len(in) && wsByte[in[i]] {
		i++
	}
	return i
}

// value reads the value at in[i] onto the tape and returns the offset after
// it, or -1 after an error.
func (f *scanner) value(i, depth int) int {
	in := f.in
	if i >= len(in) {
		return f.unexpected(i, "a value")
	}
	switch in[i] {
	case '{':
		if depth >= maxDepth {
			return f.fail(i, "invalid JSON: nested too deeply")
		}
		return f.object(i, depth+1)
	case '[':
		if depth >= maxDepth {
			return f.fail(i, "invalid JSON: nested too deeply")
		}
		return f.array(i, depth+1)
	}
	end := f.scalar(i)
	if end >= 0 {
		f.tape = append(f.tape, entry{a: int32(i), b: int32(end)})
	}
	return end
}

// done records the container in[open:end], tape entry idx: as one
// verbatim entry when nothing in it was made canonical (dirty is f.dirty at
// its opening), otherwise as kind with entries up to the end of the tape.
// It returns end.
func (f *scanner) done(end, idx, open, dirty int, kind uint8, a, b int) int {
	if f.dirty == dirty {
		f.tape = f.tape[:idx+1]
		f.tape[idx] = entry{a: int32(open), b: int32(end)}
	} else {
		f.tape[idx] = entry{a: int32(a), b: int32(b), next: int32(len(f.tape)), kind: kind}
	}
	return end
}

func (f *scanner) array(open, depth int) int {
	in := f.in
	idx, dirty := len(f.tape), f.dirty
	f.tape = append(f.tape, entry{})
	if depth <= f.keepDepth {
		dirty = -1 // recorded even when verbatim
	}
	i := f.ws(in, open+1)
	if i < len(in) && in[i] == ']' {
		return f.done(i+1, idx, open, dirty, kindArray, open, 0)
	}
	for n := 0; ; n++ {
		if i = f.value(i, depth); i < 0 {
			f.at(nil, n)
			return -1
		}
		if i = f.ws(in, i); i >= len(in) {
			return f.unexpected(i, "',' or ']'")
		}
		switch in[i] {
		case ',':
			i = f.ws(in, i+1)
		case ']':
			return f.done(i+1, idx, open, dirty, kindArray, open, 0)
		default:
			return f.unexpected(i, "',' or ']'")
		}
	}
}

func (f *scanner) object(open, depth int) int {
	in := f.in
	idx, dirty, base := len(f.tape), f.dirty, len(f.stack)
	f.tape = append(f.tape, entry{})
	keep := depth <= f.keepDepth
	if keep {
		dirty = -1 // recorded even when verbatim
	}
	i := f.ws(in, open+1)
	if i < len(in) && in[i] == '}' {
		return f.closeObject(i+1, idx, open, dirty, base, keep, false, true)
	}
	sorted, escaped := true, false
	for {
		vs, ks, ke, esc := f.memberName(i)
		if vs < 0 {
			return -1
		}
		escaped = escaped || esc // names compared after unescaping in closeObject
		var v int32
		if i, v = f.memberValue(vs, depth, ks, ke); i < 0 {
			return -1
		}
		if depth == 1 && keep {
			f.noteName(ks, ke, vs, i, esc)
		}
		// Field by field into the stack: a member built aside and copied
		// costs a store-forwarding stall.
		n := len(f.stack)
		f.stack = append(f.stack, member{})
		m := &f.stack[n]
		m.pre, m.ks, m.ke, m.vs, m.ve, m.v, m.esc = prefix(in, ks, ke), int32(ks), int32(ke), int32(vs), int32(i), v, esc
		if n > base {
			if keep {
				if n-base < 16 {
					for j := base; j < n; j++ {
						if compareNames(in, &f.stack[j], m) == 0 {
							return f.duplicate(*m)
						}
					}
				}
			} else {
				switch c := compareNames(in, &f.stack[n-1], m); {
				case c == 0:
					return f.duplicate(*m)
				case c > 0:
					sorted = false
				}
			}
		}
		if i = f.ws(in, i); i >= len(in) {
			return f.unexpected(i, "',' or '}'")
		}
		switch in[i] {
		case ',':
			i = f.ws(in, i+1)
		case '}':
			return f.closeObject(i+1, idx, open, dirty, base, keep, escaped, sorted)
		default:
			return f.unexpected(i, "',' or '}'")
		}
	}
}

// memberName reads an object member's name at in[i] and the ':' after it,
// and returns the offset of its value (the first byte after the ':' that
// is not whitespace), or -1 after an error; in[ks:ke] is the name's
// content, and esc says it holds an escape. A name whose UTF-16 order
// differs from its UTF-8 order counts in slow.
func (f *scanner) memberName(i int) (vs, ks, ke int, esc bool) {
	in := f.in
	if i >= len(in) || in[i] != '"' {
		return f.unexpected(i, `'"'`), 0, 0, false
	}
	ks = i + 1
	end, flags := scanStr(in, i)
	if end < 0 {
		if end, flags = f.slowStr(i); end < 0 {
			return -1, 0, 0, false
		}
	}
	ke = end - 1
	esc = flags&(strEscape|strSlow) != 0
	if !esc && flags != 0 && !fastKey(in[ks:ke]) {
		f.slow++ // UTF-16 order differs from UTF-8 order
	}
	if i = f.ws(in, end); i >= len(in) || in[i] != ':' {
		return f.unexpected(i, `':'`), 0, 0, false
	}
	if i = f.ws(in, i+1); i >= len(in) {
		return f.unexpected(i, "a value"), 0, 0, false
	}
	return i, ks, ke, esc
}

// memberValue reads the value at in[i] of the member named in[ks:ke] of
// an object at depth, and returns the offset after it (-1 after an error)
// and its tape entry: -1 for a value canonical as it stands (a scalar, or
// a verbatim container), which gets none.
func (f *scanner) memberValue(i, depth, ks, ke int) (end int, v int32) {
	in := f.in
	switch c := in[i]; c {
	case '{', '[':
		if depth >= maxDepth {
			return f.fail(i, "invalid JSON: nested too deeply"), -1
		}
		v = int32(len(f.tape))
		if c == '{' {
			end = f.object(i, depth+1)
		} else {
			end = f.array(i, depth+1)
		}
		if end < 0 {
			f.at(in[ks:ke], 0)
			return -1, -1
		}
		if f.tape[v].kind == kindVerbatim {
			f.tape, v = f.tape[:v], -1
		}
		return end, v
	case '"':
		if end, _ = scanStr(in, i); end < 0 {
			end, _ = f.slowStr(i)
		}
		return end, -1
	}
	return f.scalar(i), -1
}

// noteName records, for a top-level object, the member in[ks:ke] when it
// is named "name": how many there were (names) and the value of the first
// when that is a string (name, the text in[vs:ve]).
func (f *scanner) noteName(ks, ke, vs, ve int, esc bool) {
	in := f.in
	if string(in[ks:ke]) == "name" || esc && unquote(in[ks-1:ke+1]) == "name" {
		if f.names++; f.names == 1 && in[vs] == '"' {
			f.name = in[vs:ve]
		}
	}
}

// closeObject records the object in[open:end] whose members are
// stack[base:], and returns end, or -1 after an error (a repeated member
// name). sorted says the members are in canonical order (an object that
// keeps document order, keep, counts as sorted when it has at most 16
// members, which object compared pairwise); otherwise they are sorted
// here. With escaped, some member names hold escapes: they are compared
// after unescaping, and the object's canonical form is jcs's.
func (f *scanner) closeObject(end, idx, open, dirty, base int, keep, escaped, sorted bool) int {
	if keep {
		sorted = len(f.stack)-base <= 16
	}
	if !sorted {
		if d, dup := f.sortMembers(f.stack[base:], keep); dup {
			return f.duplicate(d)
		}
		f.dirty++
	}
	if escaped {
		if d, dup := f.duplicateUnescaped(f.stack[base:]); dup {
			return f.duplicate(d)
		}
		f.slow++
	}
	if keep { // a header member holds the offset of '{' (see offset)
		f.order = append(f.order, member{vs: int32(open)})
	}
	lo := len(f.order)
	if f.dirty != dirty {
		f.order = append(f.order, f.stack[base:]...)
	}
	f.stack = f.stack[:base]
	return f.done(end, idx, open, dirty, kindObject, lo, len(f.order))
}

// duplicate fails on m, the later of two members of one object with one
// name.
func (f *scanner) duplicate(m member) int {
	key := unquote(f.in[m.ks-1 : m.ke+1])
	f.fail(int(m.ks-1), "invalid JSON: duplicate member name %s", strconv.Quote(clip(key)))
	f.err.dup = key
	return -1
}

// duplicateUnescaped returns the later member of the first two in ms whose
// names are equal after unescaping, or nil.
func (f *scanner) duplicateUnescaped(ms []member) (dup member, found bool) {
	seen := make(map[string]bool, len(ms))
	for _, m := range ms {
		key := f.key(m)
		if seen[key] && (!found || m.ks < dup.ks) {
			dup, found = m, true
		}
		seen[key] = true
	}
	return dup, found
}

// key returns m's name, unescaped.
func (f *scanner) key(m member) string {
	if m.esc {
		return unquote(f.in[m.ks-1 : m.ke+1])
	}
	return string(f.in[m.ks:m.ke])
}

// fastKey reports whether an unescaped member name is in the fast subset:
// no character at or above U+E000 (UTF-8 lead bytes 0xEE-0xF4), so that
// comparing UTF-8 bytes orders names exactly as UTF-16 code units do.
func fastKey(key []byte) bool {
	for _, c := range key {
		if c >= 0xEE {
			return false
		}
	}
	return true
}

// sortMembers sorts ms by name (with keep, a copy of ms) and returns the
// later of two members with one name, if any.
func (f *scanner) sortMembers(ms []member, keep bool) (dup member, found bool) {
	in := f.in
	if keep {
		ms = append(f.stack[len(f.stack):len(f.stack)], ms...) // scratch above the stack
	}
	if len(ms) == 2 { // compared when the second was read
		ms[0], ms[1] = ms[1], ms[0]
		return member{}, false
	}
	if len(ms) <= 24 {
		// Insertion sort compares every pair that ends up adjacent, so a
		// duplicate shows as a comparison that returns 0.
		for i := 1; i < len(ms); i++ {
			for j := i; j > 0; j-- {
				c := compareNames(in, &ms[j-1], &ms[j])
				if c == 0 {
					return later(ms[j-1], ms[j]), true
				}
				if c < 0 {
					break
				}
				ms[j-1], ms[j] = ms[j], ms[j-1]
			}
		}
		return member{}, false
	}
	slices.SortFunc(ms, func(a, b member) int { return compareNames(in, &a, &b) })
	for i := 1; i < len(ms); i++ {
		if compareNames(in, &ms[i-1], &ms[i]) == 0 {
			return later(ms[i-1], ms[i]), true
		}
	}
	return member{}, false
}

// later returns whichever of a and b comes later in the input.
func later(a, b member) member {
	if a.ks > b.ks {
		return a
	}
	return b
}

// offset returns the offset of the first byte of tape[idx], which is not
// an object or is an object at depth keepDepth or less.
func (f *scanner) offset(idx int) int32 {
	if e := f.tape[idx]; e.kind == kindObject {
		return f.order[e.a-1].vs
	}
	return f.tape[idx].a
}

// members returns the members of the recorded object tape[idx].
func (f *scanner) members(idx int) []member {
	e := f.tape[idx]
	return f.order[e.a:e.b]
}
