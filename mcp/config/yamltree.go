package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/agentgate/agentgate/internal/lazyre"
)

var yamlLineRE = lazyre.New(`^yaml: line (\d+): (.*)$`)

// maxYAMLNodes bounds alias expansion ("billion laughs").
const maxYAMLNodes = 100000

// parseYAML parses one YAML document into a node tree, as Continue's parser
// (the yaml package, 2.x, YAML 1.2 defaults) reads it. An empty document is
// an empty object; more than one document is an error; aliases are
// followed; a mapping that repeats a key is an error naming both lines
// (uniqueKeys); a "<<" merge key is an error, because YAML 1.2 has no merge
// keys and Continue would read "<<" as an ordinary key and ignore what it
// points at.
func parseYAML(file string, data []byte) (*node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return &node{kind: kObj, pos: pos{1, 1}}, nil
		}
		return nil, yamlErr(file, err)
	}
	if doc.Kind == 0 {
		return &node{kind: kObj, pos: pos{1, 1}}, nil
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, &Error{File: file, Line: extra.Line, Column: extra.Column, kind: "invalid YAML",
			Msg: "more than one YAML document", Hint: "keep one document per file (remove the '---' separator)"}
	} else if !errors.Is(err, io.EOF) {
		return nil, yamlErr(file, err)
	}
	if len(doc.Content) == 0 {
		return &node{kind: kObj, pos: pos{1, 1}}, nil
	}
	y := &yamlBuilder{treeBuilder: treeBuilder{file: file}, budget: maxYAMLNodes}
	n, err := y.from(doc.Content[0], 0)
	if err != nil {
		return nil, err
	}
	if len(y.errs) > 0 {
		return nil, y.errs
	}
	return n, nil
}

type yamlBuilder struct {
	treeBuilder
	budget int
}

func yamlErr(file string, err error) error {
	e := &Error{File: file, Line: 1, Msg: "invalid YAML: " + err.Error(), kind: "invalid YAML"}
	msg := strings.TrimPrefix(err.Error(), "yaml: unmarshal errors:\n  ")
	if m := yamlLineRE().FindStringSubmatch(msg); m != nil {
		e.Line, _ = strconv.Atoi(m[1])
		e.Msg = "invalid YAML: " + m[2]
	}
	return e
}

func (b *yamlBuilder) from(y *yaml.Node, depth int) (*node, error) {
	file := b.file
	b.budget--
	if b.budget < 0 || depth > maxDepth {
		return nil, &Error{File: file, Line: y.Line, Column: y.Column, kind: "nested too deeply",
			Msg: fmt.Sprintf("YAML document too large (aliases) or nested more than %d levels deep", maxDepth)}
	}
	n := &node{pos: pos{y.Line, y.Column}}
	switch y.Kind {
	case yaml.AliasNode:
		if y.Alias == nil {
			return nil, &Error{File: file, Line: y.Line, Column: y.Column, Msg: "unknown YAML alias", kind: "invalid YAML"}
		}
		a, err := b.from(y.Alias, depth+1)
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
		return b.from(y.Content[0], depth+1)
	case yaml.SequenceNode:
		n.kind = kArr
		for _, c := range y.Content {
			v, err := b.from(c, depth+1)
			if err != nil {
				return nil, err
			}
			n.items = append(n.items, v)
		}
	case yaml.MappingNode:
		n.kind = kObj
		for i := 0; i+1 < len(y.Content); i += 2 {
			k, v := y.Content[i], y.Content[i+1]
			if k.Kind != yaml.ScalarNode {
				return nil, &Error{File: file, Line: k.Line, Column: k.Column, Msg: "mapping key is not a scalar", kind: "invalid YAML"}
			}
			if k.Tag == "!!merge" {
				b.fail(pos{k.Line, k.Column}, "merge key", `merge key "<<" is not applied by Continue's YAML parser (YAML 1.2): Continue reads "<<" as an ordinary key`,
					"write the keys out in full (an alias *name as a whole value is fine)")
				continue
			}
			val, err := b.from(v, depth+1)
			if err != nil {
				return nil, err
			}
			b.member(n, k.Value, pos{k.Line, k.Column}, val)
		}
	case yaml.ScalarNode:
		switch y.ShortTag() {
		case "!!null":
			n.kind = kNull
		case "!!bool":
			n.kind = kBool
			n.str = y.Value
			if err := y.Decode(&n.b); err != nil {
				return nil, &Error{File: file, Line: y.Line, Column: y.Column, Msg: "invalid YAML boolean", kind: "invalid YAML"}
			}
		case "!!int", "!!float":
			n.kind, n.str = kNum, y.Value
		default:
			n.kind, n.str = kStr, y.Value
		}
	default:
		return nil, &Error{File: file, Line: y.Line, Column: y.Column, Msg: "unsupported YAML node", kind: "invalid YAML"}
	}
	return n, nil
}
