package configedit

import (
	"bytes"
	"github.com/agentgate/agentgate/internal/lazyre"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/agentgate/agentgate/mcp/config/syntax"
)

// locateYAML finds the items of a Continue YAML block's mcpServers list.
// yaml.v3 reports each node's line and column (in characters); a scalar's
// end is found by scanning its style's syntax on that line, and a scalar
// that does not decode from that one line to the value the parser read
// (block scalars, multi-line plain or quoted scalars) is left unlocated.
func locateYAML(d *doc) error {
	var root yaml.Node
	if err := yaml.Unmarshal(d.data, &root); err != nil || len(root.Content) == 0 {
		return nil
	}
	y := yamlDoc{d: d, idx: syntax.NewLines(d.data)}
	top := root.Content[0]
	list := yamlGet(top, "mcpServers")
	if list == nil || list.Kind != yaml.SequenceNode {
		return nil
	}
	for _, it := range list.Content {
		if it.Kind != yaml.MappingNode {
			continue
		}
		name := yamlGet(it, "name")
		if name == nil || name.Kind != yaml.ScalarNode {
			continue
		}
		e := &entry{name: name.Value, line: name.Line, field: "command", argsField: "args", lineEnd: -1}
		d.entries = append(d.entries, e)
		e.inline = it.Style&yaml.FlowStyle != 0 || list.Style&yaml.FlowStyle != 0 || top.Style&yaml.FlowStyle != 0
		for i := 0; i+1 < len(it.Content); i += 2 {
			k, v := it.Content[i], it.Content[i+1]
			start := y.off(k)
			last := yamlLastLine(v)
			if start < 0 || last < 1 || last > len(y.idx) {
				e.inline = true
				continue
			}
			e.members = append(e.members, mspan{name: k.Value, start: start, end: lineEndAt(d.data, y.idx[last-1]),
				empty: v.Kind == yaml.ScalarNode && (v.Value == "" || v.ShortTag() == "!!null") || v.Kind != yaml.ScalarNode && len(v.Content) == 0,
				sub:   v.Kind == yaml.AliasNode || v.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 || v.Anchor != "" || k.Value == "requestOptions" && !yamlOnlyHeaders(v)})
		}
		var cmdKey *yaml.Node
		for i := 0; i+1 < len(it.Content); i += 2 {
			if it.Content[i].Value == "command" {
				cmdKey = it.Content[i]
			}
		}
		cmd, args := yamlGet(it, "command"), yamlGet(it, "args")
		if cmd == nil {
			continue
		}
		inFlow := it.Style&yaml.FlowStyle != 0 || list.Style&yaml.FlowStyle != 0 || top.Style&yaml.FlowStyle != 0
		e.cmd, e.cmdAt = y.scalar(cmd, inFlow), max(0, y.off(cmd))
		if e.cmd != nil && !inFlow {
			keyOff := y.off(cmdKey)
			ls := y.idx[cmdKey.Line-1]
			if prefix := string(d.data[ls:keyOff]); strings.Trim(prefix, " -") == "" {
				e.indent = strings.Repeat(" ", len(prefix))
				j := e.cmd.end
				for j < len(d.data) && (d.data[j] == ' ' || d.data[j] == '\t') {
					j++
				}
				if j == len(d.data) || d.data[j] == '#' || d.data[j] == '\n' || d.data[j] == '\r' {
					e.lineEnd = lineEndAt(d.data, j)
				}
			}
		}
		if args != nil {
			e.argsSeen = true
			e.args = y.seq(args)
			if e.args != nil && !e.args.block {
				d.argsLine(e, "args: ")
			}
		}
	}
	return nil
}

// yamlOnlyHeaders reports whether Continue's requestOptions n holds
// nothing but "headers" (the one option guard can carry).
func yamlOnlyHeaders(n *yaml.Node) bool {
	if n.Kind != yaml.MappingNode {
		return false
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value != "headers" {
			return false
		}
	}
	return true
}

// yamlLastLine is the last line any node of n starts on.
func yamlLastLine(n *yaml.Node) int {
	last := n.Line
	for _, c := range n.Content {
		last = max(last, yamlLastLine(c))
	}
	return last
}

// lineEndAt is the offset of the end of the line holding off, before its
// "\r\n" or "\n".
func lineEndAt(b []byte, off int) int {
	j := off
	for j < len(b) && b[j] != '\n' {
		j++
	}
	if j > off && b[j-1] == '\r' {
		j--
	}
	return j
}

func yamlGet(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

type yamlDoc struct {
	d   *doc
	idx syntax.Lines
}

// off is the byte offset of n's line and column (columns count characters).
func (y yamlDoc) off(n *yaml.Node) int {
	if n.Line < 1 || n.Line > len(y.idx) {
		return -1
	}
	o := y.idx[n.Line-1]
	for c := 1; c < n.Column && o < len(y.d.data); c++ {
		_, w := utf8.DecodeRune(y.d.data[o:])
		o += w
	}
	return o
}

// scalar is n as a string token; nil when its text cannot be placed on one
// line or does not decode to n's value.
func (y yamlDoc) scalar(n *yaml.Node, flow bool) *tok {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!str" && n.ShortTag() != "!!str" {
		return nil
	}
	b := y.d.data
	start := y.off(n)
	if start < 0 || start >= len(b) {
		return nil
	}
	end := -1
	switch {
	case n.Style&yaml.DoubleQuotedStyle != 0:
		for j := start + 1; j < len(b) && b[j] != '\n'; j++ {
			if b[j] == '\\' {
				j++
				continue
			}
			if b[j] == '"' {
				end = j + 1
				break
			}
		}
	case n.Style&yaml.SingleQuotedStyle != 0:
		for j := start + 1; j < len(b) && b[j] != '\n'; j++ {
			if b[j] == '\'' {
				if j+1 < len(b) && b[j+1] == '\'' {
					j++
					continue
				}
				end = j + 1
				break
			}
		}
	case n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0:
		return nil
	default:
		j := start
		for j < len(b) && b[j] != '\n' && b[j] != '\r' {
			if b[j] == '#' && j > start && (b[j-1] == ' ' || b[j-1] == '\t') {
				break
			}
			if flow && (b[j] == ',' || b[j] == ']' || b[j] == '}') {
				break
			}
			j++
		}
		for j > start && (b[j-1] == ' ' || b[j-1] == '\t') {
			j--
		}
		end = j
	}
	if end < 0 {
		return nil
	}
	var v string
	if yaml.Unmarshal(b[start:end], &v) != nil || v != n.Value {
		return nil
	}
	return &tok{start: start, end: end, val: n.Value}
}

// seq is n as a sequence of string tokens; nil when it is not one or an
// item cannot be placed.
func (y yamlDoc) seq(n *yaml.Node) *seq {
	if n.Kind != yaml.SequenceNode {
		return nil
	}
	b := y.d.data
	s := &seq{block: n.Style&yaml.FlowStyle == 0}
	for _, it := range n.Content {
		t := y.scalar(it, !s.block)
		if t == nil {
			return nil
		}
		if s.block {
			// The item starts at its "- " indicator, alone before it on
			// its line but for the indentation.
			j := t.start - 1
			for j >= 0 && (b[j] == ' ' || b[j] == '\t') {
				j--
			}
			if j < 0 || b[j] != '-' {
				return nil
			}
			ls := bytes.LastIndexByte(b[:j], '\n') + 1
			ind := string(b[ls:j])
			if strings.Trim(ind, " ") != "" || len(s.items) > 0 && ind != s.indent {
				return nil
			}
			s.indent = ind
			s.dashes = append(s.dashes, j)
		}
		s.items = append(s.items, *t)
	}
	if s.block {
		if len(s.items) == 0 {
			return nil
		}
		return s
	}
	s.open = y.off(n)
	if s.open < 0 || b[s.open] != '[' {
		return nil
	}
	j := s.open + 1
	if len(s.items) > 0 {
		j = s.items[len(s.items)-1].end
	}
	for j < len(b) && b[j] != ']' {
		switch b[j] {
		case ' ', '\t', '\r', '\n', ',':
			j++
		default:
			return nil
		}
	}
	if j >= len(b) {
		return nil
	}
	s.close = j
	return s
}

// yamlPlainRE is a string that YAML reads as a plain string in any context
// (block or flow) and that no YAML 1.1 or 1.2 schema reads as another
// type.
var yamlPlainRE = lazyre.New(`^(?:[A-Za-z_/]|\.[A-Za-z_/.])[A-Za-z0-9_./@+=^~-]*$|^--?[A-Za-z][A-Za-z0-9_./@+=^~-]*$|^--$`)

var yamlReserved = map[string]bool{"y": true, "n": true, "yes": true, "no": true, "on": true, "off": true, "true": true, "false": true, "null": true, ".inf": true, ".nan": true}

// yamlString encodes s as a YAML scalar: plain when that is safe
// everywhere, else double-quoted (a JSON string is a valid YAML
// double-quoted scalar).
func yamlString(s string) string {
	if yamlPlainRE().MatchString(s) && !yamlReserved[strings.ToLower(s)] {
		return s
	}
	return jsonString(s)
}
