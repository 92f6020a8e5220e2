package syntax

import (
	"bytes"
	"strconv"
	"strings"
)

// TOMLEntry is one table header or one "key = value" line of a TOML file,
// as WalkTOML reports it.
type TOMLEntry struct {
	// Header is set for a [table] or [[array]] header.
	Header bool
	// Bad is set for a line that is neither a header WalkTOML can read nor
	// "key = value" with a key it can read; the other fields are then
	// unset but Header (a line starting with '[') and Start (the line's
	// first non-blank byte).
	Bad bool
	// Table is the keys of the table the entry is in (for a header, its
	// own keys); Keys is the key's own dotted parts (for a header, Table).
	Table, Keys []string
	// Start is the offset of the key, or of a header's first '['.
	Start int
	// ValStart and ValEnd delimit the value as written ("key = value"
	// only): ValEnd is where WalkTOML stopped skipping it.
	ValStart, ValEnd int
}

// Path is the entry's full key path: Table and then Keys (for a header,
// its keys).
func (e *TOMLEntry) Path() []string {
	if e.Header {
		return e.Table
	}
	return append(e.Table[:len(e.Table):len(e.Table)], e.Keys...)
}

// WalkTOML reads a TOML document line by line as TOML's grammar orders
// it, calling visit for each table header and each top-level "key =
// value" (keys inside inline tables are part of their value), and skips
// each value whole: multi-line strings, arrays and inline tables
// included. It stops at the first error visit returns and returns it.
//
// maxDepth (when > 0) bounds the nesting of arrays and inline tables (a
// header's brackets count as its levels): deep is the offset of the
// first '[' or '{' past it, or -1, and the walk stops there.
func WalkTOML(b []byte, maxDepth int, visit func(e *TOMLEntry) error) (deep int, err error) {
	s := TOMLScanner{B: b, MaxDepth: maxDepth, Deep: -1}
	src := string(b) // keys are read from it, each line without a copy
	var table []string
	var e TOMLEntry
	for s.I < len(s.B) && s.Deep < 0 {
		s.Spaces()
		if s.I >= len(s.B) {
			break
		}
		e = TOMLEntry{Start: s.I}
		switch c := s.B[s.I]; {
		case c == '\n' || c == '\r' || c == '#':
			s.ToEOL()
			continue
		case c == '[':
			e.Header = true
			line := src[s.I:s.LineEnd()]
			inner := strings.TrimLeft(line, "[")
			if n := len(line) - len(inner); maxDepth > 0 && n > maxDepth {
				s.Deep = s.I + maxDepth
				break
			}
			keys, _, ok := ParseTOMLKey(inner)
			if e.Bad = !ok; ok {
				table = keys
				e.Table, e.Keys = keys, keys
			}
		default:
			s.keyValue(src, &e, table)
		}
		if s.Deep >= 0 {
			break
		}
		if err := visit(&e); err != nil {
			return s.Deep, err
		}
		s.ToEOL()
	}
	return s.Deep, nil
}

// keyValue reads "key = value" at s.I into e and skips the value;
// src is B as a string.
func (s *TOMLScanner) keyValue(src string, e *TOMLEntry, table []string) {
	end := s.LineEnd()
	keys, rest, ok := ParseTOMLKey(src[s.I:end])
	if !ok || !strings.HasPrefix(strings.TrimLeft(rest, " \t"), "=") {
		e.Bad = true
		return
	}
	e.Table, e.Keys = table, keys
	s.I = end - len(rest)
	s.Spaces()
	s.I++ // '='
	s.Spaces()
	e.ValStart = s.I
	s.SkipValue()
	e.ValEnd = s.I
}

// TOMLScanner reads TOML at byte offsets: B is the document and I the
// offset it has read to. Its readers follow TOML's grammar far enough to
// skip every value (multi-line strings and arrays included) and to read
// single-line strings and arrays of them exactly.
type TOMLScanner struct {
	B []byte
	I int
	// MaxDepth (when > 0) bounds the nesting SkipValue follows; Deep is
	// the offset of the first '[' or '{' past it, or -1. SkipValue stops
	// at the end of B once Deep is set.
	MaxDepth, Deep int
	depth          int
}

// TOMLString is a string value as written: B[Start:End] is its text
// (quotes included), Val what it decodes to.
type TOMLString struct {
	Start, End int
	Val        string
}

// TOMLArray is an array of strings as written: Open and Close are the
// offsets of its '[' and ']'.
type TOMLArray struct {
	Open, Close int
	Items       []TOMLString
}

// Spaces moves past spaces and tabs.
func (s *TOMLScanner) Spaces() {
	for s.I < len(s.B) && (s.B[s.I] == ' ' || s.B[s.I] == '\t') {
		s.I++
	}
}

// LineEnd is the offset of the end of the current line, before its
// "\r\n" or "\n" (or the end of the file).
func (s *TOMLScanner) LineEnd() int {
	j := len(s.B)
	if n := bytes.IndexByte(s.B[s.I:], '\n'); n >= 0 {
		j = s.I + n
	}
	if j > s.I && s.B[j-1] == '\r' {
		j--
	}
	return j
}

// ToEOL moves past the rest of the line and its newline.
func (s *TOMLScanner) ToEOL() {
	if n := bytes.IndexByte(s.B[s.I:], '\n'); n >= 0 {
		s.I += n + 1
	} else {
		s.I = len(s.B)
	}
}

// Blank moves past whitespace, newlines and comments (inside arrays).
func (s *TOMLScanner) Blank() {
	for s.I < len(s.B) {
		switch s.B[s.I] {
		case ' ', '\t', '\r', '\n':
			s.I++
		case '#':
			for s.I < len(s.B) && s.B[s.I] != '\n' {
				s.I++
			}
		default:
			return
		}
	}
}

// Str reads a single-line basic or literal string at s.I; ok false (and
// s.I unchanged) for anything else.
func (s *TOMLScanner) Str() (t TOMLString, ok bool) {
	start := s.I
	if s.I >= len(s.B) {
		return t, false
	}
	q := s.B[s.I]
	if q != '"' && q != '\'' || s.tripleQuote() {
		return t, false
	}
	j := s.strEnd()
	if j < 0 {
		return t, false
	}
	raw := string(s.B[start : j+1])
	val := raw[1 : len(raw)-1]
	if q == '"' {
		v, ok := tomlUnquote(raw)
		if !ok {
			return t, false
		}
		val = v
	}
	s.I = j + 1
	return TOMLString{Start: start, End: j + 1, Val: val}, true
}

// strEnd is the offset of the closing quote of the single-line string
// at s.I, or -1 when it does not end on its line.
func (s *TOMLScanner) strEnd() int {
	q := s.B[s.I]
	j := s.I + 1
	for j < len(s.B) && s.B[j] != q && s.B[j] != '\n' {
		if q == '"' && s.B[j] == '\\' {
			j++
		}
		j++
	}
	if j >= len(s.B) || s.B[j] != q {
		return -1
	}
	return j
}

// skipStr moves past the single-line string at s.I without decoding it
// (Str refuses escapes it does not know, such as TOML 1.1's \xHH); false
// (and s.I unchanged) when it does not end on its line.
func (s *TOMLScanner) skipStr() bool {
	j := s.strEnd()
	if j < 0 {
		return false
	}
	s.I = j + 1
	return true
}

func (s *TOMLScanner) tripleQuote() bool {
	return bytes.HasPrefix(s.B[s.I:], []byte(`"""`)) || bytes.HasPrefix(s.B[s.I:], []byte("'''"))
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

// Array reads an array of single-line strings at s.I; ok false (and s.I
// unchanged) for anything else.
func (s *TOMLScanner) Array() (a TOMLArray, ok bool) {
	start := s.I
	if s.I >= len(s.B) || s.B[s.I] != '[' {
		return a, false
	}
	a.Open = s.I
	s.I++
	for {
		s.Blank()
		if s.I >= len(s.B) {
			s.I = start
			return TOMLArray{}, false
		}
		if s.B[s.I] == ']' {
			a.Close = s.I
			s.I++
			return a, true
		}
		t, ok := s.Str()
		if !ok {
			s.I = start
			return TOMLArray{}, false
		}
		a.Items = append(a.Items, t)
		s.Blank()
		if s.I < len(s.B) && s.B[s.I] == ',' {
			s.I++
		}
	}
}

// SkipValue moves past one TOML value of any kind.
func (s *TOMLScanner) SkipValue() {
	if s.I >= len(s.B) {
		return
	}
	switch c := s.B[s.I]; {
	case s.tripleQuote():
		s.skipMultiline()
	case c == '"' || c == '\'':
		if !s.skipStr() {
			s.ToEOL()
		}
	case c == '[' || c == '{':
		s.skipNested(c)
	default:
		for s.I < len(s.B) && !strings.ContainsRune(",]}#\r\n", rune(s.B[s.I])) {
			s.I++
		}
	}
}

// skipMultiline moves past the multi-line string at s.I.
func (s *TOMLScanner) skipMultiline() {
	q := s.B[s.I : s.I+3]
	j := s.I + 3
	for j < len(s.B) {
		if q[0] == '"' && s.B[j] == '\\' {
			j += 2
			continue
		}
		if bytes.HasPrefix(s.B[j:], q) {
			j += 3
			for j < len(s.B) && s.B[j] == q[0] { // up to two quotes may end the content
				j++
			}
			break
		}
		j++
	}
	s.I = min(j, len(s.B))
}

// skipNested moves past the array or inline table at s.I, whose opening
// bracket is c.
func (s *TOMLScanner) skipNested(c byte) {
	if s.depth++; s.MaxDepth > 0 && s.depth > s.MaxDepth {
		s.Deep, s.I = s.I, len(s.B)
		return
	}
	defer func() { s.depth-- }()
	closer := byte(']')
	if c == '{' {
		closer = '}'
	}
	s.I++
	for {
		s.Blank()
		if s.I >= len(s.B) {
			return
		}
		switch s.B[s.I] {
		case closer:
			s.I++
			return
		case ',':
			s.I++
			continue
		}
		if c == '{' && !s.skipInlineKey() {
			return
		}
		before := s.I
		s.SkipValue()
		if s.I == before {
			s.I++
		}
	}
}

// skipInlineKey moves past "key =" in an inline table; false where a
// quoted key does not end on its line.
func (s *TOMLScanner) skipInlineKey() bool {
	for s.I < len(s.B) && s.B[s.I] != '=' && s.B[s.I] != '\n' {
		if s.B[s.I] == '"' || s.B[s.I] == '\'' {
			if !s.skipStr() {
				return false
			}
			continue
		}
		s.I++
	}
	if s.I < len(s.B) && s.B[s.I] == '=' {
		s.I++
	}
	s.Spaces()
	return true
}
