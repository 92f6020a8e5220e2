package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/agentgate/agentgate/internal/safetext"
)

// PrettyJSON renders one untrusted JSON text for a reviewer: object members
// sorted as in canonical JSON (RFC 8785: by UTF-16 code units), 2-space
// indent, numbers as sent, strings quoted with " and \ escaped and every
// other character shown through VisibleLine. ok is false when raw is not
// one well-formed JSON text in UTF-8 without duplicate member names; the
// text is then Visible(raw) and reason says what is wrong.
func PrettyJSON(raw []byte) (text string, ok bool, reason string) {
	fallback := func(why string) (string, bool, string) { return safetext.Visible(string(raw)), false, why }
	if !utf8.Valid(raw) {
		return fallback("invalid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	v, err := parseValue(dec)
	if err != nil {
		return fallback(err.Error())
	}
	if _, err := dec.Token(); err != io.EOF {
		return fallback("more than one JSON value")
	}
	var b strings.Builder
	writeValue(&b, v, "")
	return b.String(), true, ""
}

type member struct {
	key string
	val any
}

type object []member

func parseValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("not valid JSON: %v", err)
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			var o object
			seen := map[string]bool{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, fmt.Errorf("not valid JSON: %v", err)
				}
				k := kt.(string)
				if seen[k] {
					return nil, fmt.Errorf("duplicate member name %q", safetext.VisibleLine(k))
				}
				seen[k] = true
				v, err := parseValue(dec)
				if err != nil {
					return nil, err
				}
				o = append(o, member{k, v})
			}
			if _, err := dec.Token(); err != nil {
				return nil, fmt.Errorf("not valid JSON: %v", err)
			}
			sort.Slice(o, func(i, j int) bool { return utf16Less(o[i].key, o[j].key) })
			return o, nil
		case '[':
			a := []any{}
			for dec.More() {
				v, err := parseValue(dec)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, fmt.Errorf("not valid JSON: %v", err)
			}
			return a, nil
		}
		return nil, fmt.Errorf("not valid JSON: unexpected %v", t)
	default:
		return t, nil
	}
}

func utf16Less(a, b string) bool {
	ua, ub := utf16.Encode([]rune(a)), utf16.Encode([]rune(b))
	for i := 0; i < len(ua) && i < len(ub); i++ {
		if ua[i] != ub[i] {
			return ua[i] < ub[i]
		}
	}
	return len(ua) < len(ub)
}

func writeValue(b *strings.Builder, v any, indent string) {
	switch t := v.(type) {
	case object:
		if len(t) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteString("{\n")
		for i, m := range t {
			b.WriteString(indent + "  ")
			writeString(b, m.key)
			b.WriteString(": ")
			writeValue(b, m.val, indent+"  ")
			if i < len(t)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "}")
	case []any:
		if len(t) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteString("[\n")
		for i, e := range t {
			b.WriteString(indent + "  ")
			writeValue(b, e, indent+"  ")
			if i < len(t)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "]")
	case string:
		writeString(b, t)
	case json.Number:
		b.WriteString(string(t))
	case bool:
		fmt.Fprint(b, t)
	case nil:
		b.WriteString("null")
	}
}

func writeString(b *strings.Builder, s string) {
	s = strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s)
	b.WriteByte('"')
	b.WriteString(safetext.VisibleLine(s))
	b.WriteByte('"')
}

// SuspiciousJSON is Suspicious for a JSON text: it looks at the raw bytes
// and at every string (member names and values) after unescaping, where
// "\u202e" hides a bidi control from a byte scan.
func SuspiciousJSON(raw []byte) []string {
	var all strings.Builder
	all.Write(raw)
	dec := json.NewDecoder(bytes.NewReader(raw))
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		if s, ok := tok.(string); ok {
			all.WriteByte(' ')
			all.WriteString(s)
		}
	}
	return safetext.Suspicious(all.String())
}
