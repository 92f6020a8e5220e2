package lock

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// scanner is a strict JSON tokenizer over a byte slice, used by Parse. It
// rejects everything Canonicalize rejects (invalid UTF-8, lone surrogates,
// non-finite numbers) and reports byte offsets so errors can name a line.
type scanner struct {
	data []byte
	src  string // string(data), so that plain strings are substrings of one copy
	i    int
}

// syntaxError is invalid JSON at byte offset off.
type syntaxError struct {
	off int
	msg string
}

func (e *syntaxError) Error() string { return e.msg }

func (s *scanner) fail(format string, args ...any) error {
	return &syntaxError{off: s.i, msg: fmt.Sprintf(format, args...)}
}

func (s *scanner) ws() {
	// A line end and indentation, as Format writes them: eight spaces at a
	// time.
	if s.i < len(s.data) && s.data[s.i] == '\n' {
		s.i++
		for s.i+8 <= len(s.data) && binary.LittleEndian.Uint64(s.data[s.i:]) == 0x2020202020202020 {
			s.i += 8
		}
	}
	for s.i < len(s.data) {
		switch s.data[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// peek skips whitespace and returns the next byte, 0 at the end.
func (s *scanner) peek() byte {
	s.ws()
	if s.i >= len(s.data) {
		return 0
	}
	return s.data[s.i]
}

// expect skips whitespace and consumes c.
func (s *scanner) expect(c byte) error {
	switch got := s.peek(); {
	case got == c:
		s.i++
		return nil
	case got == 0:
		return s.fail("invalid JSON: unexpected end of file, want %q", c)
	default:
		return s.fail("invalid JSON: unexpected %s, want %q", describeByte(got), c)
	}
}

func describeByte(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return strconv.QuoteRune(rune(c))
	}
	return fmt.Sprintf("byte 0x%02x", c)
}

// kind names the JSON type of the value starting with c, for messages.
func kind(c byte) string {
	switch {
	case c == '"':
		return "a string"
	case c == '{':
		return "an object"
	case c == '[':
		return "an array"
	case c == 't' || c == 'f':
		return "a boolean"
	case c == 'n':
		return "null"
	case c == '-' || ('0' <= c && c <= '9'):
		return "a number"
	}
	return "invalid JSON"
}

// str consumes one string and returns its decoded value.
func (s *scanner) str() (string, error) { return s.scanStr(true) }

// skipStr consumes one string, checking it, without decoding it.
func (s *scanner) skipStr() error {
	_, err := s.scanStr(false)
	return err
}

func (s *scanner) scanStr(keep bool) (string, error) {
	if err := s.expect('"'); err != nil {
		return "", err
	}
	start := s.i
	for s.i+8 <= len(s.data) && plain8(binary.LittleEndian.Uint64(s.data[s.i:])) {
		s.i += 8
	}
	for s.i < len(s.data) && plainByte[s.data[s.i]] {
		s.i++
	}
	if s.i < len(s.data) && s.data[s.i] == '"' { // the common case: plain ASCII
		s.i++
		if !keep {
			return "", nil
		}
		if s.src != "" {
			return s.src[start : s.i-1], nil
		}
		return string(s.data[start : s.i-1]), nil
	}
	var b []byte
	if keep {
		b = append(b, s.data[start:s.i]...)
	}
	for {
		if s.i >= len(s.data) {
			return "", s.fail("invalid JSON: unterminated string")
		}
		c := s.data[s.i]
		switch {
		case c == '"':
			s.i++
			if !keep {
				return "", nil
			}
			return string(b), nil
		case c == '\\':
			r, err := s.escape()
			if err != nil {
				return "", err
			}
			b = utf8.AppendRune(b, r)
		case c < 0x20:
			return "", s.fail("invalid JSON: control character %s in a string must be escaped", describeByte(c))
		case c < 0x80:
			b = append(b, c)
			s.i++
		default:
			r, n := utf8.DecodeRune(s.data[s.i:])
			if r == utf8.RuneError && n <= 1 {
				return "", s.fail("invalid UTF-8 (byte 0x%02x) in a string", c)
			}
			b = append(b, s.data[s.i:s.i+n]...)
			s.i += n
		}
	}
}

// escape consumes one escape sequence (at a backslash) and returns its rune.
func (s *scanner) escape() (rune, error) {
	if s.i+1 >= len(s.data) {
		return 0, s.fail("invalid JSON: unterminated string")
	}
	c := s.data[s.i+1]
	s.i += 2
	switch c {
	case '"', '\\', '/':
		return rune(c), nil
	case 'b':
		return '\b', nil
	case 'f':
		return '\f', nil
	case 'n':
		return '\n', nil
	case 'r':
		return '\r', nil
	case 't':
		return '\t', nil
	case 'u':
		r, err := s.hex4()
		if err != nil {
			return 0, err
		}
		if utf16.IsSurrogate(r) {
			if r >= 0xdc00 || !bytes.HasPrefix(s.data[s.i:], []byte(`\u`)) {
				return 0, s.fail("invalid JSON: lone surrogate \\u%04x in a string", r)
			}
			s.i += 2
			r2, err := s.hex4()
			if err != nil {
				return 0, err
			}
			d := utf16.DecodeRune(r, r2)
			if d == utf8.RuneError {
				return 0, s.fail("invalid JSON: lone surrogate \\u%04x in a string", r)
			}
			return d, nil
		}
		return r, nil
	}
	s.i--
	return 0, s.fail("invalid JSON: invalid escape \\%s in a string", string(rune(c)))
}

func (s *scanner) hex4() (rune, error) {
	if s.i+4 > len(s.data) {
		return 0, s.fail("invalid JSON: truncated \\u escape")
	}
	v, err := strconv.ParseUint(string(s.data[s.i:s.i+4]), 16, 32)
	if err != nil || s.data[s.i] == '+' || s.data[s.i] == '-' {
		return 0, s.fail("invalid JSON: invalid \\u escape")
	}
	s.i += 4
	return rune(v), nil
}

// number consumes one number and returns its text.
func (s *scanner) number() ([]byte, error) {
	s.ws()
	start := s.i
	d := s.data
	if s.i < len(d) && d[s.i] == '-' {
		s.i++
	}
	digits := func() int {
		n := 0
		for s.i < len(d) && '0' <= d[s.i] && d[s.i] <= '9' {
			s.i++
			n++
		}
		return n
	}
	intStart := s.i
	if n := digits(); n == 0 || (n > 1 && d[intStart] == '0') {
		s.i = start
		return nil, s.fail("invalid JSON: invalid number")
	}
	if s.i < len(d) && d[s.i] == '.' {
		s.i++
		if digits() == 0 {
			return nil, s.fail("invalid JSON: invalid number")
		}
	}
	if s.i < len(d) && (d[s.i] == 'e' || d[s.i] == 'E') {
		s.i++
		if s.i < len(d) && (d[s.i] == '+' || d[s.i] == '-') {
			s.i++
		}
		if digits() == 0 {
			return nil, s.fail("invalid JSON: invalid number")
		}
	}
	text := d[start:s.i]
	if _, err := strconv.ParseFloat(string(text), 64); err != nil {
		s.i = start
		return nil, s.fail("invalid JSON: number %s is not a finite double", clip(string(text)))
	}
	return text, nil
}

// maxDepth bounds the nesting skip accepts, as encoding/json does.
const maxDepth = 10000

// skip consumes one value of any type, checking that it is valid.
func (s *scanner) skip(depth int) error {
	if depth > maxDepth {
		return s.fail("invalid JSON: nested too deeply")
	}
	switch c := s.peek(); c {
	case '"':
		return s.skipStr()
	case '{':
		s.i++
		if s.peek() == '}' {
			s.i++
			return nil
		}
		for {
			if err := s.skipStr(); err != nil {
				return err
			}
			if err := s.expect(':'); err != nil {
				return err
			}
			if err := s.skip(depth + 1); err != nil {
				return err
			}
			if done, err := s.next('}'); done || err != nil {
				return err
			}
		}
	case '[':
		s.i++
		if s.peek() == ']' {
			s.i++
			return nil
		}
		for {
			if err := s.skip(depth + 1); err != nil {
				return err
			}
			if done, err := s.next(']'); done || err != nil {
				return err
			}
		}
	case 't':
		return s.literal("true")
	case 'f':
		return s.literal("false")
	case 'n':
		return s.literal("null")
	case 0:
		return s.fail("invalid JSON: unexpected end of file, want a value")
	default:
		if c == '-' || ('0' <= c && c <= '9') {
			_, err := s.number()
			return err
		}
		return s.fail("invalid JSON: unexpected %s, want a value", describeByte(c))
	}
}

// next consumes the ',' between elements or the closing byte; done reports
// the latter.
func (s *scanner) next(closing byte) (done bool, err error) {
	switch c := s.peek(); c {
	case ',':
		s.i++
		return false, nil
	case closing:
		s.i++
		return true, nil
	case 0:
		return false, s.fail("invalid JSON: unexpected end of file, want ',' or %q", closing)
	default:
		return false, s.fail("invalid JSON: unexpected %s, want ',' or %q", describeByte(c), closing)
	}
}

func (s *scanner) literal(lit string) error {
	if !bytes.HasPrefix(s.data[s.i:], []byte(lit)) {
		return s.fail("invalid JSON: unexpected %s, want a value", describeByte(s.data[s.i]))
	}
	s.i += len(lit)
	return nil
}

// line returns the 1-based line of byte offset off.
func line(data []byte, off int) int {
	return 1 + bytes.Count(data[:min(off, len(data))], []byte("\n"))
}
