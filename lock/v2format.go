package lock

import (
	"slices"
	"strings"
)

// formatV2 returns the canonical bytes of l as a version 2 lockfile (see
// docs/spec/lockfile-v2.md): Format's layout and string escaping, with
// lockfileVersion 2 and, per server, the members surfaceHash,
// toolsSetHash, instructionsHash (a hash or null), instructions (only when
// kept), package (only for a server with a pinned package: ecosystem,
// name, version, integrity, and registry when not empty), tools, promptsSetHash, prompts, resourceTemplates and resources
// (only when locked), in that order; per tool name, nameHash,
// descriptionHash, inputSchemaHash, definitionHash, definition (only when
// kept); per prompt name, definitionHash, definition; per resource
// template name, uriTemplate, definitionHash, definition; per resource
// name, uri, definitionHash, definition. A definition is written from its
// canonical form as indented JSON with members sorted as in the canonical
// form, numbers as in the canonical form, and strings escaped as Format
// escapes names (an unpaired surrogate as a lowercase \udxxx escape), so
// that DefinitionCanonical of the written text is the canonical form
// again. Format(Parse(b)) == b for every b that Format wrote.
func formatV2(l *Lockfile) []byte {
	return appendLockfile(make([]byte, 0, 256+estimateSize(l)+definitionsSize(l)), l, Version2, func(b []byte, srv Server) []byte {
		b = append(b, '{')
		b = appendKey(b, 6, "surfaceHash", true)
		b = appendString(b, srv.SurfaceHash)
		b = appendKey(b, 6, "toolsSetHash", false)
		b = appendString(b, srv.ToolsSetHash)
		b = appendKey(b, 6, "instructionsHash", false)
		if srv.InstructionsHash == nil {
			b = append(b, "null"...)
		} else {
			b = appendString(b, *srv.InstructionsHash)
		}
		if srv.Instructions != nil {
			b = appendKey(b, 6, "instructions", false)
			b = appendRecipeString(b, *srv.Instructions, appendString)
		}
		if srv.Package != nil {
			b = appendKey(b, 6, "package", false)
			b = appendPackage(b, srv.Package, 6)
		}
		b = appendKey(b, 6, "tools", false)
		b = append(b, '[')
		tools := sortedTools(srv.Tools)
		for j, t := range tools {
			if j > 0 {
				b = append(b, ',')
			}
			b = append(b, "\n        {"...)
			b = appendKey(b, 10, "name", true)
			b = appendString(b, t.Name)
			b = appendKey(b, 10, "nameHash", false)
			b = appendString(b, t.NameHash)
			b = appendKey(b, 10, "descriptionHash", false)
			b = appendString(b, t.DescriptionHash)
			b = appendKey(b, 10, "inputSchemaHash", false)
			b = appendString(b, t.InputSchemaHash)
			b = appendKey(b, 10, "definitionHash", false)
			b = appendString(b, t.DefinitionHash)
			if t.Definition != "" {
				b = appendKey(b, 10, "definition", false)
				b = appendDefinition(b, t.Definition, 10)
			}
			b = append(b, "\n        }"...)
		}
		if len(tools) > 0 {
			b = append(b, "\n      "...)
		}
		b = append(b, ']')
		b = appendKey(b, 6, "promptsSetHash", false)
		b = appendString(b, srv.PromptsSetHash)
		b = appendEntries(b, "prompts", KindPrompt, srv.Prompts)
		b = appendEntries(b, "resourceTemplates", KindResourceTemplate, srv.ResourceTemplates)
		if srv.Resources != nil {
			b = appendEntries(b, "resources", KindResource, srv.Resources)
		}
		return append(b, "\n    }"...)
	})
}

func definitionsSize(l *Lockfile) int {
	n := 0
	for _, s := range l.Servers {
		for _, t := range s.Tools {
			n += 2*len(t.Definition) + 80
		}
		for _, es := range [][]Entry{s.Prompts, s.ResourceTemplates, s.Resources} {
			for _, e := range es {
				n += 2*len(e.Definition) + 200 + len(e.Name) + len(e.URI)
			}
		}
	}
	return n
}

// appendKey appends a newline, indent spaces and `"key": ` (after a comma
// unless first).
func appendKey(b []byte, indent int, key string, first bool) []byte {
	if !first {
		b = append(b, ',')
	}
	b = append(b, '\n')
	b = append(b, strings.Repeat(" ", indent)...)
	b = append(b, '"')
	b = append(b, key...)
	return append(b, "\": "...)
}

func appendEntries(b []byte, key, kind string, es []Entry) []byte {
	b = appendKey(b, 6, key, false)
	b = append(b, '[')
	if !slices.IsSortedFunc(es, compareEntries(kind)) {
		es = slices.SortedStableFunc(slices.Values(es), compareEntries(kind))
	}
	for j, e := range es {
		if j > 0 {
			b = append(b, ',')
		}
		b = append(b, "\n        {"...)
		b = appendKey(b, 10, "name", true)
		b = appendString(b, e.Name)
		if k := entryKey(kind); k != "" {
			b = appendKey(b, 10, k, false)
			b = appendString(b, e.URI)
		}
		b = appendKey(b, 10, "definitionHash", false)
		b = appendString(b, e.DefinitionHash)
		if e.Definition != "" {
			b = appendKey(b, 10, "definition", false)
			b = appendDefinition(b, e.Definition, 10)
		}
		b = append(b, "\n        }"...)
	}
	if len(es) > 0 {
		b = append(b, "\n      "...)
	}
	return append(b, ']')
}

// appendDefinition appends the canonical JSON text canon as indented JSON
// whose closing bracket is at indent spaces. canon must be a canonical
// form from DefinitionCanonical (a Lockfile from Parse or BuildServer);
// text that does not parse is written as a JSON string, which Parse then
// refuses.
func appendDefinition(b []byte, canon string, indent int) []byte {
	v, err := parseRecipe([]byte(canon))
	if err != nil {
		return appendString(b, canon)
	}
	return appendPretty(b, v, indent)
}

func appendPretty(b []byte, v *rv, indent int) []byte {
	switch v.kind {
	case '{', '[':
		if len(v.vals) == 0 {
			if v.kind == '{' {
				return append(b, "{}"...)
			}
			return append(b, "[]"...)
		}
		b = append(b, v.kind)
		for i, e := range v.vals {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, '\n')
			b = append(b, strings.Repeat(" ", indent+2)...)
			if v.kind == '{' {
				b = appendRecipeString(b, v.keys[i], appendString)
				b = append(b, ": "...)
			}
			b = appendPretty(b, e, indent+2)
		}
		b = append(b, '\n')
		b = append(b, strings.Repeat(" ", indent)...)
		if v.kind == '{' {
			return append(b, '}')
		}
		return append(b, ']')
	case '"':
		return appendRecipeString(b, v.s, appendString)
	}
	return appendRecipeCanonical(b, v)
}
