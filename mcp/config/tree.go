package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/tailscale/hujson"
)

// pos is a 1-based line and byte column in a file; 0 means unknown.
type pos struct{ line, col int }

type kind uint8

const (
	kNull kind = iota
	kBool
	kNum
	kStr
	kObj
	kArr
)

func (k kind) String() string {
	return [...]string{"null", "a boolean", "a number", "a string", "an object", "an array"}[k]
}

// node is a parsed JSON, YAML or TOML value with the position of its first
// byte. Object members keep their order and the position of their key.
type node struct {
	kind   kind
	pos    pos
	str    string // string value; raw text of a number
	b      bool
	keys   []string
	keyPos []pos
	vals   []*node
	items  []*node
}

// get returns the first member named key of an object, or nil.
func (n *node) get(key string) *node {
	if n == nil || n.kind != kObj {
		return nil
	}
	for i, k := range n.keys {
		if k == key {
			return n.vals[i]
		}
	}
	return nil
}

// has reports whether an object has a member named key (even null).
func (n *node) has(key string) bool { return n.get(key) != nil }

// maxFileSize bounds every config file agentgate reads.
const maxFileSize = 4 << 20

// lineIndex maps byte offsets to positions.
type lineIndex []int

func newLineIndex(b []byte) lineIndex {
	idx := lineIndex{0}
	for i, c := range b {
		if c == '\n' {
			idx = append(idx, i+1)
		}
	}
	return idx
}

func (idx lineIndex) pos(off int) pos {
	lo, hi := 0, len(idx)
	for hi-lo > 1 {
		m := (lo + hi) / 2
		if idx[m] <= off {
			lo = m
		} else {
			hi = m
		}
	}
	return pos{lo + 1, off - idx[lo] + 1}
}

var hujsonErrRE = lazyRegexp(`^hujson: line (\d+), column (\d+): (.*)$`)

// parseJSONC parses JSON with comments and trailing commas (HuJSON) into a
// node tree. Syntax errors carry the line and column hujson reports.
func parseJSONC(file string, data []byte) (*node, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	v, err := hujson.Parse(data)
	if err != nil {
		e := &Error{File: file, Line: 1, Column: 1, Msg: "invalid JSON: " + err.Error(),
			Hint: "fix the syntax (comments and trailing commas are allowed)"}
		if m := hujsonErrRE().FindStringSubmatch(err.Error()); m != nil {
			e.Line, _ = strconv.Atoi(m[1])
			e.Column, _ = strconv.Atoi(m[2])
			e.Msg = "invalid JSON: " + m[3]
		}
		return nil, e
	}
	idx := newLineIndex(data)
	return fromHuJSON(file, idx, &v)
}

func fromHuJSON(file string, idx lineIndex, v *hujson.Value) (*node, error) {
	n := &node{pos: idx.pos(v.StartOffset)}
	switch t := v.Value.(type) {
	case *hujson.Object:
		n.kind = kObj
		for i := range t.Members {
			m := &t.Members[i]
			var key string
			if err := json.Unmarshal(m.Name.Value.(hujson.Literal), &key); err != nil {
				return nil, strErr(file, idx.pos(m.Name.StartOffset), err)
			}
			val, err := fromHuJSON(file, idx, &m.Value)
			if err != nil {
				return nil, err
			}
			n.keys = append(n.keys, key)
			n.keyPos = append(n.keyPos, idx.pos(m.Name.StartOffset))
			n.vals = append(n.vals, val)
		}
	case *hujson.Array:
		n.kind = kArr
		for i := range t.Elements {
			val, err := fromHuJSON(file, idx, &t.Elements[i])
			if err != nil {
				return nil, err
			}
			n.items = append(n.items, val)
		}
	case hujson.Literal:
		switch t.Kind() {
		case 'n':
			n.kind = kNull
		case 't', 'f':
			n.kind, n.b = kBool, t.Bool()
			n.str = string(t)
		case '0':
			n.kind, n.str = kNum, string(t)
		case '"':
			n.kind = kStr
			if err := json.Unmarshal(t, &n.str); err != nil {
				return nil, strErr(file, n.pos, err)
			}
		default:
			return nil, &Error{File: file, Line: n.pos.line, Column: n.pos.col, Msg: "invalid JSON value"}
		}
	default:
		return nil, &Error{File: file, Line: n.pos.line, Column: n.pos.col, Msg: "invalid JSON value"}
	}
	return n, nil
}

func strErr(file string, p pos, err error) error {
	return &Error{File: file, Line: p.line, Column: p.col, Msg: fmt.Sprintf("invalid JSON string: %v", err)}
}
