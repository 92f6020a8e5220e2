package remote

// challenge.go: the one reader of WWW-Authenticate.

import "strings"

// A Challenge is one challenge of a WWW-Authenticate header (RFC 9110
// §11.6.1): its auth-scheme, as sent, and its auth-params, in order,
// names as sent.
type Challenge struct {
	Scheme string
	Params []Param
}

// A Param is one auth-param: name=value, the value unquoted.
type Param struct{ Name, Value string }

// Param returns the value of the challenge's first auth-param named name
// (compared case-insensitively), "" when it has none.
func (c Challenge) Param(name string) string {
	for _, p := range c.Params {
		if strings.EqualFold(p.Name, name) {
			return p.Value
		}
	}
	return ""
}

// ParseChallenges reads WWW-Authenticate header values into their
// challenges, in order: each value is an auth-scheme followed by
// auth-params (name=value or name="quoted", backslash escaping the next
// character), and several challenges may share one value. A token68
// ("abc==") is skipped; an auth-param before any scheme of its value
// belongs to no challenge and is dropped.
func ParseChallenges(values []string) []Challenge {
	var out []Challenge
	for _, v := range values {
		started := false
		for _, tok := range splitChallenge(v) {
			switch {
			case tok.scheme != "":
				out = append(out, Challenge{Scheme: tok.scheme})
				started = true
			case started:
				c := &out[len(out)-1]
				c.Params = append(c.Params, Param{tok.name, tok.value})
			}
		}
	}
	return out
}

// BearerChallenge is what a 401's Bearer challenges said.
type BearerChallenge struct {
	Bearer           bool   // a Bearer challenge was there at all
	ResourceMetadata string // RFC 9728 resource_metadata, "" if absent
	Scope            string // the scope the server asks for, "" if absent
}

// ParseBearer reads the Bearer challenges of WWW-Authenticate header
// values (ParseChallenges; the scheme compared case-insensitively): the
// first non-empty resource_metadata and scope among them.
func ParseBearer(values []string) BearerChallenge {
	var b BearerChallenge
	for _, c := range ParseChallenges(values) {
		if !strings.EqualFold(c.Scheme, "bearer") {
			continue
		}
		b.Bearer = true
		for _, p := range c.Params {
			switch strings.ToLower(p.Name) {
			case "resource_metadata":
				if b.ResourceMetadata == "" {
					b.ResourceMetadata = p.Value
				}
			case "scope":
				if b.Scope == "" {
					b.Scope = p.Value
				}
			}
		}
	}
	return b
}

type challengeToken struct {
	scheme      string // set for an auth-scheme
	name, value string // set for an auth-param
}

// splitChallenge tokenises one WWW-Authenticate value: auth-schemes
// (words without "=") and auth-params (name=value); a token68's padding
// ("abc==") and stray "=" are skipped.
func splitChallenge(s string) []challengeToken {
	var out []challengeToken
	for i := 0; i < len(s); {
		i = skipBytes(s, i, " \t,")
		start := i
		for i < len(s) && strings.IndexByte(" \t,=", s[i]) < 0 {
			i++
		}
		word := s[start:i]
		if word == "" {
			if i < len(s) {
				i++ // a stray '='
			}
			continue
		}
		j := skipBytes(s, i, " \t")
		if j >= len(s) || s[j] != '=' {
			out = append(out, challengeToken{scheme: word})
			continue
		}
		// name = value; token68 padding ("abc==") is not a param.
		if i = j + 1; i < len(s) && s[i] == '=' {
			i = skipBytes(s, i, "=")
			continue
		}
		var value string
		value, i = paramValue(s, skipBytes(s, i, " \t"))
		out = append(out, challengeToken{name: word, value: value})
	}
	return out
}

// skipBytes returns the index of the first byte of s at or after i that
// is not in set.
func skipBytes(s string, i int, set string) int {
	for i < len(s) && strings.IndexByte(set, s[i]) >= 0 {
		i++
	}
	return i
}

// paramValue reads the auth-param value starting at s[i]: a quoted string
// (a backslash escapes the next byte; the value ends at the closing quote
// or the end of s) or a token up to a comma or blank. It returns the value
// and the index past it.
func paramValue(s string, i int) (string, int) {
	if i >= len(s) || s[i] != '"' {
		start := i
		for i < len(s) && s[i] != ',' && s[i] != ' ' && s[i] != '\t' {
			i++
		}
		return s[start:i], i
	}
	var value strings.Builder
	for i++; i < len(s) && s[i] != '"'; i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		value.WriteByte(s[i])
	}
	return value.String(), i + 1 // past the closing quote
}
