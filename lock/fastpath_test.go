package lock

import "fmt"

// The scanner's fast path and SWAR test seen alone, for the tests that
// hold them to the plain path (TestFastPathAgreesWithJCS, FuzzCanonicalize,
// TestPlain8, TestNonPlain8First) and for the spec vectors' set hashes.

// fastCanonical appends the canonical form of in to dst. ok is false when in
// is not I-JSON or is outside the fast subset (see scanner).
func fastCanonical(dst, in []byte) (out []byte, ok bool) {
	f := getScanner()
	defer putScanner(f)
	if f.parse(in) != nil || f.slow > 0 {
		return dst, false
	}
	return f.emit(dst, 0, nil), true
}

// fastHash returns the SHA-256 of the canonical form of in, and whether that
// form is null. ok is false when in is not I-JSON or is outside the fast
// subset.
func fastHash(in []byte) (sum [32]byte, null, ok bool) {
	f := getScanner()
	defer putScanner(f)
	if f.parse(in) != nil || f.slow > 0 {
		return sum, false, false
	}
	return f.hashValue(0), f.isNull(0), true
}

// nonPlain8 is specials8's mask of the bytes that are not plainByte.
func nonPlain8(x uint64) uint64 {
	_, m := specials8(x)
	return m
}

// plain8 reports whether all 8 bytes packed in x are plainByte.
func plain8(x uint64) bool { return nonPlain8(x) == 0 }

// ListingSetHash returns the set hash (see SetHash) of a listing given as
// the raw definitions of all its pages. Every definition must have a
// string "name"; otherwise there is no set hash and the error says so.
func ListingSetHash(defs [][]byte) (string, error) {
	entries := make([]SetEntry, 0, len(defs))
	for i, raw := range defs {
		v, err := parseRecipe(raw)
		if err != nil {
			return "", fmt.Errorf("definition %d: %w", i, err)
		}
		name, ok := v.member("name")
		if !ok || name.kind != '"' {
			return "", fmt.Errorf("definition %d: no string name: a listing with such a definition has no set hash", i)
		}
		entries = append(entries, SetEntry{Name: name.s, Hash: sha256Hex(appendRecipeCanonical(nil, v))})
	}
	return SetHash(entries), nil
}
