package lock

// defhash.go: the tool definition hash, version 1, the public recipe
// published with mcp-pin (docs/TOOL_DEFINITION_HASH.md in the
// GautamTalksDev/mcp-pin repository, MIT), which lockfile version 2 uses
// for definitionHash, toolsSetHash, promptsSetHash and instructionsHash.
// Its test vectors are in testdata/tool-definition-hash.

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/gowebpki/jcs"
)

// DefinitionCanonical returns the canonical form of one MCP definition (a
// tool, prompt, resource template or resource object exactly as a server
// sent it) under the tool definition hash, version 1: RFC 8785 as
// Canonicalize writes it, with two differences. An unpaired surrogate
// escape (\uD800-\uDFFF not part of a pair) is accepted and written as a
// lowercase escape (\udead), as ECMAScript's JSON.stringify writes it; and
// the error for a repeated member name anywhere is ErrRepeatedMember (a
// definition with a repeated member has no canonical form: parsers
// disagree on which copy wins). Everything else Canonicalize refuses is
// refused here too: invalid UTF-8, a raw control character in a string,
// a number that is not a finite double, trailing data, a byte order mark.
// Every member is kept; nothing is dropped, defaulted or normalised.
//
// The scanner reads raw in its recipe mode; input in its fast subset (see
// scanner) is emitted from the scan, as Canonicalize does, and anything
// else from the tree of parseRecipe (FuzzDefinitionCanonical checks both
// against Canonicalize).
func DefinitionCanonical(raw []byte) ([]byte, error) {
	f := getScanner()
	f.wtf8 = true
	err := f.parseText(raw)
	if err == nil && f.slow == 0 {
		out := f.emit(nil, 0, nil)
		putScanner(f)
		return out, nil
	}
	putScanner(f)
	if err != nil {
		return nil, err
	}
	v, err := parseRecipe(raw)
	if err != nil {
		return nil, err
	}
	return appendRecipeCanonical(nil, v), nil
}

// ErrRepeatedMember is the error (wrapped) for JSON with an object that
// has two members of one name.
var ErrRepeatedMember = errors.New("repeated member name")

// DefinitionHash returns the definition hash of raw: the lowercase hex
// SHA-256 of DefinitionCanonical(raw).
func DefinitionHash(raw []byte) (string, error) {
	c, err := DefinitionCanonical(raw)
	if err != nil {
		return "", err
	}
	return sha256Hex(c), nil
}

// SetEntry is one definition of a listing, for SetHash: its name and its
// definition hash.
type SetEntry struct {
	Name string // as decoded; may hold an unpaired surrogate as WTF-8
	Hash string // its DefinitionHash (64 lowercase hex digits)
}

// SetHash returns the set hash of a whole listing: the entries sorted by
// name compared as UTF-16 code units, entries of one name by hash; one
// line "name:hash" per entry joined with "\n", no newline at the end; the
// lowercase hex SHA-256 of that text's UTF-8 bytes (an unpaired surrogate
// in a name as U+FFFD). An empty listing hashes the empty string. The
// order of entries does not matter; entries is not modified.
func SetHash(entries []SetEntry) string {
	sorted := slices.Clone(entries)
	slices.SortFunc(sorted, func(a, b SetEntry) int {
		if c := compareUTF16(a.Name, b.Name); c != 0 {
			return c
		}
		return strings.Compare(a.Hash, b.Hash)
	})
	h := sha256.New()
	var b []byte
	for i, e := range sorted {
		b = b[:0]
		if i > 0 {
			b = append(b, '\n')
		}
		b = appendWHATWG(b, e.Name)
		b = append(b, ':')
		b = append(b, e.Hash...)
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// InstructionsHash returns the instructions hash: the lowercase hex
// SHA-256 of the instructions' UTF-8 bytes, exactly as received (no
// canonicalisation, no Unicode normalisation; an unpaired surrogate held
// as WTF-8 is hashed as U+FFFD), or nil when the server sent no
// instructions string.
func InstructionsHash(instructions *string) *string {
	if instructions == nil {
		return nil
	}
	h := sha256Hex(appendWHATWG(nil, *instructions))
	return &h
}

// rv is one JSON value of parseRecipe's tree (built from the scanner's tape).
type rv struct {
	kind  byte   // '{', '[', '"', '0' (number), 't', 'f', 'n'
	off   int    // byte offset in the input
	s     string // a string's value (WTF-8: unpaired surrogates as 3 bytes), a number's canonical text
	keys  []string
	vals  []*rv // object members sorted by key as UTF-16 code units; array elements
	kOffs []int // offsets of the keys
}

// member returns the value of member key of an object.
func (v *rv) member(key string) (*rv, bool) {
	if v.kind != '{' {
		return nil, false
	}
	for i, k := range v.keys {
		if k == key {
			return v.vals[i], true
		}
	}
	return nil, false
}

// parseRecipe reads one JSON text (optionally surrounded by whitespace)
// into a tree, with the scanner in its recipe mode (wtf8: an unpaired
// surrogate escape is accepted and decoded as WTF-8). Errors are the
// scanner's *syntaxError; a repeated member name wraps ErrRepeatedMember.
func parseRecipe(in []byte) (*rv, error) {
	f := getScanner()
	defer putScanner(f)
	f.wtf8, f.keepDepth = true, maxDepth
	if err := f.parseText(in); err != nil {
		return nil, err
	}
	return f.tree(0), nil
}

// tree returns tape[idx] as an rv: object members sorted by name as UTF-16
// code units, strings decoded, numbers in canonical form. Every container
// must be recorded (keepDepth maxDepth), and the scanner has refused
// repeated names.
func (f *scanner) tree(idx int) *rv {
	e := f.tape[idx]
	switch e.kind {
	case kindArray:
		v := &rv{kind: '[', off: int(e.a)}
		for j := idx + 1; j < int(e.next); j = f.after(j) {
			v.vals = append(v.vals, f.tree(j))
		}
		return v
	case kindObject:
		ms := f.members(idx)
		v := &rv{kind: '{', off: int(f.offset(idx)), keys: make([]string, len(ms)), vals: make([]*rv, len(ms)), kOffs: make([]int, len(ms))}
		for k, m := range ms {
			v.keys[k], v.kOffs[k] = f.key(m), int(m.ks-1)
			if m.v >= 0 {
				v.vals[k] = f.tree(int(m.v))
			} else {
				v.vals[k] = f.scalarTree(int(m.vs), int(m.ve))
			}
		}
		if !slices.IsSortedFunc(v.keys, compareUTF16) {
			idx := make([]int, len(ms))
			for i := range idx {
				idx[i] = i
			}
			slices.SortFunc(idx, func(a, b int) int { return compareUTF16(v.keys[a], v.keys[b]) })
			keys, vals, offs := make([]string, len(idx)), make([]*rv, len(idx)), make([]int, len(idx))
			for j, i := range idx {
				keys[j], vals[j], offs[j] = v.keys[i], v.vals[i], v.kOffs[i]
			}
			v.keys, v.vals, v.kOffs = keys, vals, offs
		}
		return v
	}
	return f.scalarTree(int(e.a), int(e.b))
}

// scalarTree returns the scalar in[a:b] as an rv.
func (f *scanner) scalarTree(a, b int) *rv {
	text := f.in[a:b]
	switch c := text[0]; c {
	case '"':
		return &rv{kind: '"', off: a, s: unquote(text)}
	case 't', 'f', 'n':
		return &rv{kind: c, off: a}
	}
	// A number the scanner has checked is a finite double.
	n, _ := strconv.ParseFloat(string(text), 64)
	s, _ := jcs.NumberToJSON(n)
	return &rv{kind: '0', off: a, s: s}
}

// appendWTF8Surrogate appends the surrogate code point r as the three
// bytes UTF-8 would use for it (WTF-8).
func appendWTF8Surrogate(b []byte, r rune) []byte {
	return append(b, 0xe0|byte(r>>12), 0x80|byte(r>>6)&0x3f, 0x80|byte(r)&0x3f)
}

// wtf8Surrogate reports whether s[i:] starts with a surrogate in WTF-8,
// and which.
func wtf8Surrogate(s string, i int) (rune, bool) {
	if i+2 < len(s) && s[i] == 0xed && s[i+1] >= 0xa0 && s[i+1] <= 0xbf && s[i+2] >= 0x80 && s[i+2] <= 0xbf {
		return 0xd000 | rune(s[i+1]&0x3f)<<6 | rune(s[i+2]&0x3f), true
	}
	return 0, false
}

// appendWHATWG appends s as UTF-8, with each WTF-8 surrogate as U+FFFD.
func appendWHATWG(b []byte, s string) []byte {
	for i := 0; i < len(s); {
		if _, ok := wtf8Surrogate(s, i); ok {
			b = append(b, "\uFFFD"...)
			i += 3
			continue
		}
		b = append(b, s[i])
		i++
	}
	return b
}

// compareUTF16 compares two strings (valid UTF-8, or WTF-8) as sequences
// of UTF-16 code units.
func compareUTF16(a, b string) int {
	i, j := 0, 0
	var pa, pb rune = -1, -1 // pending low surrogates
	for {
		var ua, ub rune
		switch {
		case pa >= 0:
			ua, pa = pa, -1
		case i >= len(a):
			ua = -1
		default:
			ua, pa, i = nextUnit(a, i)
		}
		switch {
		case pb >= 0:
			ub, pb = pb, -1
		case j >= len(b):
			ub = -1
		default:
			ub, pb, j = nextUnit(b, j)
		}
		if ua != ub || ua < 0 {
			return int(ua - ub)
		}
	}
}

// nextUnit decodes the rune at s[i:] and returns its first UTF-16 code
// unit, the second (-1 if none) and the index after the rune.
func nextUnit(s string, i int) (rune, rune, int) {
	if s[i] < 0x80 {
		return rune(s[i]), -1, i + 1
	}
	if r, ok := wtf8Surrogate(s, i); ok {
		return r, -1, i + 3
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	if r >= 0x10000 {
		hi, lo := utf16.EncodeRune(r)
		return hi, lo, i + n
	}
	return r, -1, i + n
}

// appendRecipeCanonical appends the canonical form of v.
func appendRecipeCanonical(b []byte, v *rv) []byte {
	switch v.kind {
	case '{':
		b = append(b, '{')
		for i, k := range v.keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendRecipeString(b, k, nil)
			b = append(b, ':')
			b = appendRecipeCanonical(b, v.vals[i])
		}
		return append(b, '}')
	case '[':
		b = append(b, '[')
		for i, e := range v.vals {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendRecipeCanonical(b, e)
		}
		return append(b, ']')
	case '"':
		return appendRecipeString(b, v.s, nil)
	case '0':
		return append(b, v.s...)
	case 't':
		return append(b, "true"...)
	case 'f':
		return append(b, "false"...)
	default:
		return append(b, "null"...)
	}
}

// appendRecipeString appends s (WTF-8) as a JSON string: with quote nil,
// as RFC 8785 escapes it; otherwise each run of s between unpaired
// surrogates is written by quote (which appends a quoted JSON string).
// Unpaired surrogates are written as lowercase \udxxx escapes.
func appendRecipeString(b []byte, s string, quote func([]byte, string) []byte) []byte {
	if quote == nil {
		quote = appendJCSString
	}
	if !strings.Contains(s, "\xed") {
		return quote(b, s)
	}
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		r, ok := wtf8Surrogate(s, i)
		if !ok {
			i++
			continue
		}
		if start < i {
			q := quote(nil, s[start:i])
			b = append(b, q[1:len(q)-1]...)
		}
		b = append(b, `\u`...)
		b = append(b, fmt.Sprintf("%04x", r)...)
		i += 3
		start = i
	}
	if start < len(s) {
		q := quote(nil, s[start:])
		b = append(b, q[1:len(q)-1]...)
	}
	return append(b, '"')
}
