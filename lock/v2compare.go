package lock

import (
	"slices"
	"strconv"
	"strings"
)

// MemberChange is one member of a definition that differs between two
// versions of it. Path names the member from the definition's top
// ("title", "annotations.destructiveHint", "inputSchema.properties.q",
// "icons[0].src", `_meta["com.example/x"]`); Old and New are its values as
// canonical JSON text ("" when the member is absent on that side). An array
// whose length changed is one change at the array's path.
type MemberChange struct {
	Path     string
	Old, New string
}

// DefinitionChanges returns the members that differ between two canonical
// definitions (Tool.Definition, Entry.Definition), sorted by path in the
// canonical member order; nil when either is "" (not kept) or they are
// equal. A definition that does not parse is one change at path "".
func DefinitionChanges(old, new string) []MemberChange {
	if old == "" || new == "" || old == new {
		return nil
	}
	a, err1 := parseRecipe([]byte(old))
	b, err2 := parseRecipe([]byte(new))
	if err1 != nil || err2 != nil {
		return []MemberChange{{Old: old, New: new}}
	}
	var out []MemberChange
	diffValues(&out, "", a, b)
	return out
}

func canonText(v *rv) string {
	if v == nil {
		return ""
	}
	return string(appendRecipeCanonical(nil, v))
}

func diffValues(out *[]MemberChange, path string, a, b *rv) {
	switch {
	case a != nil && b != nil && a.kind == '{' && b.kind == '{':
		i, j := 0, 0
		for i < len(a.keys) || j < len(b.keys) {
			var c int
			switch {
			case i == len(a.keys):
				c = 1
			case j == len(b.keys):
				c = -1
			default:
				c = compareUTF16(a.keys[i], b.keys[j])
			}
			switch {
			case c < 0:
				diffValues(out, memberPath(path, a.keys[i]), a.vals[i], nil)
				i++
			case c > 0:
				diffValues(out, memberPath(path, b.keys[j]), nil, b.vals[j])
				j++
			default:
				diffValues(out, memberPath(path, a.keys[i]), a.vals[i], b.vals[j])
				i++
				j++
			}
		}
	case a != nil && b != nil && a.kind == '[' && b.kind == '[' && len(a.vals) == len(b.vals):
		for i := range a.vals {
			diffValues(out, path+"["+strconv.Itoa(i)+"]", a.vals[i], b.vals[i])
		}
	default:
		if x, y := canonText(a), canonText(b); x != y {
			*out = append(*out, MemberChange{Path: path, Old: x, New: y})
		}
	}
}

// memberPath appends member key to path: ".key" for identifier-like keys,
// `["key"]` otherwise (Go-quoted, so no raw control character appears).
func memberPath(path, key string) string {
	ident := key != ""
	for i, c := range key {
		if !(c == '_' || c == '$' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && ('0' <= c && c <= '9' || c == '-')) {
			ident = false
			break
		}
	}
	if !ident {
		return path + "[" + strconv.QuoteToASCII(key) + "]"
	}
	if path == "" {
		return key
	}
	return path + "." + key
}

// ignored reports whether a change at path is under one of the member
// paths in ignore (the path itself, or a member or element inside it).
func ignored(path string, ignore []string) bool {
	for _, m := range ignore {
		if path == m || strings.HasPrefix(path, m+".") || strings.HasPrefix(path, m+"[") {
			return true
		}
	}
	return false
}

// OnlyIgnored reports whether two canonical definitions (Tool.Definition,
// Entry.Definition) differ, and only in members under the paths in ignore
// (each a MemberChange.Path: the member itself, or a member or element
// inside it): such a change is not drift. It is false when either
// definition is "" (not kept: which members changed is unknown). It is
// part of the comparison of definitions (DefinitionChanges), which is why
// it lives here and not with the callers that read ignore from
// agentgate.toml.
func OnlyIgnored(old, new string, ignore []string) bool {
	ch := DefinitionChanges(old, new)
	if len(ch) == 0 {
		return false
	}
	for _, c := range ch {
		if !ignored(c.Path, ignore) {
			return false
		}
	}
	return true
}

// EntryDiff is one prompt, resource template or resource that differs.
type EntryDiff struct {
	Kind    string         // KindPrompt, KindResourceTemplate, KindResource
	Name    string         // the name (the uri for a resource)
	Change  Change         // Added, Removed or Changed
	Members []MemberChange // for Changed, when both definitions are kept
}

// InstructionsDiff is a change of a server's instructions. Old and New are
// the texts when kept (nil when absent or not kept); OldHash and NewHash
// the hashes (nil: the server sent none).
type InstructionsDiff struct {
	Old, New         *string
	OldHash, NewHash *string
}

// redactedDiffers reports whether two kept texts of one definition (or
// instructions) with equal hashes differ where one holds the marker
// Redacted: the reader cannot check a redacted text against its hash, so
// a redacted text that is not what the live server's text redacts to
// (a lockfile edited to show other words beside a marker) is a change.
func redactedDiffers(a, b string) bool {
	return a != "" && b != "" && a != b && (holdsRedacted(a) || holdsRedacted(b))
}

// compareV2 compares the version 2 pins of one server in two lockfiles.
// It reports nothing when either side has no version 2 pins (a version 1
// file, or a server kept from one): an upgrade is a format change, not
// drift.
func compareV2(o, n Server) ([]EntryDiff, *InstructionsDiff) {
	if o.ToolsSetHash == "" || n.ToolsSetHash == "" {
		return nil, nil
	}
	var instr *InstructionsDiff
	eq := func(x, y *string) bool { return (x == nil) == (y == nil) && (x == nil || *x == *y) }
	if !eq(o.InstructionsHash, n.InstructionsHash) || o.Instructions != nil && n.Instructions != nil && redactedDiffers(*o.Instructions, *n.Instructions) {
		instr = &InstructionsDiff{Old: o.Instructions, New: n.Instructions, OldHash: o.InstructionsHash, NewHash: n.InstructionsHash}
	}
	var out []EntryDiff
	out = append(out, compareEntryLists(KindPrompt, o.Prompts, n.Prompts)...)
	out = append(out, compareEntryLists(KindResourceTemplate, o.ResourceTemplates, n.ResourceTemplates)...)
	if o.Resources != nil || n.Resources != nil {
		out = append(out, compareEntryLists(KindResource, o.Resources, n.Resources)...)
	}
	return out, instr
}

func compareEntryLists(kind string, old, new []Entry) []EntryDiff {
	cmp := compareEntries(kind)
	old = slices.SortedStableFunc(slices.Values(old), cmp)
	new = slices.SortedStableFunc(slices.Values(new), cmp)
	var out []EntryDiff
	i, j := 0, 0
	for i < len(old) || j < len(new) {
		switch {
		case j == len(new) || (i < len(old) && cmp(old[i], new[j]) < 0):
			out = append(out, EntryDiff{Kind: kind, Name: entryID(kind, old[i]), Change: Removed})
			i++
		case i == len(old) || cmp(new[j], old[i]) < 0:
			out = append(out, EntryDiff{Kind: kind, Name: entryID(kind, new[j]), Change: Added})
			j++
		default:
			a, b := old[i], new[j]
			if a.DefinitionHash != b.DefinitionHash || a.URI != b.URI || a.Name != b.Name || redactedDiffers(a.Definition, b.Definition) {
				out = append(out, EntryDiff{Kind: kind, Name: entryID(kind, a), Change: Changed, Members: DefinitionChanges(a.Definition, b.Definition)})
			}
			i++
			j++
		}
	}
	return out
}
