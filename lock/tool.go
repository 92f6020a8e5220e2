package lock

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"slices"
	"unicode/utf8"
)

// DecodeTool decodes one element of a tools/list result's "tools" array,
// only as far as the three hashed fields, keeping raw as ToolDef.Raw.
//
// The whole object must be I-JSON (see Canonicalize: no duplicate member
// names at any depth, valid UTF-8, no lone surrogates, finite numbers).
// "name" must be a non-empty string; "description" a string, or null or
// absent (Description nil); "inputSchema" any JSON value, or null or absent
// (InputSchema nil), kept as the raw bytes sent. Other members are ignored.
// Errors are *ToolError and name the field.
//
// Raw and InputSchema share raw's bytes (no copy: a 10,000-tool listing is
// held once): the caller must not modify raw afterwards.
func DecodeTool(raw []byte) (ToolDef, error) {
	if def, ok := decodeToolFast(raw); ok {
		return def, nil
	}
	// Outside the fast subset, or an error: validate with jcs and decode
	// again, for exact errors.
	if _, err := slowCanonical(raw); err != nil {
		return ToolDef{}, &ToolError{Tool: toolNameHint(raw), Msg: "the tool definition is not valid I-JSON: " + err.Error()}
	}
	raw = bytes.TrimSpace(raw)
	if raw[0] != '{' {
		return ToolDef{}, &ToolError{Msg: "want a JSON object, got " + kind(raw[0])}
	}
	m, err := members(raw) // exact: duplicates and bad text were rejected above
	if err != nil {
		return ToolDef{}, &ToolError{Msg: err.Error()}
	}
	def := ToolDef{Raw: raw[:len(raw):len(raw)]}
	name, ok := m["name"]
	switch {
	case !ok:
		return ToolDef{}, &ToolError{Field: "name", Msg: "missing; every tool needs a name"}
	case name[0] != '"':
		return ToolDef{}, &ToolError{Field: "name", Msg: "want a string, got " + kind(name[0])}
	}
	_ = json.Unmarshal(name, &def.Name)
	if def.Name == "" {
		return ToolDef{}, &ToolError{Field: "name", Msg: "must not be empty"}
	}
	if d, ok := m["description"]; ok && string(d) != "null" {
		if d[0] != '"' {
			return ToolDef{}, &ToolError{Tool: def.Name, Field: "description", Msg: "want a string or null, got " + kind(d[0])}
		}
		def.Description = new(string)
		_ = json.Unmarshal(d, def.Description)
	}
	if s, ok := m["inputSchema"]; ok && string(s) != "null" {
		def.InputSchema = s
	}
	return def, nil
}

// decodeToolFast is DecodeTool for a tool in the fast subset of fastcanon.go
// (validated by one pass over raw, which also hashes the inputSchema's
// canonical form for BuildServer). ok is false for anything else,
// including every error: DecodeTool then takes the slow path, which reports
// it.
func decodeToolFast(raw []byte) (def ToolDef, ok bool) {
	f := getFastCanon()
	defer putFastCanon(f)
	f.keepTop = true
	if !f.parse(raw) || f.tape[0].kind != kindObject {
		return ToolDef{}, false
	}
	in := f.in
	top := f.tape[0]
	for _, m := range f.order[top.a:top.b] {
		v := in[m.vs:m.ve]
		switch string(in[m.ks:m.ke]) {
		case "name":
			if v[0] != '"' || len(v) == 2 {
				return ToolDef{}, false
			}
			def.Name = jsonString(v)
		case "description":
			switch v[0] {
			case '"':
				def.Description = new(string)
				*def.Description = jsonString(v)
			case 'n': // null
			default:
				return ToolDef{}, false
			}
		case "inputSchema":
			if string(v) == "null" {
				break
			}
			def.InputSchema = v[:len(v):len(v)]
			def.schemaSum = f.hashMember(m)
			def.schemaOf = def.InputSchema
		}
	}
	if def.Name == "" {
		return ToolDef{}, false
	}
	raw = bytes.TrimSpace(raw)
	def.Raw = raw[:len(raw):len(raw)]
	return def, true
}

// jsonString decodes the JSON string literal v, which the fast path has
// validated (only short escapes and \u00hh).
func jsonString(v []byte) string {
	content := v[1 : len(v)-1]
	if bytes.IndexByte(content, '\\') < 0 {
		return string(content)
	}
	var s string
	_ = json.Unmarshal(v, &s)
	return s
}

// members returns the values of the hashed members of the JSON object obj,
// as sub-slices of obj (capacity cut to their length), by member name.
func members(obj []byte) (map[string][]byte, error) {
	m := make(map[string][]byte, 3)
	s := scanner{data: obj}
	if err := s.expect('{'); err != nil {
		return nil, err
	}
	if s.peek() == '}' {
		return m, nil
	}
	for {
		key, err := s.str()
		if err != nil {
			return nil, err
		}
		if err := s.expect(':'); err != nil {
			return nil, err
		}
		s.peek() // skip whitespace
		start := s.i
		if err := s.skip(0); err != nil {
			return nil, err
		}
		switch key {
		case "name", "description", "inputSchema":
			if _, dup := m[key]; !dup {
				m[key] = obj[start:s.i:s.i]
			}
		}
		if done, err := s.next('}'); done || err != nil {
			return m, err
		}
	}
}

// toolNameHint returns the tool's name for an error message: the value of
// the only "name" member found before any error, or "" if none or several.
func toolNameHint(raw []byte) string {
	s := scanner{data: raw}
	if s.expect('{') != nil || s.peek() == '}' {
		return ""
	}
	var name string
	n := 0
	for {
		key, err := s.str()
		if err != nil || s.expect(':') != nil {
			break
		}
		if key == "name" && s.peek() == '"' {
			v, err := s.str()
			if err != nil {
				return ""
			}
			name, n = v, n+1
		} else if key == "name" {
			return ""
		} else if s.skip(0) != nil {
			break
		}
		if done, err := s.next('}'); done || err != nil {
			break
		}
	}
	if n != 1 {
		return ""
	}
	return name
}

// BuildServer hashes the tools one server listed into a Server entry: each
// tool's nameHash, descriptionHash and inputSchemaHash (see HashName,
// HashDescription, HashInputSchema), the tools sorted by name as UTF-8 bytes,
// and the surfaceHash over them (see SurfaceHash). Zero tools give a Server
// with an empty, non-nil Tools. Errors are *ToolError: an empty name, text
// that is not valid UTF-8, an inputSchema that is not I-JSON, or two tools
// with one name.
func BuildServer(defs []ToolDef) (Server, error) {
	tools := make([]Tool, 0, len(defs))
	for _, d := range defs {
		switch {
		case d.Name == "":
			return Server{}, &ToolError{Field: "name", Msg: "must not be empty"}
		case !utf8.ValidString(d.Name):
			return Server{}, &ToolError{Field: "name", Msg: "is not valid UTF-8"}
		case d.Description != nil && !utf8.ValidString(*d.Description):
			return Server{}, &ToolError{Tool: d.Name, Field: "description", Msg: "is not valid UTF-8"}
		}
		var ih string
		if d.schemaHashed() {
			ih = hex.EncodeToString(d.schemaSum[:])
		} else {
			var err error
			if ih, err = HashInputSchema(d.InputSchema); err != nil {
				return Server{}, &ToolError{Tool: d.Name, Field: "inputSchema", Msg: err.Error()}
			}
		}
		tools = append(tools, Tool{
			Name:            d.Name,
			NameHash:        HashName(d.Name),
			DescriptionHash: HashDescription(d.Description),
			InputSchemaHash: ih,
		})
	}
	slices.SortFunc(tools, compareTools)
	for i := 1; i < len(tools); i++ {
		if tools[i].Name == tools[i-1].Name {
			return Server{}, &ToolError{Tool: tools[i].Name, Msg: "the server listed two tools with this name; a name must be unique on one server, so neither can be pinned"}
		}
	}
	return Server{SurfaceHash: SurfaceHash(tools), Tools: tools}, nil
}
