package lock

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// DecodeTool decodes one element of a tools/list result's "tools" array
// under the rules of lockfile version (Version1 or Version2; an error
// otherwise), only as far as the three hashed fields, keeping raw as
// ToolDef.Raw.
//
// The whole object must be I-JSON (see Canonicalize: no duplicate member
// names at any depth, valid UTF-8, no lone surrogates, finite numbers).
// "name" must be a non-empty string; "description" a string, or null or
// absent (Description nil); "inputSchema" any JSON value, or null or absent
// (InputSchema nil), kept as the raw bytes sent. Other members are ignored.
// Member names are compared after unescaping. Errors are *ToolError and
// name the field.
//
// Version 2 differs in one rule: a string may hold an unpaired surrogate
// escape (\ud800 not part of a pair), as the tool definition hash accepts
// it. Such a string decodes to WTF-8 (the three bytes UTF-8 would use for
// the code point), so a description's descriptionHash is the SHA-256 of
// its WTF-8 bytes, and an inputSchema holding one hashes as
// HashInputSchema of version 2 says. A name must still be UTF-8: it is the
// tool's identity (BuildServer refuses it).
//
// Raw and InputSchema share raw's bytes (no copy: a 10,000-tool listing is
// held once): the caller must not modify raw afterwards.
func DecodeTool(version int, raw []byte) (ToolDef, error) {
	if err := checkVersion(version); err != nil {
		return ToolDef{}, err
	}
	f := getScanner()
	defer putScanner(f)
	f.wtf8 = version == Version2
	def, _, err := f.decodeTool(raw)
	return def, err
}

// schemaSum is the SHA-256 of a tool's inputSchema in canonical form, when
// the scan that decoded the tool computed it.
type schemaSum struct {
	sum [32]byte
	ok  bool
}

// decodeTool is DecodeTool (of version 2 when f.wtf8 is set). It also returns the hash of the inputSchema's
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

// hashSchemaV2 is HashInputSchema of version 2.
func hashSchemaV2(raw []byte) (string, error) {
	h, err := hashSchema(raw)
	if err == nil {
		return h, nil
	}
	c, cerr := DefinitionCanonical(raw)
	if cerr != nil || !strings.Contains(string(c), `\ud`) {
		return "", err
	}
	return sha256Hex(c), nil
}

// DecodeServer decodes the raw tools one server listed and hashes them
// under the rules of lockfile version (Version1 or Version2; an error
// otherwise): DecodeTool of each, then the tools' field hashes and the
// surfaceHash as BuildServer gives them (for version 2 without the
// definition hashes and set hashes: BuildServer adds those), returning
// the decoded tools too, in the order given. It is faster than the two
// steps apart: for version 1 each inputSchema is hashed while it is
// validated. A DecodeTool error is returned wrapped with the tool's index,
// as "tools[i]: " and the *ToolError.
func DecodeServer(version int, raws []json.RawMessage) (Server, []ToolDef, error) {
	if err := checkVersion(version); err != nil {
		return Server{}, nil, err
	}
	v2 := version == Version2
	f := getScanner()
	defer putScanner(f)
	f.wtf8 = v2
	defs := make([]ToolDef, len(raws))
	var sums []schemaSum
	if !v2 {
		sums = make([]schemaSum, len(raws))
	}
	for i, raw := range raws {
		var err error
		var sum schemaSum
		if defs[i], sum, err = f.decodeTool(raw); err != nil {
			return Server{}, nil, fmt.Errorf("tools[%d]: %w", i, err)
		}
		if !v2 {
			sums[i] = sum
		}
	}
	srv, err := buildServer(defs, sums, v2)
	if err != nil {
		return Server{}, nil, err
	}
	return srv, defs, nil
}

// BuildOptions is what BuildServer pins of a version 2 server besides its
// tools. A version 1 server pins tools only: its BuildOptions must be the
// zero value.
type BuildOptions struct {
	// Listing is what the server sent besides its tools.
	Listing Listing
	// Definitions keeps each definition's canonical form (Tool.Definition,
	// Entry.Definition) and the instructions text beside their hashes.
	Definitions bool
}

// zero reports whether o is the zero BuildOptions.
func (o BuildOptions) zero() bool {
	l := o.Listing
	return !o.Definitions && l.Instructions == nil && l.Prompts == nil && l.ResourceTemplates == nil &&
		l.Resources == nil && !l.LockResources && l.Sent == nil && l.InstructionsSent == nil
}

// BuildServer hashes the tools one server listed into a Server entry of a
// lockfile of version (Version1 or Version2; an error otherwise).
//
// Version 1: each tool's nameHash, descriptionHash and inputSchemaHash (see
// HashName, HashDescription, HashInputSchema), the tools sorted by name as
// UTF-8 bytes, and the surfaceHash over them (see SurfaceHash). Zero tools
// give a Server with an empty, non-nil Tools. Errors are *ToolError: an
// empty name, text that is not valid UTF-8, an inputSchema that is not
// I-JSON, or two tools with one name. opt must be the zero BuildOptions.
//
// Version 2: the same under version 2's rules (see DecodeTool: descriptions
// and schemas may hold unpaired surrogates), plus the version 2 pins: each
// tool's definitionHash (and, when opt.Definitions is set, its canonical
// definition), the toolsSetHash, the instructions hash (and text), and the
// prompts, resource templates and (when opt.Listing.LockResources)
// resources of opt.Listing, each with its definition hash and definition.
// Errors are *ToolError (Tool names the tool, prompt, template or
// resource): besides version 1's, a definition that has no canonical form
// (a repeated member name, invalid JSON), a prompt or template without a
// string name, a template without a string uriTemplate, a resource without
// a string uri and name, two prompts or templates of one name or two
// resources of one uri on one server.
func BuildServer(version int, defs []ToolDef, opt BuildOptions) (Server, error) {
	if err := checkVersion(version); err != nil {
		return Server{}, err
	}
	if version == Version2 {
		return buildV2(defs, opt.Listing, opt.Definitions)
	}
	if !opt.zero() {
		return Server{}, errors.New("a version 1 lockfile pins tools only: BuildOptions must be empty")
	}
	return buildServer(defs, nil, false)
}

// buildServer is BuildServer, taking sums[i], when set, as the hash of
// defs[i]'s inputSchema; with v2, under lockfile version 2's rules
// (DecodeServer of Version2).
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
			hash := hashSchema
			if v2 {
				hash = hashSchemaV2
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
