package syntax

// CanonicalHeaderKey returns the canonical form of the HTTP header name s,
// exactly as net/textproto.CanonicalMIMEHeaderKey does: when every byte of
// s is an RFC 7230 token character, the first letter and each letter after
// a hyphen are upper-cased and the others lower-cased ("x-api-KEY" ->
// "X-Api-Key"); otherwise s is returned unchanged. It is here so that
// agentgate does not link net/textproto, which pulls in package net, and
// with it a dynamically linked binary and ~1 ms on every start (issue #5).
// header_test.go checks it against net/textproto.
func CanonicalHeaderKey(s string) string {
	for i := 0; i < len(s); i++ {
		if !isTokenByte(s[i]) {
			return s
		}
	}
	b := []byte(s)
	upper := true
	for i, c := range b {
		if upper && 'a' <= c && c <= 'z' {
			c -= 'a' - 'A'
		} else if !upper && 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b[i] = c
		upper = c == '-'
	}
	return string(b)
}

// isTokenByte reports whether c may appear in an RFC 7230 token (a header
// field name): a letter, a digit, or one of !#$%&'*+-.^_`|~.
func isTokenByte(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	for i := 0; i < len(tokenPunct); i++ {
		if tokenPunct[i] == c {
			return true
		}
	}
	return false
}

const tokenPunct = "!#$%&'*+-.^_`|~"
