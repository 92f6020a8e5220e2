package configedit

import (
	"bytes"
	"encoding/json"
	"path"
	"strings"

	"github.com/tailscale/hujson"

	"github.com/agentgate/agentgate/mcp/config"
)

// locateJSON finds the server entries of a JSON or JSONC client config
// with hujson, whose values carry their byte offsets.
func locateJSON(d *doc) error {
	data := d.data
	bom := 0
	if bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) {
		bom = 3
	}
	root, err := hujson.Parse(data[bom:])
	if err != nil {
		return &config.Error{File: d.file, Msg: "invalid JSON: " + err.Error()}
	}
	obj, ok := root.Value.(*hujson.Object)
	if !ok {
		return nil
	}
	key, bare := config.ServersMember(d.client)
	add := func(name string, keyOff int, e *hujson.Object) {
		d.entries = append(d.entries, jsonEntry(d, bom, name, keyOff, e))
	}
	servers := member(obj, key)
	var so *hujson.Object
	switch {
	case servers != nil:
		if so, ok = servers.Value.(*hujson.Object); !ok {
			return nil
		}
	case d.client == "continue" && (member(obj, "command") != nil || member(obj, "url") != nil):
		add(strings.TrimSuffix(path.Base(d.file), path.Ext(d.file)), root.StartOffset, obj)
		return nil
	case bare && bareMembers(obj):
		so = obj // Copilot CLI: the servers at the top level
	default:
		return nil
	}
	for i := range so.Members {
		m := &so.Members[i]
		var name string
		if json.Unmarshal(m.Name.Value.(hujson.Literal), &name) != nil {
			continue
		}
		if e, ok := m.Value.Value.(*hujson.Object); ok {
			add(name, m.Name.StartOffset, e)
		}
	}
	return nil
}

// bareMembers is bareServers for hujson: one member of o is an object
// with "command" or "url".
func bareMembers(o *hujson.Object) bool {
	for i := range o.Members {
		if e, ok := o.Members[i].Value.Value.(*hujson.Object); ok && (member(e, "command") != nil || member(e, "url") != nil) {
			return true
		}
	}
	return false
}

// member returns the value of the first member of o named name, or nil.
func member(o *hujson.Object, name string) *hujson.Value {
	for i := range o.Members {
		var k string
		if json.Unmarshal(o.Members[i].Name.Value.(hujson.Literal), &k) == nil && k == name {
			return &o.Members[i].Value
		}
	}
	return nil
}

func jsonEntry(d *doc, bom int, name string, keyOff int, o *hujson.Object) *entry {
	e := &entry{name: name, field: "command", argsField: "args"}
	e.line = d.lineOf(keyOff + bom)
	for i := range o.Members {
		m := &o.Members[i]
		var k string
		if json.Unmarshal(m.Name.Value.(hujson.Literal), &k) != nil {
			continue
		}
		sp := mspan{name: k, start: m.Name.StartOffset + bom, end: m.Value.EndOffset + bom,
			kv: string(d.data[m.Name.EndOffset+bom : m.Value.StartOffset+bom])}
		switch v := m.Value.Value.(type) {
		case hujson.Literal:
			sp.empty = string(v) == `""` || string(v) == "null"
		case *hujson.Array:
			sp.empty = len(v.Elements) == 0
		case *hujson.Object:
			sp.empty = len(v.Members) == 0
		}
		e.members = append(e.members, sp)
	}
	cmd, args := member(o, "command"), member(o, "args")
	switch {
	case cmd == nil:
		return e
	case d.client == "opencode":
		e.argv, e.argsField = true, "command"
		e.args = jsonSeq(cmd, bom)
		return e
	}
	if co, ok := cmd.Value.(*hujson.Object); ok && d.client == "zed" {
		// Zed's legacy {"command": {"path", "args", "env"}}.
		cmd, args = member(co, "path"), member(co, "args")
		e.field, e.argsField = "command.path", "command.args"
		if cmd == nil {
			return e
		}
	}
	e.cmd, e.cmdAt = jsonTok(cmd, bom), cmd.StartOffset+bom
	if e.cmd != nil {
		e.lineEnd = e.cmd.end
		e.compact = e.cmd.start > 0 && d.data[e.cmd.start-1] == ':'
	}
	if args != nil {
		e.argsSeen = true
		e.args = jsonSeq(args, bom)
		// The args member right after the command, as `, "args": [...]`
		// on the same line.
		if e.cmd != nil && e.args != nil && e.args.open > e.cmd.end {
			between := string(d.data[e.cmd.end:e.args.open])
			if between == `, "args": ` || e.compact && between == `,"args":` {
				e.argsMember = [2]int{e.cmd.end, e.args.close + 1}
			}
		}
	}
	return e
}

// jsonTok is v as a string token, nil when it is not a string.
func jsonTok(v *hujson.Value, bom int) *tok {
	lit, ok := v.Value.(hujson.Literal)
	if !ok || lit.Kind() != '"' {
		return nil
	}
	t := &tok{start: v.StartOffset + bom, end: v.EndOffset + bom}
	if json.Unmarshal(lit, &t.val) != nil {
		return nil
	}
	return t
}

// jsonSeq is v as an array of strings, nil when it is not one.
func jsonSeq(v *hujson.Value, bom int) *seq {
	a, ok := v.Value.(*hujson.Array)
	if !ok {
		return nil
	}
	s := &seq{open: v.StartOffset + bom, close: v.EndOffset + bom - 1}
	for i := range a.Elements {
		t := jsonTok(&a.Elements[i], bom)
		if t == nil {
			return nil
		}
		s.items = append(s.items, *t)
	}
	return s
}

// jsonString encodes s as a JSON string without HTML escaping.
func jsonString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}
