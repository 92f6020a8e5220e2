package lock

// v2.go: lockfile version 2, which pins everything the model reads from a
// server (whole tool definitions, instructions, prompts, resource
// templates, optionally resources). Specified in docs/spec/lockfile-v2.md.

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// ServerV2Fields are the members a version 2 lockfile adds to a server.
type ServerV2Fields struct {
	// ToolsSetHash is the set hash (SetHash) of the tools listing.
	ToolsSetHash string `json:"toolsSetHash,omitempty"`
	// InstructionsHash is InstructionsHash of the server's instructions;
	// nil (written as null) when the server sent none.
	InstructionsHash *string `json:"instructionsHash,omitempty"`
	// Instructions is the text itself, nil when the server sent none or
	// the lockfile keeps hashes only.
	Instructions *string `json:"instructions,omitempty"`
	// PromptsSetHash is the set hash of the prompts listing.
	PromptsSetHash string `json:"promptsSetHash,omitempty"`
	// Prompts are sorted by Name as UTF-8 bytes; URI is "".
	Prompts []Entry `json:"prompts,omitempty"`
	// ResourceTemplates are sorted by Name; URI is the uriTemplate.
	ResourceTemplates []Entry `json:"resourceTemplates,omitempty"`
	// Resources are sorted by URI; nil when resources are not locked for
	// this server (agentgate.toml decides).
	Resources []Entry `json:"resources,omitempty"`
	// Package is the package a stdio server runs, pinned; nil for a remote
	// server, a command no package is attributed to, or a server locked
	// before packages were pinned.
	Package *Package `json:"package,omitempty"`
}

// Entry is one locked prompt, resource template or resource.
type Entry struct {
	Name           string // the "name" member of the definition as listed
	URI            string // uriTemplate of a template, uri of a resource, "" for a prompt
	DefinitionHash string // DefinitionHash of the definition as listed
	Definition     string // canonical form; "" when the lockfile keeps hashes only
}

// Kinds of entries, as they are named in a lockfile and in errors.
const (
	KindTool             = "tool"
	KindPrompt           = "prompt"
	KindResourceTemplate = "resource template"
	KindResource         = "resource"
)

// Listing is what one server sent besides its tools, as raw definitions
// (each element's bytes exactly as received), for BuildServer of a
// version 2 server.
type Listing struct {
	Instructions      *string  // nil: the server sent no instructions string
	Prompts           [][]byte // nil or empty: none (or not advertised)
	ResourceTemplates [][]byte // nil or empty: none (or not advertised)
	Resources         [][]byte // nil: resources are not locked
	LockResources     bool     // lock Resources (an empty list when none)
	// Sent holds, for each element above that reaches BuildServer
	// redacted (RedactDefinition), the definition hash of the element as
	// the server sent it, which is pinned instead of the redacted text's;
	// InstructionsSent is the same for Instructions (the instructions
	// hash of the text as sent).
	Sent             map[ElementRef]string
	InstructionsSent *string
}

// ElementRef names one element of a Listing: its kind (KindPrompt,
// KindResourceTemplate or KindResource) and its index in that list.
type ElementRef struct {
	Kind  string
	Index int
}

// buildV2 is BuildServer of a version 2 server.
func buildV2(defs []ToolDef, l Listing, definitions bool) (Server, error) {
	srv, err := buildServer(defs, nil, true)
	if err != nil {
		return Server{}, err
	}
	byName := make(map[string]int, len(srv.Tools))
	for i, t := range srv.Tools {
		byName[t.Name] = i
	}
	set := make([]SetEntry, 0, len(defs))
	for _, d := range defs {
		c, err := DefinitionCanonical(d.Raw)
		if err != nil {
			return Server{}, &ToolError{Tool: d.Name, Msg: "the tool definition has no canonical form: " + err.Error()}
		}
		t := &srv.Tools[byName[d.Name]]
		t.DefinitionHash = sha256Hex(c)
		if d.Sent != nil {
			if d.Sent.Definition == "" {
				return Server{}, &ToolError{Tool: d.Name, Msg: "the tool definition has no canonical form"}
			}
			t.DefinitionHash = d.Sent.Definition
		}
		if definitions {
			t.Definition = string(c)
		}
		set = append(set, SetEntry{Name: d.Name, Hash: t.DefinitionHash})
	}
	srv.ToolsSetHash = SetHash(set)
	if l.Instructions != nil {
		srv.InstructionsHash = InstructionsHash(l.Instructions)
		if l.InstructionsSent != nil {
			h := *l.InstructionsSent
			srv.InstructionsHash = &h
		}
		if definitions {
			s := *l.Instructions
			srv.Instructions = &s
		}
	}
	var setHash string
	if srv.Prompts, setHash, err = buildEntries(KindPrompt, l.Prompts, l.Sent, definitions); err != nil {
		return Server{}, err
	}
	srv.PromptsSetHash = setHash
	if srv.ResourceTemplates, _, err = buildEntries(KindResourceTemplate, l.ResourceTemplates, l.Sent, definitions); err != nil {
		return Server{}, err
	}
	if l.LockResources {
		if srv.Resources, _, err = buildEntries(KindResource, l.Resources, l.Sent, definitions); err != nil {
			return Server{}, err
		}
	}
	return srv, nil
}

// entryKey is the member naming an entry of kind besides "name" ("" for a
// prompt).
func entryKey(kind string) string {
	switch kind {
	case KindResourceTemplate:
		return "uriTemplate"
	case KindResource:
		return "uri"
	}
	return ""
}

// compareEntries orders entries of one kind: resources by URI, the others
// by name, as UTF-8 bytes.
func compareEntries(kind string) func(a, b Entry) int {
	if kind == KindResource {
		return func(a, b Entry) int { return strings.Compare(a.URI, b.URI) }
	}
	return func(a, b Entry) int { return strings.Compare(a.Name, b.Name) }
}

// entryID is what identifies an entry of kind on one server.
func entryID(kind string, e Entry) string {
	if kind == KindResource {
		return e.URI
	}
	return e.Name
}

func buildEntries(kind string, raws [][]byte, sent map[ElementRef]string, definitions bool) ([]Entry, string, error) {
	out := make([]Entry, 0, len(raws))
	set := make([]SetEntry, 0, len(raws))
	key := entryKey(kind)
	for i, raw := range raws {
		v, err := parseRecipe(raw)
		if err != nil {
			return nil, "", &ToolError{Kind: kind, Msg: fmt.Sprintf("%ss[%d]: the definition has no canonical form: %v", strings.ReplaceAll(kind, " ", ""), i, err)}
		}
		str := func(member string) (string, error) {
			m, ok := v.member(member)
			switch {
			case !ok || m.kind != '"':
				return "", &ToolError{Kind: kind, Field: member, Msg: fmt.Sprintf("element %d: want a string", i)}
			case !utf8.ValidString(m.s): // an unpaired surrogate, as WTF-8
				return "", &ToolError{Kind: kind, Field: member, Msg: fmt.Sprintf("element %d: holds an unpaired surrogate, which agentgate cannot pin", i)}
			case m.s == "":
				return "", &ToolError{Kind: kind, Field: member, Msg: fmt.Sprintf("element %d: must not be empty", i)}
			}
			return m.s, nil
		}
		var e Entry
		if v.kind != '{' {
			return nil, "", &ToolError{Kind: kind, Msg: fmt.Sprintf("element %d: want a JSON object", i)}
		}
		if e.Name, err = str("name"); err != nil {
			return nil, "", err
		}
		if key != "" {
			if e.URI, err = str(key); err != nil {
				if te, ok := err.(*ToolError); ok {
					te.Tool = e.Name
				}
				return nil, "", err
			}
		}
		c := appendRecipeCanonical(nil, v)
		e.DefinitionHash = sha256Hex(c)
		if h, ok := sent[ElementRef{kind, i}]; ok {
			e.DefinitionHash = h
		}
		if definitions {
			e.Definition = string(c)
		}
		out = append(out, e)
		set = append(set, SetEntry{Name: e.Name, Hash: e.DefinitionHash})
	}
	cmp := compareEntries(kind)
	slices.SortStableFunc(out, cmp)
	for i := 1; i < len(out); i++ {
		if cmp(out[i-1], out[i]) == 0 {
			return nil, "", &ToolError{Kind: kind, Tool: entryID(kind, out[i]),
				Msg: fmt.Sprintf("the server listed two %ss with this %s; it must be unique on one server, so neither can be pinned", kind, map[bool]string{true: "uri", false: "name"}[kind == KindResource])}
		}
	}
	return out, SetHash(set), nil
}

// SameServer reports whether a and b lock the same surface, every pin
// and definition included.
func SameServer(a, b Server) bool {
	eqp := func(x, y *string) bool { return (x == nil) == (y == nil) && (x == nil || *x == *y) }
	return a.SurfaceHash == b.SurfaceHash && slices.Equal(a.Tools, b.Tools) &&
		a.ToolsSetHash == b.ToolsSetHash && eqp(a.InstructionsHash, b.InstructionsHash) && eqp(a.Instructions, b.Instructions) &&
		a.PromptsSetHash == b.PromptsSetHash && slices.Equal(a.Prompts, b.Prompts) &&
		slices.Equal(a.ResourceTemplates, b.ResourceTemplates) &&
		(a.Resources == nil) == (b.Resources == nil) && slices.Equal(a.Resources, b.Resources) &&
		samePackage(a.Package, b.Package)
}

// cloneV2 copies srv's version 2 slices, sorted, so that the lockfile owns
// them.
func cloneV2(srv Server) Server {
	sorted := func(kind string, es []Entry) []Entry {
		if es == nil {
			return nil
		}
		return slices.SortedStableFunc(slices.Values(es), compareEntries(kind))
	}
	srv.Prompts = sorted(KindPrompt, srv.Prompts)
	if srv.Prompts == nil {
		srv.Prompts = []Entry{}
	}
	srv.ResourceTemplates = sorted(KindResourceTemplate, srv.ResourceTemplates)
	if srv.ResourceTemplates == nil {
		srv.ResourceTemplates = []Entry{}
	}
	srv.Resources = sorted(KindResource, srv.Resources)
	if srv.Package != nil {
		p := *srv.Package
		srv.Package = &p
	}
	return srv
}

// Rehash recomputes a version 2 server's surfaceHash, toolsSetHash and
// promptsSetHash from its entries (after entries were replaced, as
// agentgate does for members its configuration ignores).
func Rehash(srv Server) Server {
	srv.Tools = slices.SortedStableFunc(slices.Values(srv.Tools), compareTools)
	srv.SurfaceHash = SurfaceHash(srv.Tools)
	set := make([]SetEntry, len(srv.Tools))
	for i, t := range srv.Tools {
		set[i] = SetEntry{Name: t.Name, Hash: t.DefinitionHash}
	}
	srv.ToolsSetHash = SetHash(set)
	set = set[:0]
	for _, p := range srv.Prompts {
		set = append(set, SetEntry{Name: p.Name, Hash: p.DefinitionHash})
	}
	srv.PromptsSetHash = SetHash(set)
	return srv
}
