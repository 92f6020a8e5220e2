package config

import (
	"fmt"

	"github.com/agentgate/agentgate/mcp/config/syntax"
)

// maxDepth bounds the nesting of arrays and objects (tables) in every
// config file. The JSON and TOML libraries recurse once per level, and a
// few megabytes of "[" overflow the goroutine stack (a fatal error, not a
// panic), so the limit is checked by a scan before they run. Real configs
// nest fewer than ten levels.
const maxDepth = 64

// checkJSONDepth scans JSON with comments for a nesting deeper than
// maxDepth, skipping strings and comments, and reports the position of
// the first bracket past the limit.
func checkJSONDepth(file string, data []byte) *Error {
	depth := 0
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case '"':
			for i++; i < len(data) && data[i] != '"'; i++ {
				if data[i] == '\\' {
					i++
				}
			}
		case '/':
			if i+1 < len(data) && data[i+1] == '/' {
				for i < len(data) && data[i] != '\n' {
					i++
				}
			} else if i+1 < len(data) && data[i+1] == '*' {
				i += 2
				for i+1 < len(data) && (data[i] != '*' || data[i+1] != '/') {
					i++
				}
				i++
			}
		case '[', '{':
			if depth++; depth > maxDepth {
				return tooDeep(file, data, i)
			}
		case ']', '}':
			depth--
		}
	}
	return nil
}

// checkTOMLDepth is checkJSONDepth for TOML: it skips basic, literal and
// multi-line strings and # comments, and counts the brackets of arrays
// and inline tables (a table header counts as one or two levels).
func checkTOMLDepth(file string, data []byte) *Error {
	depth := 0
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case '"', '\'':
			if i+2 < len(data) && data[i+1] == c && data[i+2] == c {
				for i += 3; i < len(data) && !(data[i] == c && i+2 < len(data) && data[i+1] == c && data[i+2] == c); i++ {
					if c == '"' && data[i] == '\\' {
						i++
					}
				}
				i += 2
				continue
			}
			for i++; i < len(data) && data[i] != c && data[i] != '\n'; i++ {
				if c == '"' && data[i] == '\\' {
					i++
				}
			}
		case '#':
			for i < len(data) && data[i] != '\n' {
				i++
			}
		case '[', '{':
			if depth++; depth > maxDepth {
				return tooDeep(file, data, i)
			}
		case ']', '}':
			depth--
		}
	}
	return nil
}

func tooDeep(file string, data []byte, off int) *Error {
	line, col := syntax.OffsetPos(data, off)
	return &Error{File: file, Line: line, Column: col, kind: "nested too deeply",
		Msg:  fmt.Sprintf("nested more than %d levels deep", maxDepth),
		Hint: "a client config never needs this; check that the file is the config you meant"}
}
