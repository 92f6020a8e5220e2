package config

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

var yamlLineRE = lazyRegexp(`^yaml: line (\d+): (.*)$`)

// maxYAMLNodes bounds alias expansion ("billion laughs").
const maxYAMLNodes = 100000

// parseYAML parses one YAML document into a node tree. An empty document is
// an empty object; more than one document is an error. Aliases are followed
// and "<<" merge keys are applied.
func parseYAML(file string, data []byte) (*node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return &node{kind: kObj, pos: pos{1, 1}}, nil
		}
		return nil, yamlErr(file, err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, &Error{File: file, Line: extra.Line, Column: extra.Column,
			Msg: "more than one YAML document", Hint: "keep one document per file (remove the '---' separator)"}
	} else if !errors.Is(err, io.EOF) {
		return nil, yamlErr(file, err)
	}
	if len(doc.Content) == 0 {
		return &node{kind: kObj, pos: pos{1, 1}}, nil
	}
	budget := maxYAMLNodes
	return fromYAML(file, doc.Content[0], &budget, 0)
}

func yamlErr(file string, err error) error {
	e := &Error{File: file, Line: 1, Msg: "invalid YAML: " + err.Error()}
	msg := strings.TrimPrefix(err.Error(), "yaml: unmarshal errors:\n  ")
	if m := yamlLineRE().FindStringSubmatch(msg); m != nil {
		e.Line, _ = strconv.Atoi(m[1])
		e.Msg = "invalid YAML: " + m[2]
	}
	return e
}

func fromYAML(file string, y *yaml.Node, budget *int, depth int) (*node, error) {
	*budget--
	if *budget < 0 || depth > 200 {
		return nil, &Error{File: file, Line: y.Line, Column: y.Column, Msg: "YAML document too large or too deeply nested"}
	}
	n := &node{pos: pos{y.Line, y.Column}}
	switch y.Kind {
	case yaml.AliasNode:
		if y.Alias == nil {
			return nil, &Error{File: file, Line: y.Line, Column: y.Column, Msg: "unknown YAML alias"}
		}
		a, err := fromYAML(file, y.Alias, budget, depth+1)
		if err != nil {
			return nil, err
		}
		cp := *a
		cp.pos = n.pos
		return &cp, nil
	case yaml.DocumentNode:
		if len(y.Content) == 0 {
			return &node{kind: kNull, pos: n.pos}, nil
		}
		return fromYAML(file, y.Content[0], budget, depth+1)
	case yaml.SequenceNode:
		n.kind = kArr
		for _, c := range y.Content {
			v, err := fromYAML(file, c, budget, depth+1)
			if err != nil {
				return nil, err
			}
			n.items = append(n.items, v)
		}
	case yaml.MappingNode:
		n.kind = kObj
		var merged []*node
		for i := 0; i+1 < len(y.Content); i += 2 {
			k, v := y.Content[i], y.Content[i+1]
			val, err := fromYAML(file, v, budget, depth+1)
			if err != nil {
				return nil, err
			}
			if k.Kind == yaml.ScalarNode && k.Tag == "!!merge" {
				switch val.kind {
				case kObj:
					merged = append(merged, val)
				case kArr:
					merged = append(merged, val.items...)
				}
				continue
			}
			if k.Kind != yaml.ScalarNode {
				return nil, &Error{File: file, Line: k.Line, Column: k.Column, Msg: "mapping key is not a scalar"}
			}
			n.keys = append(n.keys, k.Value)
			n.keyPos = append(n.keyPos, pos{k.Line, k.Column})
			n.vals = append(n.vals, val)
		}
		for _, m := range merged {
			if m.kind != kObj {
				continue
			}
			for i, k := range m.keys {
				if !n.has(k) {
					n.keys = append(n.keys, k)
					n.keyPos = append(n.keyPos, m.keyPos[i])
					n.vals = append(n.vals, m.vals[i])
				}
			}
		}
	case yaml.ScalarNode:
		switch y.ShortTag() {
		case "!!null":
			n.kind = kNull
		case "!!bool":
			n.kind = kBool
			n.str = y.Value
			if err := y.Decode(&n.b); err != nil {
				return nil, &Error{File: file, Line: y.Line, Column: y.Column, Msg: "invalid YAML boolean"}
			}
		case "!!int", "!!float":
			n.kind, n.str = kNum, y.Value
		default:
			n.kind, n.str = kStr, y.Value
		}
	default:
		return nil, &Error{File: file, Line: y.Line, Column: y.Column, Msg: "unsupported YAML node"}
	}
	return n, nil
}
