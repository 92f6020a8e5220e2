package syntax

import (
	"fmt"
	"strconv"
	"strings"
)

// TOMLKey is k as a key in agentgate.toml: bare when it can be, else
// quoted.
func TOMLKey(k string) string {
	if IsEnvName(strings.ReplaceAll(k, "-", "_")) {
		return k
	}
	return fmt.Sprintf("%q", k)
}

// ParseTOMLKey parses a dotted key (bare, "basic" or 'literal' parts) at the
// start of s and returns its parts and the rest of s.
func ParseTOMLKey(s string) (keys []string, rest string, ok bool) {
	for {
		s = strings.TrimLeft(s, " \t")
		if s == "" {
			return nil, "", false
		}
		switch s[0] {
		case '"':
			end := 1
			for end < len(s) && s[end] != '"' {
				if s[end] == '\\' {
					end++
				}
				end++
			}
			if end >= len(s) {
				return nil, "", false
			}
			k, err := strconv.Unquote(s[:end+1])
			if err != nil {
				k = s[1:end]
			}
			keys, s = append(keys, k), s[end+1:]
		case '\'':
			end := strings.IndexByte(s[1:], '\'')
			if end < 0 {
				return nil, "", false
			}
			keys, s = append(keys, s[1:end+1]), s[end+2:]
		default:
			end := 0
			for end < len(s) && (s[end] == '_' || s[end] == '-' || s[end] >= '0' && s[end] <= '9' ||
				s[end] >= 'a' && s[end] <= 'z' || s[end] >= 'A' && s[end] <= 'Z') {
				end++
			}
			if end == 0 {
				return nil, "", false
			}
			keys, s = append(keys, s[:end]), s[end:]
		}
		s = strings.TrimLeft(s, " \t")
		if !strings.HasPrefix(s, ".") {
			return keys, s, true
		}
		s = s[1:]
	}
}
