package lock

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"slices"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/gowebpki/jcs"
)

// Canonicalize returns the RFC 8785 (JCS) canonical form of one JSON text,
// rejecting input that is not I-JSON (RFC 7493) instead of repairing it.
//
// The input is one RFC 8259 JSON text in UTF-8, optionally surrounded by
// JSON whitespace. It is an error when it is empty, starts with a byte
// order mark, holds more than one text, is not well-formed UTF-8, holds an
// escaped lone surrogate, has an object with two members whose names are
// equal after unescaping, or has a number that is not a finite IEEE-754
// double (1e400). In the output: no whitespace; strings escape only '"',
// '\\' and U+0000-U+001F (\b \t \n \f \r, others as lowercase \u00hh);
// numbers are printed as ECMAScript's Number.prototype.toString prints the
// double; object members are sorted by name compared as UTF-16 code units,
// recursively; arrays keep their order.
//
// Input is validated by this package's scanner; its canonical form is
// emitted from the scan where that is obvious (see scanner) and is
// otherwise github.com/gowebpki/jcs v1.0.2's, the reference implementation.
// Both give identical bytes (FuzzCanonicalize).
//
// No command of agentgate calls it (they hash: HashInputSchema streams
// the same form into SHA-256), so `go tool deadcode` lists it; it stays as
// the library's canonical form, the one the hash functions' doc comments
// cite, and as the tests' view of the fast path against jcs.
func Canonicalize(raw []byte) ([]byte, error) {
	f := getScanner()
	defer putScanner(f)
	if err := f.parseText(raw); err != nil {
		return nil, err
	}
	if f.slow == 0 {
		return f.emit(nil, 0, nil), nil
	}
	return slowCanonical(raw)
}

// parseText is parse for a JSON text that stands alone: Canonicalize's,
// HashInputSchema's and the recipe's input. Errors are *syntaxError.
func (f *scanner) parseText(raw []byte) error {
	switch {
	case len(raw) == 0:
		return &syntaxError{msg: "invalid JSON: empty input, want one JSON text"}
	case bytes.HasPrefix(raw, []byte("\xef\xbb\xbf")):
		return &syntaxError{msg: "invalid JSON: starts with a byte order mark (U+FEFF), which JSON does not allow"}
	}
	return f.parse(raw)
}

// slowCanonical is jcs's canonical form of raw, which the scanner has
// validated.
func slowCanonical(raw []byte) ([]byte, error) {
	out, err := jcs.Transform(raw)
	if err != nil {
		return nil, errors.New("invalid JSON: " + lowerFirst(err.Error()))
	}
	return out, nil
}

// lowerFirst makes jcs's capitalised messages follow Go's error style.
func lowerFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError || !unicode.IsUpper(r) {
		return s
	}
	return string(unicode.ToLower(r)) + s[n:]
}

// sha256Hex returns the SHA-256 of b as 64 lowercase hex digits: the form
// of every hash in a lockfile.
func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// HashName returns nameHash: the lowercase hex SHA-256 of the name's UTF-8
// bytes (the decoded string, not its JSON form).
func HashName(name string) string { return sha256Hex([]byte(name)) }

// HashDescription returns descriptionHash: the lowercase hex SHA-256 of the
// description's UTF-8 bytes, where an absent description (nil) hashes as the
// empty string. An empty description therefore hashes as an absent one.
func HashDescription(desc *string) string {
	if desc == nil {
		return emptyHash
	}
	return sha256Hex([]byte(*desc))
}

// Well-known hashes: SHA-256 of "" and of "{}".
const (
	emptyHash       = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
	emptyObjectHash = "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"
)

// HashInputSchema returns inputSchemaHash, under the rules of lockfile
// version (Version1 or Version2; an error otherwise).
//
// Version 1: the lowercase hex SHA-256 of the RFC 8785 canonical form (see
// Canonicalize) of the raw inputSchema bytes as the server sent them. An
// absent schema (nil or empty raw) and JSON null hash as the two bytes {}.
// Any JSON value is accepted; input that is not I-JSON is an error and
// produces no hash.
//
// Version 2: the same, except that a schema holding an unpaired surrogate
// escape (which version 1 refuses) hashes as the SHA-256 of its
// DefinitionCanonical form (RFC 8785, the surrogate written as a lowercase
// \udxxx escape).
func HashInputSchema(version int, raw []byte) (string, error) {
	if err := checkVersion(version); err != nil {
		return "", err
	}
	if version == Version2 {
		return hashSchemaV2(raw)
	}
	return hashSchema(raw)
}

// hashSchema is HashInputSchema of version 1.
func hashSchema(raw []byte) (string, error) {
	if len(raw) == 0 {
		return emptyObjectHash, nil
	}
	f := getScanner()
	defer putScanner(f)
	if err := f.parseText(raw); err != nil {
		return "", err
	}
	switch {
	case f.isNull(0):
		return emptyObjectHash, nil
	case f.slow == 0:
		sum := f.hashValue(0)
		return hex.EncodeToString(sum[:]), nil
	}
	out, err := slowCanonical(raw)
	if err != nil {
		return "", err
	}
	return sha256Hex(out), nil
}

// SurfaceHash returns a server's surfaceHash: the lowercase hex SHA-256 of
// the RFC 8785 canonical form of the JSON array that holds, for each tool in
// order of name compared as UTF-8 bytes, the array of its three hash strings
// [nameHash, descriptionHash, inputSchemaHash]. For hex hashes that text is
//
//	[["<nameHash>","<descriptionHash>","<inputSchemaHash>"],...]
//
// with no whitespace; zero tools give [] . tools need not be sorted.
func SurfaceHash(tools []Tool) string { return surfaceHash(sortedTools(tools), false) }

// surfaceHash is SurfaceHash of tools sorted by name. With hex64, the
// caller vouches that every hash is 64 lowercase hex digits (Parse has
// checked), so each is written between quotes without a look at its bytes.
// It streams the canonical text into SHA-256 through a fixed buffer.
func surfaceHash(tools []Tool, hex64 bool) string {
	const per = 3*66 + 4 // ["h","h","h"] and a comma, for hex hashes
	var buf [32 * per]byte
	h := sha256.New()
	b := append(buf[:0], '[')
	for i, t := range tools {
		if len(b)+per+1 > len(buf) {
			h.Write(b)
			b = buf[:0]
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		b = appendHashString(b, t.NameHash, hex64)
		b = append(b, ',')
		b = appendHashString(b, t.DescriptionHash, hex64)
		b = append(b, ',')
		b = appendHashString(b, t.InputSchemaHash, hex64)
		b = append(b, ']')
	}
	b = append(b, ']')
	h.Write(b)
	var sum [sha256.Size]byte
	return hex.EncodeToString(h.Sum(sum[:0]))
}

// appendHashString appends s as an RFC 8785 string: a hex hash (hex64, or
// checked here) between quotes as it stands, anything else through
// appendJCSString.
func appendHashString(b []byte, s string, hex64 bool) []byte {
	if hex64 || isHex64(s) {
		b = append(b, '"')
		b = append(b, s...)
		return append(b, '"')
	}
	return appendJCSString(b, s)
}

// compareTools is the one order of tools: by name, compared as UTF-8 bytes.
func compareTools(a, b Tool) int { return strings.Compare(a.Name, b.Name) }

// sortedTools returns tools sorted by compareTools: tools itself when it is
// sorted, else a sorted copy (stable, so equal names keep their order).
func sortedTools(tools []Tool) []Tool {
	if slices.IsSortedFunc(tools, compareTools) {
		return tools
	}
	return slices.SortedStableFunc(slices.Values(tools), compareTools)
}

// appendJCSString appends s as an RFC 8785 string, so that SurfaceHash is
// well defined for any string, not only hex hashes.
func appendJCSString(b []byte, s string) []byte { return appendQuoted(b, s, nil) }

// appendQuoted appends s as a JSON string escaped as RFC 8785 says: '"' and
// '\\' with a backslash, control characters as \b \t \n \f \r or \u00hh,
// everything else verbatim. When visible is not nil, every rune it reports
// is written as \uXXXX as well (a surrogate pair above U+FFFF; escapes
// change no parsed value), and invalid
// UTF-8 becomes U+FFFD; with visible nil, bytes are copied as they are.
func appendQuoted(b []byte, s string, visible func(rune) bool) []byte {
	const hexDigits = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f && c != '"' && c != '\\' { // the common case
			b = append(b, c)
			i++
			continue
		}
		r, n := rune(c), 1
		if c >= 0x80 {
			if visible == nil {
				b = append(b, c)
				i++
				continue
			}
			r, n = utf8.DecodeRuneInString(s[i:])
		}
		i += n
		switch {
		case r == '"' || r == '\\':
			b = append(b, '\\', byte(r))
		case r == '\b':
			b = append(b, '\\', 'b')
		case r == '\t':
			b = append(b, '\\', 't')
		case r == '\n':
			b = append(b, '\\', 'n')
		case r == '\f':
			b = append(b, '\\', 'f')
		case r == '\r':
			b = append(b, '\\', 'r')
		case r < 0x20 || (visible != nil && visible(r)):
			if r > 0xffff {
				hi, lo := utf16.EncodeRune(r)
				b = append(b, '\\', 'u', hexDigits[hi>>12&0xf], hexDigits[hi>>8&0xf], hexDigits[hi>>4&0xf], hexDigits[hi&0xf])
				r = lo
			}
			b = append(b, '\\', 'u', hexDigits[r>>12&0xf], hexDigits[r>>8&0xf], hexDigits[r>>4&0xf], hexDigits[r&0xf])
		default:
			b = utf8.AppendRune(b, r) // U+FFFD for invalid UTF-8
		}
	}
	return append(b, '"')
}
