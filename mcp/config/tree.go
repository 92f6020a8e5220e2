package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/tailscale/hujson"

	"github.com/agentgate/agentgate/internal/lazyre"
	"github.com/agentgate/agentgate/mcp/config/syntax"
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

var hujsonErrRE = lazyre.New(`^hujson: line (\d+), column (\d+): (.*)$`)

// parseJSONC parses JSON with comments and trailing commas (HuJSON) into a
// node tree. Syntax errors carry the line and column hujson reports. A
// nesting deeper than maxDepth is refused before hujson runs, and every
// object that repeats a member name is an error naming both lines (JSON.parse
// and VS Code's parser keep the last copy, other readers the first: the
// lockfile would pin a different server than the client runs).
func parseJSONC(file string, data []byte) (*node, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if err := checkJSONDepth(file, data); err != nil {
		return nil, err
	}
	v, err := hujson.Parse(data)
	if err != nil {
		e := &Error{File: file, Line: 1, Column: 1, Msg: "invalid JSON: " + err.Error(), kind: "invalid JSON",
			Hint: "fix the syntax (comments and trailing commas are allowed)"}
		if m := hujsonErrRE().FindStringSubmatch(err.Error()); m != nil {
			e.Line, _ = strconv.Atoi(m[1])
			e.Column, _ = strconv.Atoi(m[2])
			e.Msg = "invalid JSON: " + m[3]
		}
		return nil, e
	}
	b := &treeBuilder{file: file, idx: syntax.NewLines(data)}
	n := b.fromHuJSON(&v)
	if len(b.errs) > 0 {
		return nil, b.errs
	}
	return n, nil
}

// treeBuilder converts a parsed document into nodes, collecting errors.
type treeBuilder struct {
	file string
	idx  syntax.Lines
	errs Errors
}

// pos is the position of byte offset off.
func (b *treeBuilder) pos(off int) pos {
	line, col := b.idx.Pos(off)
	return pos{line, col}
}

func (b *treeBuilder) fail(at pos, kind, msg, hint string) {
	b.errs = append(b.errs, &Error{File: b.file, Line: at.line, Column: at.col, Msg: msg, Hint: hint, kind: kind})
}

// member adds key to object n unless it is already there (an error naming
// both positions).
func (b *treeBuilder) member(n *node, key string, at pos, val *node) {
	for i, k := range n.keys {
		if k == key {
			b.fail(at, "duplicate member", fmt.Sprintf("%q appears twice (lines %d and %d)", key, n.keyPos[i].line, at.line),
				"remove one of them")
			return
		}
	}
	n.keys = append(n.keys, key)
	n.keyPos = append(n.keyPos, at)
	n.vals = append(n.vals, val)
}

func (b *treeBuilder) fromHuJSON(v *hujson.Value) *node {
	n := &node{pos: b.pos(v.StartOffset)}
	switch t := v.Value.(type) {
	case *hujson.Object:
		n.kind = kObj
		for i := range t.Members {
			m := &t.Members[i]
			at := b.pos(m.Name.StartOffset)
			var key string
			if err := json.Unmarshal(m.Name.Value.(hujson.Literal), &key); err != nil {
				b.fail(at, "invalid JSON", "invalid JSON string: "+err.Error(), "")
				continue
			}
			b.member(n, key, at, b.fromHuJSON(&m.Value))
		}
	case *hujson.Array:
		n.kind = kArr
		for i := range t.Elements {
			n.items = append(n.items, b.fromHuJSON(&t.Elements[i]))
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
				b.fail(n.pos, "invalid JSON", "invalid JSON string: "+err.Error(), "")
			}
		default:
			b.fail(n.pos, "invalid JSON", "invalid JSON value", "")
		}
	default:
		b.fail(n.pos, "invalid JSON", "invalid JSON value", "")
	}
	return n
}
