package triage

import (
	"cmp"
	"encoding/json"
	"slices"

	"github.com/agentgate/agentgate/lock"
)

// Finding is one item of a server that differs, with its labels (none
// for a removed item).
type Finding struct {
	Kind   string // KindTool, KindPrompt, KindResourceTemplate or KindInstructions
	Name   string // "" for instructions
	Change string // "added", "removed" or "changed"
	Labels []Label
}

// Highest is the highest severity of the finding's labels, 0 for none.
func (f Finding) Highest() Severity { return Highest(f.Labels) }

// Diff labels what d reports, per server name: every tool, prompt,
// resource template and instructions text added, removed or changed (for
// a server d reports as added, every one it has), in d's order (tools,
// then instructions, prompts and resource templates). Resources are not
// labelled.
//
// The new definitions are live's (server -> tool name -> the tool as
// listed; callers pass the display copy, secrets redacted) where it has
// them, else new's; the old ones are old's. A version 1 lockfile keeps no
// definitions: see Change for what is labelled then. The surface is every
// name new lists, on every server.
func Diff(d lock.Diff, old, new *lock.Lockfile, live map[string]map[string]lock.ToolDef) map[string][]Finding {
	if d.Empty() {
		return nil
	}
	names := surfaceNames(new, live)
	out := map[string][]Finding{}
	for _, sd := range d.Servers {
		var os, ns lock.Server
		if old != nil {
			os = old.Servers[sd.Name]
		}
		if new != nil {
			ns = new.Servers[sd.Name]
		}
		s := Surface{Server: sd.Name, Names: names}
		var fs []Finding
		add := func(kind, name string, change lock.Change, o, n *Item) {
			f := Finding{Kind: kind, Name: name, Change: string(change)}
			if change != lock.Removed {
				f.Labels = Change(o, n, s)
			}
			fs = append(fs, f)
		}
		for _, t := range sd.Tools {
			n := &Item{Kind: KindTool, Name: t.Name, Def: toolDef(ns, live[sd.Name], t.Name)}
			var o *Item
			if t.Change == lock.Changed {
				o = &Item{Kind: KindTool, Name: t.Name, Def: toolDef(os, nil, t.Name)}
			}
			add(KindTool, t.Name, t.Change, o, n)
		}
		switch {
		case sd.Change == lock.Added:
			if ns.Instructions != nil {
				add(KindInstructions, "", lock.Added, nil, instructions(ns.Instructions))
			}
			for _, e := range ns.Prompts {
				add(KindPrompt, e.Name, lock.Added, nil, entry(KindPrompt, e))
			}
			for _, e := range ns.ResourceTemplates {
				add(KindResourceTemplate, e.Name, lock.Added, nil, entry(KindResourceTemplate, e))
			}
		case sd.Instructions != nil:
			in := sd.Instructions
			switch {
			case in.OldHash == nil:
				add(KindInstructions, "", lock.Added, nil, instructions(in.New))
			case in.NewHash == nil:
				add(KindInstructions, "", lock.Removed, nil, nil)
			default:
				add(KindInstructions, "", lock.Changed, instructions(in.Old), instructions(in.New))
			}
		}
		for _, e := range sd.Entries {
			if e.Kind != lock.KindPrompt && e.Kind != lock.KindResourceTemplate {
				continue
			}
			var o *Item
			if e.Change == lock.Changed {
				o = findEntry(os, e)
			}
			add(e.Kind, e.Name, e.Change, o, findEntry(ns, e))
		}
		out[sd.Name] = fs
	}
	return out
}

// Lockfile labels every definition a lockfile holds as added, as the
// first lock of a repository would (Diff from no lockfile).
func Lockfile(lf *lock.Lockfile) map[string][]Finding {
	return Diff(lock.Compare(nil, lf), nil, lf, nil)
}

func toolDef(srv lock.Server, live map[string]lock.ToolDef, name string) []byte {
	if d, ok := live[name]; ok && d.Raw != nil {
		return d.Raw
	}
	for _, t := range srv.Tools {
		if t.Name == name && t.Definition != "" {
			return []byte(t.Definition)
		}
	}
	return nil
}

// instructions is the item of an instructions text; its Def is nil when
// the text is not kept.
func instructions(s *string) *Item {
	it := &Item{Kind: KindInstructions}
	if s != nil {
		it.Def, _ = json.Marshal(*s)
	}
	return it
}

func entry(kind string, e lock.Entry) *Item {
	it := &Item{Kind: kind, Name: e.Name}
	if e.Definition != "" {
		it.Def = []byte(e.Definition)
	}
	return it
}

func findEntry(srv lock.Server, d lock.EntryDiff) *Item {
	list := srv.Prompts
	if d.Kind == lock.KindResourceTemplate {
		list = srv.ResourceTemplates
	}
	for _, e := range list {
		if e.Name == d.Name || e.URI == d.Name {
			return entry(d.Kind, e)
		}
	}
	return &Item{Kind: d.Kind, Name: d.Name}
}

func surfaceNames(lf *lock.Lockfile, live map[string]map[string]lock.ToolDef) []Name {
	var out []Name
	seen := map[Name]bool{}
	put := func(n Name) {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	if lf != nil {
		for srv, s := range lf.Servers {
			for _, t := range s.Tools {
				put(Name{srv, KindTool, t.Name})
			}
			for _, e := range s.Prompts {
				put(Name{srv, KindPrompt, e.Name})
			}
			for _, e := range s.ResourceTemplates {
				put(Name{srv, KindResourceTemplate, e.Name})
			}
		}
	}
	for srv, defs := range live {
		for name := range defs {
			put(Name{srv, KindTool, name})
		}
	}
	slices.SortFunc(out, func(a, b Name) int {
		return cmp.Or(cmp.Compare(a.Server, b.Server), cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Name, b.Name))
	})
	return out
}

// Override changes the severity of one label on a server's items, or on
// one of its items (agentgate.toml's [servers.NAME.labels]).
type Override struct {
	Item     string   // the tool, prompt or template name; "" for every item of the server
	Label    string   // one of IDs
	Severity Severity // the new severity; 0 silences the label
}

// Apply returns fs with the overrides applied: for each label the
// override naming its item, else the one for the whole server; a
// silenced label is dropped. Labels are sorted again.
func Apply(fs []Finding, os []Override) []Finding {
	if len(os) == 0 {
		return fs
	}
	out := make([]Finding, len(fs))
	for i, f := range fs {
		out[i] = f
		var ls []Label
		for _, l := range f.Labels {
			o, ok := find(os, f.Name, l.ID)
			switch {
			case !ok:
				ls = append(ls, l)
			case o.Severity != 0:
				l.Severity = o.Severity
				ls = append(ls, l)
			}
		}
		out[i].Labels = Sort(ls)
	}
	return out
}

func find(os []Override, item, label string) (Override, bool) {
	var server *Override
	for i, o := range os {
		if o.Label != label {
			continue
		}
		if o.Item != "" && o.Item == item {
			return o, true
		}
		if o.Item == "" {
			server = &os[i]
		}
	}
	if server != nil {
		return *server, true
	}
	return Override{}, false
}
