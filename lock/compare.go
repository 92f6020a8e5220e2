package lock

import (
	"maps"
	"slices"
)

// Diff is a structured comparison of two lockfiles; everything is sorted.
type Diff struct {
	Servers []ServerDiff // sorted by Name
}

// Change says how a server or tool differs.
type Change string

const (
	Added   Change = "added"   // only in the new lockfile
	Removed Change = "removed" // only in the old lockfile
	Changed Change = "changed" // in both, with different hashes
)

// ServerDiff is one server that differs.
type ServerDiff struct {
	Name   string // the server's name
	Change Change // Added, Removed or Changed
	// Tools are the tools that differ, sorted by name. For an Added or
	// Removed server: every tool, as Added or Removed. A Changed server
	// with no Tools has the same tools but a different surfaceHash (only
	// possible for a Lockfile that did not come from Parse or BuildServer).
	Tools []ToolDiff
	// Entries are the prompts, resource templates and resources that
	// differ (version 2 on both sides only), by kind then name.
	Entries []EntryDiff
	// Instructions is set when the instructions hash differs (version 2
	// on both sides only).
	Instructions *InstructionsDiff
	// Package is set when the pinned package differs (see PackageDiff).
	Package *PackageDiff
}

// ToolDiff is one tool that differs. Fields lists, for Changed, which of
// "name", "description", "inputSchema", "definition" changed (in that
// order; "definition" only when both sides have a definitionHash).
// Members names the members of the definition that changed, when both
// sides keep the definition.
type ToolDiff struct {
	Name    string         // the tool's name
	Change  Change         // Added, Removed or Changed
	Fields  []string       // for Changed: those of "name", "description", "inputSchema", "definition" that differ
	Members []MemberChange // for a changed definition both sides keep: its members that changed
}

// Empty reports whether there is no difference.
func (d Diff) Empty() bool { return len(d.Servers) == 0 }

// Compare returns what changed from old to new, ignoring lockfileVersion,
// generatedAt and generatedBy. Either may be nil (treated as no servers).
//
// Servers are matched by name, and tools by name within a server. A tool
// whose name changed is therefore reported as one tool Removed and another
// Added; "name" appears in Fields only when two tools of one name have
// different nameHashes, which Parse never accepts. A tool is Changed when
// its descriptionHash or inputSchemaHash differs. A server is Changed
// when its pinned package differs as ComparePackages says, even with the
// same tools.
func Compare(old, new *Lockfile) Diff {
	var o, n map[string]Server
	if old != nil {
		o = old.Servers
	}
	if new != nil {
		n = new.Servers
	}
	names := slices.Sorted(maps.Keys(o))
	for name := range n {
		if _, ok := o[name]; !ok {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	var d Diff
	for _, name := range names {
		os, inOld := o[name]
		ns, inNew := n[name]
		switch {
		case !inNew:
			d.Servers = append(d.Servers, ServerDiff{Name: name, Change: Removed, Tools: all(os.Tools, Removed)})
		case !inOld:
			d.Servers = append(d.Servers, ServerDiff{Name: name, Change: Added, Tools: all(ns.Tools, Added)})
		default:
			tools := compareTools2(os.Tools, ns.Tools)
			entries, instr := compareV2(os, ns)
			pkg := ComparePackages(os.Package, ns.Package)
			if len(tools) > 0 || os.SurfaceHash != ns.SurfaceHash || len(entries) > 0 || instr != nil || pkg != nil {
				d.Servers = append(d.Servers, ServerDiff{Name: name, Change: Changed, Tools: tools, Entries: entries, Instructions: instr, Package: pkg})
			}
		}
	}
	return d
}

func all(tools []Tool, c Change) []ToolDiff {
	out := make([]ToolDiff, 0, len(tools))
	for _, t := range sortedTools(tools) {
		out = append(out, ToolDiff{Name: t.Name, Change: c})
	}
	return out
}

// compareTools2 merges two tool lists sorted by name.
func compareTools2(old, new []Tool) []ToolDiff {
	old, new = sortedTools(old), sortedTools(new)
	var out []ToolDiff
	i, j := 0, 0
	for i < len(old) || j < len(new) {
		switch {
		case j == len(new) || (i < len(old) && old[i].Name < new[j].Name):
			out = append(out, ToolDiff{Name: old[i].Name, Change: Removed})
			i++
		case i == len(old) || new[j].Name < old[i].Name:
			out = append(out, ToolDiff{Name: new[j].Name, Change: Added})
			j++
		default:
			a, b := old[i], new[j]
			var fields []string
			if a.NameHash != b.NameHash {
				fields = append(fields, "name")
			}
			if a.DescriptionHash != b.DescriptionHash {
				fields = append(fields, "description")
			}
			if a.InputSchemaHash != b.InputSchemaHash {
				fields = append(fields, "inputSchema")
			}
			var members []MemberChange
			if a.DefinitionHash != "" && b.DefinitionHash != "" && (a.DefinitionHash != b.DefinitionHash || redactedDiffers(a.Definition, b.Definition)) {
				fields = append(fields, "definition")
				members = DefinitionChanges(a.Definition, b.Definition)
			}
			if fields != nil {
				out = append(out, ToolDiff{Name: a.Name, Change: Changed, Fields: fields, Members: members})
			}
			i++
			j++
		}
	}
	return out
}
