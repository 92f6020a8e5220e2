package lock

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
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
// Member names are compared after unescaping. Errors are *ToolError and
// name the field.
//
// Raw and InputSchema share raw's bytes (no copy: a 10,000-tool listing is
// held once): the caller must not modify raw afterwards.
func DecodeTool(raw []byte) (ToolDef, error) {
	f := getScanner()
	defer putScanner(f)
	def, _, err := f.decodeTool(raw)
	return def, err
}

// schemaSum is the SHA-256 of a tool's inputSchema in canonical form, when
// the scan that decoded the tool computed it.
type schemaSum struct {
	sum [32]byte
	ok  bool
}

// decodeTool is DecodeTool. It also returns the hash of the inputSchema's
// canonical form when the input is in the scanner's fast subset, where the
// scan computes it at little cost.
func (f *scanner) decodeTool(raw []byte) (def ToolDef, sum schemaSum, err error) {
	f.keepDepth = 1
	if err := f.parse(raw); err != nil {
		var name string
		if f.names == 1 && f.name != nil {
			name = unquote(f.name)
		}
		return ToolDef{}, sum, &ToolError{Tool: name, Msg: "the tool definition is not valid I-JSON: " + err.Error()}
	}
	if top := f.tape[0]; top.kind != kindObject {
		return ToolDef{}, sum, &ToolError{Msg: "want a JSON object, got " + kind(f.in[f.offset(0)])}
	}
	var name, desc, schema *member
	ms := f.members(0)
	for k := range ms {
		key := f.in[ms[k].ks:ms[k].ke]
		if ms[k].esc {
			key = []byte(f.key(ms[k]))
		}
		switch string(key) {
		case "name":
			name = &ms[k]
		case "description":
			desc = &ms[k]
		case "inputSchema":
			schema = &ms[k]
		}
	}
	in := f.in
	switch {
	case name == nil:
		return ToolDef{}, sum, &ToolError{Field: "name", Msg: "missing; every tool needs a name"}
	case in[name.vs] != '"':
		return ToolDef{}, sum, &ToolError{Field: "name", Msg: "want a string, got " + kind(in[name.vs])}
	case name.ve-name.vs == 2:
		return ToolDef{}, sum, &ToolError{Field: "name", Msg: "must not be empty"}
	}
	def.Name = unquote(in[name.vs:name.ve])
	if desc != nil && string(in[desc.vs:desc.ve]) != "null" {
		if in[desc.vs] != '"' {
			return ToolDef{}, sum, &ToolError{Tool: def.Name, Field: "description", Msg: "want a string or null, got " + kind(in[desc.vs])}
		}
		def.Description = new(string)
		*def.Description = unquote(in[desc.vs:desc.ve])
	}
	if schema != nil && string(in[schema.vs:schema.ve]) != "null" {
		def.InputSchema = in[schema.vs:schema.ve:schema.ve]
		if f.slow == 0 {
			sum = schemaSum{f.hashMember(*schema), true}
		}
	}
	raw = bytes.TrimSpace(raw)
	def.Raw = raw[:len(raw):len(raw)]
	return def, sum, nil
}

// DecodeToolV2 is DecodeTool under lockfile version 2's rules, where a
// string may hold an unpaired surrogate escape (\ud800 not part of a
// pair), as the tool definition hash accepts it: such a string decodes to
// WTF-8 (the three bytes UTF-8 would use for the code point), so a
// description's descriptionHash is the SHA-256 of its WTF-8 bytes, and
// an inputSchema holding one hashes as HashInputSchemaV2 says. Everything
// else DecodeTool refuses is refused.
func DecodeToolV2(raw []byte) (ToolDef, error) {
	f := getScanner()
	defer putScanner(f)
	f.wtf8 = true
	def, _, err := f.decodeTool(raw)
	return def, err
}

// HashInputSchemaV2 is HashInputSchema under lockfile version 2's rules:
// a schema holding an unpaired surrogate escape (which HashInputSchema
// refuses) hashes as the SHA-256 of its DefinitionCanonical form (RFC 8785,
// the surrogate written as a lowercase \udxxx escape); any other schema
// as HashInputSchema.
func HashInputSchemaV2(raw []byte) (string, error) {
	h, err := HashInputSchema(raw)
	if err == nil {
		return h, nil
	}
	c, cerr := DefinitionCanonical(raw)
	if cerr != nil || !strings.Contains(string(c), `\ud`) {
		return "", err
	}
	return Sha256Hex(c), nil
}

// DecodeServerV2 is DecodeServer under lockfile version 2's rules
// (DecodeToolV2, HashInputSchemaV2, descriptions in WTF-8). Names must
// still be UTF-8: a name is the tool's identity.
func DecodeServerV2(raws []json.RawMessage) (Server, []ToolDef, error) {
	defs := make([]ToolDef, len(raws))
	for i, raw := range raws {
		var err error
		if defs[i], err = DecodeToolV2(raw); err != nil {
			return Server{}, nil, fmt.Errorf("tools[%d]: %w", i, err)
		}
	}
	srv, err := buildServer(defs, nil, true)
	if err != nil {
		return Server{}, nil, err
	}
	return srv, defs, nil
}

// DecodeServer decodes the raw tools one server listed and hashes them:
// DecodeTool of each, then BuildServer of the results, which it also
// returns in the order given. It is faster than the two steps apart: each
// inputSchema is hashed while it is validated. A DecodeTool error is
// returned wrapped with the tool's index, as "tools[i]: " and the
// *ToolError.
func DecodeServer(raws []json.RawMessage) (Server, []ToolDef, error) {
	f := getScanner()
	defer putScanner(f)
	defs := make([]ToolDef, len(raws))
	sums := make([]schemaSum, len(raws))
	for i, raw := range raws {
		var err error
		if defs[i], sums[i], err = f.decodeTool(raw); err != nil {
			return Server{}, nil, fmt.Errorf("tools[%d]: %w", i, err)
		}
	}
	srv, err := buildServer(defs, sums, false)
	if err != nil {
		return Server{}, nil, err
	}
	return srv, defs, nil
}

// BuildServer hashes the tools one server listed into a Server entry: each
// tool's nameHash, descriptionHash and inputSchemaHash (see HashName,
// HashDescription, HashInputSchema), the tools sorted by name as UTF-8 bytes,
// and the surfaceHash over them (see SurfaceHash). Zero tools give a Server
// with an empty, non-nil Tools. Errors are *ToolError: an empty name, text
// that is not valid UTF-8, an inputSchema that is not I-JSON, or two tools
// with one name.
func BuildServer(defs []ToolDef) (Server, error) { return buildServer(defs, nil, false) }

// buildServer is BuildServer, taking sums[i], when set, as the hash of
// defs[i]'s inputSchema; with v2, under lockfile version 2's rules
// (DecodeServerV2).
func buildServer(defs []ToolDef, sums []schemaSum, v2 bool) (Server, error) {
	tools := make([]Tool, 0, len(defs))
	for i, d := range defs {
		switch {
		case d.Name == "":
			return Server{}, &ToolError{Field: "name", Msg: "must not be empty"}
		case !utf8.ValidString(d.Name):
			return Server{}, &ToolError{Field: "name", Msg: "is not valid UTF-8"}
		case d.Description != nil && !utf8.ValidString(*d.Description) && !v2:
			return Server{}, &ToolError{Tool: d.Name, Field: "description", Msg: "is not valid UTF-8"}
		}
		if d.Sent != nil {
			tools = append(tools, Tool{Name: d.Name, NameHash: HashName(d.Name), DescriptionHash: d.Sent.Description, InputSchemaHash: d.Sent.InputSchema})
			continue
		}
		var ih string
		if sums != nil && sums[i].ok {
			ih = hex.EncodeToString(sums[i].sum[:])
		} else {
			hash := HashInputSchema
			if v2 {
				hash = HashInputSchemaV2
			}
			var err error
			if ih, err = hash(d.InputSchema); err != nil {
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
