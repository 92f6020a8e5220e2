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

// splitChallenge tokenises one WWW-Authenticate value.
func splitChallenge(s string) []challengeToken {
	var out []challengeToken
	i := 0
	for i < len(s) {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == ',') {
			i++
		}
		start := i
		for i < len(s) && s[i] != ' ' && s[i] != '\t' && s[i] != ',' && s[i] != '=' {
			i++
		}
		word := s[start:i]
		if word == "" {
			if i < len(s) {
				i++ // a stray '='
			}
			continue
		}
		j := i
		for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
			j++
		}
		if j >= len(s) || s[j] != '=' {
			out = append(out, challengeToken{scheme: word})
			continue
		}
		// name = value; token68 padding ("abc==") is not a param.
		i = j + 1
		if i < len(s) && s[i] == '=' {
			for i < len(s) && s[i] == '=' {
				i++
			}
			continue
		}
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		var value strings.Builder
		if i < len(s) && s[i] == '"' {
			i++
			for i < len(s) && s[i] != '"' {
				if s[i] == '\\' && i+1 < len(s) {
					i++
				}
				value.WriteByte(s[i])
				i++
			}
			i++ // closing quote
		} else {
			for i < len(s) && s[i] != ',' && s[i] != ' ' && s[i] != '\t' {
				value.WriteByte(s[i])
				i++
			}
		}
		out = append(out, challengeToken{name: word, value: value.String()})
	}
	return out
}
