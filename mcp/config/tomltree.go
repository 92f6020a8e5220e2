package config

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/agentgate/agentgate/internal/lazyre"
	"github.com/agentgate/agentgate/mcp/config/syntax"
)

// parseTOML decodes a TOML document into a node tree. BurntSushi/toml does
// not expose value positions, so positions come from tomlPositions, a line
// scanner that finds table headers and "key =" lines; a value it cannot
// place (for example inside an inline table) gets its parent's position.
// Members of a TOML table are ordered by key.
func parseTOML(file string, data []byte) (*node, error) {
	if err := checkTOMLDepth(file, data); err != nil {
		return nil, err
	}
	var m map[string]any
	if _, err := toml.Decode(string(data), &m); err != nil {
		e := &Error{File: file, Line: 1, Msg: "invalid TOML: " + err.Error(), kind: "invalid TOML"}
		var pe toml.ParseError
		if errors.As(err, &pe) {
			e.Line, e.Column = pe.Position.Line, pe.Position.Col
			if e.Line < 1 {
				// BurntSushi/toml reports line 0 for some errors at the
				// end of the input (`"\` ending in an escape): place
				// them from the byte offset instead.
				e.Line, e.Column = syntax.OffsetPos(data, pe.Position.Start)
			}
			e.Msg = "invalid TOML: " + pe.Message
			if m := tomlDupRE().FindStringSubmatch(pe.Message); m != nil {
				// TOML forbids repeated keys; name both lines.
				e.kind, e.Hint = "duplicate member", "remove one of them"
				e.Msg = fmt.Sprintf("%q is defined twice", m[1])
				if first, ok := tomlPositions(string(data))[strings.ReplaceAll(m[1], ".", "\x00")]; ok && first.line != e.Line {
					e.Msg = fmt.Sprintf("%q is defined twice (lines %d and %d)", m[1], first.line, e.Line)
				}
			}
		}
		return nil, e
	}
	locs := tomlPositions(string(data))
	return fromTOML(m, nil, locs, pos{1, 1}), nil
}

var tomlDupRE = lazyre.New(`^Key '(.*)' has already been defined\.$`)

func fromTOML(v any, path []string, locs map[string]pos, parent pos) *node {
	p, ok := locs[strings.Join(path, "\x00")]
	if !ok {
		p = parent
	}
	n := &node{pos: p}
	switch t := v.(type) {
	case map[string]any:
		n.kind = kObj
		for _, k := range slices.Sorted(maps.Keys(t)) {
			child := fromTOML(t[k], append(slices.Clip(path), k), locs, p)
			n.keys = append(n.keys, k)
			n.keyPos = append(n.keyPos, child.pos)
			n.vals = append(n.vals, child)
		}
	case []map[string]any:
		n.kind = kArr
		for _, e := range t {
			n.items = append(n.items, fromTOML(e, path, locs, p))
		}
	case []any:
		n.kind = kArr
		for _, e := range t {
			n.items = append(n.items, fromTOML(e, path, locs, p))
		}
	case string:
		n.kind, n.str = kStr, t
	case bool:
		n.kind, n.b, n.str = kBool, t, strconv.FormatBool(t)
	case int64:
		n.kind, n.str = kNum, strconv.FormatInt(t, 10)
	case float64:
		n.kind, n.str = kNum, strconv.FormatFloat(t, 'g', -1, 64)
		if !strings.ContainsAny(n.str, ".eEnN") {
			n.str += ".0" // keep 4.0 distinguishable from the integer 4
		}
	case time.Time:
		n.kind, n.str = kStr, t.Format(time.RFC3339Nano)
	default:
		n.kind, n.str = kStr, fmt.Sprint(t)
	}
	return n
}

// tomlPositions maps key paths (joined by NUL) to the position of the key
// that defines them: table headers and "key = value" lines.
func tomlPositions(src string) map[string]pos {
	locs := map[string]pos{}
	var table []string
	inMulti := ""
	for i, line := range strings.Split(src, "\n") {
		if inMulti != "" {
			if strings.Count(line, inMulti)%2 == 1 {
				inMulti = ""
			}
			continue
		}
		trimmed := strings.TrimLeft(line, " \t")
		col := len(line) - len(trimmed) + 1
		switch {
		case strings.HasPrefix(trimmed, "[["), strings.HasPrefix(trimmed, "["):
			inner := strings.TrimLeft(trimmed, "[")
			keys, _, ok := syntax.ParseTOMLKey(inner)
			if !ok {
				continue
			}
			table = keys
			k := strings.Join(table, "\x00")
			if _, seen := locs[k]; !seen {
				locs[k] = pos{i + 1, col}
			}
		case trimmed == "", trimmed[0] == '#':
		default:
			keys, rest, ok := syntax.ParseTOMLKey(trimmed)
			if !ok || !strings.HasPrefix(strings.TrimLeft(rest, " \t"), "=") {
				continue
			}
			full := strings.Join(append(slices.Clip(table), keys...), "\x00")
			if _, seen := locs[full]; !seen {
				locs[full] = pos{i + 1, col}
			}
			for _, q := range []string{`"""`, `'''`} {
				if strings.Count(rest, q)%2 == 1 {
					inMulti = q
				}
			}
		}
	}
	return locs
}
