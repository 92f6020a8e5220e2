package configedit

import (
	"bytes"
	"slices"
	"strconv"
	"strings"

	"github.com/agentgate/agentgate/mcp/config"
	"github.com/agentgate/agentgate/mcp/config/syntax"
)

// locateTOML finds Codex's [mcp_servers.NAME] entries in a TOML file with a
// scanner that follows TOML's grammar far enough to skip every value
// (multi-line strings and arrays included) and to read single-line
// strings and arrays of them exactly. Values it cannot read this way
// (multi-line strings, numbers where a string is expected) are left
// unlocated; check then refuses an edit that needs them.
func locateTOML(d *doc) error {
	s := tomlScanner{b: d.data}
	var table []string
	byName := map[string]*entry{}
	get := func(name string) *entry {
		if e := byName[name]; e != nil {
			return e
		}
		e := &entry{name: name, field: "command", argsField: "args", lineEnd: -1}
		byName[name] = e
		d.entries = append(d.entries, e)
		return e
	}
	for s.i < len(s.b) {
		lineStart := s.i
		s.spaces()
		indent := string(s.b[lineStart:s.i])
		switch {
		case s.i >= len(s.b):
		case s.b[s.i] == '\n' || s.b[s.i] == '\r' || s.b[s.i] == '#':
			s.toEOL()
			continue
		case s.b[s.i] == '[':
			keys, _, ok := syntax.ParseTOMLKey(strings.TrimLeft(string(s.b[s.i:s.lineEnd()]), "["))
			if !ok {
				return &config.Error{File: d.file, Msg: "cannot edit: unreadable table header"}
			}
			table = keys
			if len(keys) == 2 && keys[0] == "mcp_servers" {
				e := get(keys[1])
				e.line = d.lineOf(s.i)
			}
			if len(keys) > 2 && keys[0] == "mcp_servers" {
				e := get(keys[1])
				e.members = append(e.members, mspan{name: keys[2], start: s.i, end: s.lineEnd(), sub: true})
			}
			s.toEOL()
			continue
		}
		keys, rest, ok := syntax.ParseTOMLKey(string(s.b[s.i:s.lineEnd()]))
		if !ok || !strings.HasPrefix(strings.TrimLeft(rest, " \t"), "=") {
			return &config.Error{File: d.file, Msg: "cannot edit: unreadable key"}
		}
		s.i = s.lineEnd() - len(rest)
		s.spaces()
		s.i++ // '='
		s.spaces()
		full := slices.Concat(table, keys)
		valStart := s.i
		keyStart := lineStart + len(indent)
		defer0 := func() {} // records the member once its value is skipped
		switch {
		case len(full) == 2 && full[0] == "mcp_servers":
			e := get(full[1])
			e.inline = true
			if e.line == 0 {
				e.line = d.lineOf(lineStart)
			}
			if s.i < len(s.b) && s.b[s.i] == '{' {
				s.inlineEntry(e) // mcp_servers.NAME = { command = "...", args = [...] }
			}
		case len(full) > 2 && full[0] == "mcp_servers":
			e := get(full[1])
			sub := len(table) != 2 || len(keys) != 1
			defer0 = func() {
				e.members = append(e.members, mspan{name: full[2], start: keyStart, end: s.lineEnd(), sub: sub,
					empty: tomlEmpty(string(s.b[valStart:s.i]))})
			}
		}
		if len(full) == 3 && full[0] == "mcp_servers" && (full[2] == "command" || full[2] == "args") {
			e := get(full[1])
			if e.line == 0 {
				e.line = d.lineOf(lineStart)
			}
			if full[2] == "command" {
				e.cmdAt = s.i
				e.cmd = s.str()
				if e.cmd != nil && len(keys) == 1 {
					e.indent = indent
					s.spaces()
					if s.i < len(s.b) && (s.b[s.i] == '\r' || s.b[s.i] == '\n' || s.b[s.i] == '#') {
						e.lineEnd = s.lineEnd()
					}
				}
			} else {
				e.argsSeen = true
				e.args = s.array()
				if e.args != nil && len(keys) == 1 {
					d.argsLine(e, "args = ")
				}
			}
			if s.i == valStart {
				s.skipValue()
			}
		} else {
			s.skipValue()
		}
		defer0()
		s.toEOL()
	}
	return nil
}

// inlineEntry reads the inline table at s.i, a server written as
// NAME = { command = "...", args = [...], ... }: it locates command and
// args as locateTOML does for a [mcp_servers.NAME] table, and skips every
// other member. s.i ends after the closing brace, or where it stopped
// reading (check then refuses what it could not locate).
func (s *tomlScanner) inlineEntry(e *entry) {
	s.i++ // '{'
	for {
		s.blank()
		if s.i >= len(s.b) {
			return
		}
		switch s.b[s.i] {
		case '}':
			s.i++
			return
		case ',':
			s.i++
			continue
		}
		end := s.i
		for end < len(s.b) && s.b[end] != '=' && s.b[end] != '\n' {
			end++
		}
		keys, rest, ok := syntax.ParseTOMLKey(string(s.b[s.i:end]))
		if !ok || rest != "" || end >= len(s.b) || s.b[end] != '=' {
			return
		}
		s.i = end + 1
		s.spaces()
		valStart := s.i
		switch {
		case len(keys) == 1 && keys[0] == "command":
			e.cmdAt = s.i
			e.cmd = s.str()
		case len(keys) == 1 && keys[0] == "args":
			e.argsSeen = true
			e.args = s.array()
		}
		if s.i == valStart {
			s.skipValue()
		}
	}
}

// tomlEmpty reports whether a TOML value as written is "", ”, [] or {}.
func tomlEmpty(v string) bool {
	v = strings.Join(strings.Fields(v), "")
	return v == `""` || v == "''" || v == "[]" || v == "{}"
}

type tomlScanner struct {
	b []byte
	i int
}

func (s *tomlScanner) spaces() {
	for s.i < len(s.b) && (s.b[s.i] == ' ' || s.b[s.i] == '\t') {
		s.i++
	}
}

// lineEnd is the offset of the end of the current line (its "\r\n" or
// "\n", or the end of the file).
func (s *tomlScanner) lineEnd() int { return lineEndAt(s.b, s.i) }

// toEOL moves past the rest of the line and its newline.
func (s *tomlScanner) toEOL() {
	for s.i < len(s.b) && s.b[s.i] != '\n' {
		s.i++
	}
	if s.i < len(s.b) {
		s.i++
	}
}

// blank skips whitespace, newlines and comments (inside arrays).
func (s *tomlScanner) blank() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\r', '\n':
			s.i++
		case '#':
			for s.i < len(s.b) && s.b[s.i] != '\n' {
				s.i++
			}
		default:
			return
		}
	}
}

// str reads a single-line basic or literal string at s.i; nil (and s.i
// unchanged) for anything else.
func (s *tomlScanner) str() *tok {
	start := s.i
	if s.i >= len(s.b) {
		return nil
	}
	q := s.b[s.i]
	if q != '"' && q != '\'' || bytes.HasPrefix(s.b[s.i:], []byte(`"""`)) || bytes.HasPrefix(s.b[s.i:], []byte("'''")) {
		return nil
	}
	j := s.i + 1
	for j < len(s.b) && s.b[j] != q && s.b[j] != '\n' {
		if q == '"' && s.b[j] == '\\' {
			j++
		}
		j++
	}
	if j >= len(s.b) || s.b[j] != q {
		return nil
	}
	raw := string(s.b[start : j+1])
	val := raw[1 : len(raw)-1]
	if q == '"' {
		v, ok := tomlUnquote(raw)
		if !ok {
			return nil
		}
		val = v
	}
	s.i = j + 1
	return &tok{start: start, end: j + 1, val: val}
}

// tomlUnquote decodes a TOML basic string (its escapes are JSON's plus
// \e and \UXXXXXXXX, and \xHH in TOML 1.1) through strconv, refusing
// what it does not know.
func tomlUnquote(raw string) (string, bool) {
	inner := raw[1 : len(raw)-1]
	if strings.Contains(inner, `\'`) || strings.Contains(inner, `\x`) || strings.Contains(inner, `\a`) || strings.Contains(inner, `\v`) {
		return "", false
	}
	v, err := strconv.Unquote(`"` + strings.ReplaceAll(inner, `\e`, `\x1b`) + `"`)
	return v, err == nil
}

// array reads an array of single-line strings at s.i; nil (and s.i
// unchanged) for anything else.
func (s *tomlScanner) array() *seq {
	start := s.i
	if s.i >= len(s.b) || s.b[s.i] != '[' {
		return nil
	}
	a := &seq{open: s.i}
	s.i++
	for {
		s.blank()
		if s.i >= len(s.b) {
			s.i = start
			return nil
		}
		if s.b[s.i] == ']' {
			a.close = s.i
			s.i++
			return a
		}
		t := s.str()
		if t == nil {
			s.i = start
			return nil
		}
		a.items = append(a.items, *t)
		s.blank()
		if s.i < len(s.b) && s.b[s.i] == ',' {
			s.i++
		}
	}
}

// skipValue moves past one TOML value of any kind.
func (s *tomlScanner) skipValue() {
	if s.i >= len(s.b) {
		return
	}
	switch c := s.b[s.i]; {
	case bytes.HasPrefix(s.b[s.i:], []byte(`"""`)) || bytes.HasPrefix(s.b[s.i:], []byte("'''")):
		q := string(s.b[s.i : s.i+3])
		j := s.i + 3
		for j < len(s.b) {
			if q == `"""` && s.b[j] == '\\' {
				j += 2
				continue
			}
			if bytes.HasPrefix(s.b[j:], []byte(q)) {
				j += 3
				for j < len(s.b) && s.b[j] == q[0] { // up to two quotes may end the content
					j++
				}
				break
			}
			j++
		}
		s.i = j
	case c == '"' || c == '\'':
		if s.str() == nil {
			s.toEOL()
		}
	case c == '[' || c == '{':
		close := byte(']')
		if c == '{' {
			close = '}'
		}
		s.i++
		for {
			s.blank()
			if s.i >= len(s.b) {
				return
			}
			if s.b[s.i] == close {
				s.i++
				return
			}
			if s.b[s.i] == ',' {
				s.i++
				continue
			}
			if c == '{' {
				// key = value
				for s.i < len(s.b) && s.b[s.i] != '=' && s.b[s.i] != '\n' {
					if s.b[s.i] == '"' || s.b[s.i] == '\'' {
						if s.str() == nil {
							return
						}
						continue
					}
					s.i++
				}
				if s.i < len(s.b) && s.b[s.i] == '=' {
					s.i++
				}
				s.spaces()
			}
			before := s.i
			s.skipValue()
			if s.i == before {
				s.i++
			}
		}
	default:
		for s.i < len(s.b) && !strings.ContainsRune(",]}#\r\n", rune(s.b[s.i])) {
			s.i++
		}
	}
}
