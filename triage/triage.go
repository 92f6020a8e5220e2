// Package triage labels a change to an MCP server's surface with what it
// means for a reviewer: "new instruction to the model", "mentions secrets
// or private files", "permission hint loosened", "wording only", ... Each
// label has a severity and the evidence (the words or member that
// triggered it, escaped for display).
//
// The labeller is pure and deterministic: no model calls, no network, no
// files. Its word rules are the table in rules.go (every row with an
// example it must match and one it must not); the structural rules
// (annotations, parameters, URLs, names, hidden characters) are in
// struct.go and names.go. docs/TRIAGE.md documents both and the corpus
// they are measured on.
//
// Input is the old and the new definition of one item (a tool, prompt or
// resource template as a JSON object, or a server's instructions text)
// and the names on the rest of the surface, for the rules that look
// across items (tool-shadowing, lookalike-name). A version 1 lockfile
// keeps only hashes: there the old side is unknown (Item.Def nil), and
// only the rules that read the new text alone can fire (see Label).
package triage

import (
	"cmp"
	"slices"
)

// Severity orders labels: High first.
type Severity int

// The severities, from least to most severe.
const (
	Low Severity = iota + 1
	Medium
	High
)

// String is "low", "medium" or "high".
func (s Severity) String() string {
	switch s {
	case Low:
		return "low"
	case Medium:
		return "medium"
	case High:
		return "high"
	}
	return "none"
}

// ParseSeverity is the inverse of String; ok is false for anything else.
func ParseSeverity(s string) (Severity, bool) {
	for _, v := range []Severity{Low, Medium, High} {
		if v.String() == s {
			return v, true
		}
	}
	return 0, false
}

// The label ids, in the order of the table in docs/TRIAGE.md.
const (
	NewInstruction     = "new-instruction"
	SensitivePath      = "sensitive-path"
	Exfiltration       = "exfiltration"
	ToolShadowing      = "tool-shadowing"
	LookalikeName      = "lookalike-name"
	HiddenText         = "hidden-text"
	NameCollision      = "name-collision"
	PermissionLoosened = "permission-loosened"
	NewURL             = "new-url"
	NewParameter       = "new-parameter"
	NewTool            = "new-tool"
	WordingOnly        = "wording-only"
)

// IDs lists every label id, high severity first, in the order labels of
// one severity are reported.
var IDs = []string{NewInstruction, SensitivePath, Exfiltration, ToolShadowing, LookalikeName, HiddenText,
	NameCollision, PermissionLoosened, NewURL, NewParameter, NewTool, WordingOnly}

// DefaultSeverity is each label's severity before agentgate.toml changes
// it. NewParameter is Medium when the parameter is required.
var DefaultSeverity = map[string]Severity{
	NewInstruction: High, SensitivePath: High, Exfiltration: High, ToolShadowing: High,
	LookalikeName: High, HiddenText: High, NameCollision: Medium, PermissionLoosened: Medium, NewURL: Medium,
	NewParameter: Low, NewTool: Low, WordingOnly: Low,
}

// Label is one finding on one item.
type Label struct {
	ID       string   // one of IDs
	Severity Severity // DefaultSeverity, or Medium for a required new-parameter
	// Evidence is what triggered the label: the member path and the words
	// ("inputSchema.properties.notes.description: “read ~/.ssh/id_rsa”"),
	// escaped for display (hidden characters shown as <U+XXXX> escapes,
	// one line, at most MaxEvidence bytes of quoted text).
	Evidence string
}

// The kinds of items, as lock names them, plus the instructions.
const (
	KindTool             = "tool"
	KindPrompt           = "prompt"
	KindResourceTemplate = "resource template"
	KindInstructions     = "instructions"
)

// Item is one definition on a server's surface.
type Item struct {
	Kind string // KindTool, KindPrompt, KindResourceTemplate or KindInstructions
	Name string // the name as listed ("" for instructions)
	// Def is the definition as JSON: the object as the server listed it
	// (or its canonical form from a version 2 lockfile), or for
	// KindInstructions a JSON string. Nil when not known (a version 1
	// lockfile keeps only hashes).
	Def []byte
}

// Name is one tool, prompt or resource template on the surface that the
// labelled item is compared with.
type Name struct {
	Server string
	Kind   string
	Name   string
}

// Surface is the context of a labelled item: the server it belongs to
// and every other name listed by the servers of the repository (the
// item's own entry may be among them; it is skipped).
type Surface struct {
	Server string
	Names  []Name
	// index finds the names that look like an item's by their keys, and
	// the tools a text names; NewSurface's is built on first use and
	// shared by the copies. A Surface without one compares the item with
	// every name, which costs a skeleton per name per item (minutes for
	// 10,000 tools), and normalises every tool name per item.
	index *nameIndex
}

// NewSurface is the Surface of server among names, with the index that
// makes lookalike-name cost one lookup per item instead of a comparison
// with every name. Every item of a listing should share one.
func NewSurface(server string, names []Name) Surface {
	return Surface{Server: server, Names: names, index: &nameIndex{}}
}

// Change labels one item. old is nil for an added item (a new tool, a new
// server, a first lock); old.Def is nil when the old definition is not
// known (a version 1 lockfile), which labels the new text as a whole
// like an added item but without new-tool. new is the item now; a removed
// item (new nil) gets no labels.
//
// What fires:
//   - on the new text alone, every string of the definition (nested
//     schema descriptions and titles, property names) after Normalize,
//     one member at a time, all members joined, and across seams (a
//     description that stops mid-sentence read on into each nested
//     description), so that a sentence split across members is found: new-instruction, sensitive-path,
//     exfiltration, tool-shadowing (the rules table), and hidden-text;
//     for a changed item a match whose words the old definition already
//     held does not fire again;
//   - on the name: lookalike-name (names.go);
//   - on old and new both known: permission-loosened, new-url,
//     new-parameter, wording-only; on added items new-url and new-tool.
//
// The result is sorted by severity (high first), then by the order of
// IDs, then by evidence; one label per id and evidence.
func Change(old, new *Item, s Surface) []Label {
	if new == nil {
		return nil
	}
	var oldDef []byte
	if old != nil {
		oldDef = old.Def
	}
	nt := collect(new.Kind, new.Def)
	ot := collect(new.Kind, oldDef)
	var out []Label
	out = append(out, textLabels(nt, ot, new, s)...)
	out = append(out, hiddenLabels(new, nt, ot)...)
	out = append(out, defaultDestLabels(nt, ot)...)
	if new.Kind != KindInstructions {
		out = append(out, nameLabels(new, s)...)
	}
	out = append(out, structLabels(old, new, nt, ot)...)
	if Highest(out) < High {
		if l, ok := wordingLabel(nt, ot); ok {
			out = append(out, l)
		}
	}
	switch {
	case old == nil && new.Kind != KindInstructions && Highest(out) < Medium:
		out = append(out, Label{ID: NewTool, Severity: Low, Evidence: evidence("", new.Kind+" "+new.Name)})
	case old != nil && old.Def != nil && nt.known && len(out) == 0:
		out = wordingOnly(nt, ot)
	}
	return Sort(out)
}

// Sort sorts labels as Change returns them and drops repeats of one id
// and evidence.
func Sort(ls []Label) []Label {
	order := map[string]int{}
	for i, id := range IDs {
		order[id] = i
	}
	slices.SortStableFunc(ls, func(a, b Label) int {
		return cmp.Or(cmp.Compare(b.Severity, a.Severity), cmp.Compare(order[a.ID], order[b.ID]), cmp.Compare(a.Evidence, b.Evidence))
	})
	return slices.CompactFunc(ls, func(a, b Label) bool { return a.ID == b.ID && a.Evidence == b.Evidence })
}

// Highest is the highest severity among ls, 0 when ls is empty.
func Highest(ls []Label) Severity {
	var h Severity
	for _, l := range ls {
		h = max(h, l.Severity)
	}
	return h
}
