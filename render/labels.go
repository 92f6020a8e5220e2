package render

import (
	"cmp"
	"encoding/json"
	"slices"

	"github.com/agentgate/agentgate/lock"
	"github.com/agentgate/agentgate/triage"
)

// Labels labels what d reports (with package triage), per server name: every tool, prompt,
// resource template and instructions text added, removed or changed (for
// a server d reports as added, every one it has), in d's order (tools,
// then instructions, prompts and resource templates). Resources are not
// labelled.
//
// The new definitions are live's (server -> tool name -> the tool as
// listed; callers pass the display copy, secrets redacted) where it has
// them, else new's; the old ones are old's. A version 1 lockfile keeps no
// definitions: see triage.Change for what is labelled then. The surface is every
// name new lists, on every server.
func Labels(d lock.Diff, old, new *lock.Lockfile, live map[string]map[string]lock.ToolDef) map[string][]triage.Finding {
	if d.Empty() {
		return nil
	}
	// One Surface, so one name index, for the whole diff: the index holds
	// names only, and each server's copy says whose the item is.
	all := triage.NewSurface("", surfaceNames(new, live))
	out := map[string][]triage.Finding{}
	for _, sd := range d.Servers {
		var os, ns lock.Server
		if old != nil {
			os = old.Servers[sd.Name]
		}
		if new != nil {
			ns = new.Servers[sd.Name]
		}
		s := all
		s.Server = sd.Name
		var fs []triage.Finding
		add := func(kind, name string, change lock.Change, o, n *triage.Item) {
			f := triage.Finding{Kind: kind, Name: name, Change: string(change)}
			if change != lock.Removed {
				f.Labels = triage.Change(o, n, s)
			}
			fs = append(fs, f)
		}
		for _, t := range sd.Tools {
			n := &triage.Item{Kind: triage.KindTool, Name: t.Name, Def: toolDef(ns, live[sd.Name], t.Name)}
			var o *triage.Item
			if t.Change == lock.Changed {
				o = &triage.Item{Kind: triage.KindTool, Name: t.Name, Def: toolDef(os, nil, t.Name)}
			}
			add(triage.KindTool, t.Name, t.Change, o, n)
		}
		switch {
		case sd.Change == lock.Added:
			if ns.Instructions != nil {
				add(triage.KindInstructions, "", lock.Added, nil, instructions(ns.Instructions))
			}
			for _, e := range ns.Prompts {
				add(triage.KindPrompt, e.Name, lock.Added, nil, entry(triage.KindPrompt, e))
			}
			for _, e := range ns.ResourceTemplates {
				add(triage.KindResourceTemplate, e.Name, lock.Added, nil, entry(triage.KindResourceTemplate, e))
			}
		case sd.Instructions != nil:
			in := sd.Instructions
			switch {
			case in.OldHash == nil:
				add(triage.KindInstructions, "", lock.Added, nil, instructions(in.New))
			case in.NewHash == nil:
				add(triage.KindInstructions, "", lock.Removed, nil, nil)
			default:
				add(triage.KindInstructions, "", lock.Changed, instructions(in.Old), instructions(in.New))
			}
		}
		for _, e := range sd.Entries {
			if e.Kind != lock.KindPrompt && e.Kind != lock.KindResourceTemplate {
				continue
			}
			var o *triage.Item
			if e.Change == lock.Changed {
				o = findEntry(os, e)
			}
			add(e.Kind, e.Name, e.Change, o, findEntry(ns, e))
		}
		out[sd.Name] = fs
	}
	return out
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
func instructions(s *string) *triage.Item {
	it := &triage.Item{Kind: triage.KindInstructions}
	if s != nil {
		it.Def, _ = json.Marshal(*s)
	}
	return it
}

func entry(kind string, e lock.Entry) *triage.Item {
	it := &triage.Item{Kind: kind, Name: e.Name}
	if e.Definition != "" {
		it.Def = []byte(e.Definition)
	}
	return it
}

func findEntry(srv lock.Server, d lock.EntryDiff) *triage.Item {
	list := srv.Prompts
	if d.Kind == lock.KindResourceTemplate {
		list = srv.ResourceTemplates
	}
	for _, e := range list {
		if e.Name == d.Name || e.URI == d.Name {
			return entry(d.Kind, e)
		}
	}
	return &triage.Item{Kind: d.Kind, Name: d.Name}
}

func surfaceNames(lf *lock.Lockfile, live map[string]map[string]lock.ToolDef) []triage.Name {
	var out []triage.Name
	seen := map[triage.Name]bool{}
	put := func(n triage.Name) {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	if lf != nil {
		for srv, s := range lf.Servers {
			for _, t := range s.Tools {
				put(triage.Name{Server: srv, Kind: triage.KindTool, Name: t.Name})
			}
			for _, e := range s.Prompts {
				put(triage.Name{Server: srv, Kind: triage.KindPrompt, Name: e.Name})
			}
			for _, e := range s.ResourceTemplates {
				put(triage.Name{Server: srv, Kind: triage.KindResourceTemplate, Name: e.Name})
			}
		}
	}
	for srv, defs := range live {
		for name := range defs {
			put(triage.Name{Server: srv, Kind: triage.KindTool, Name: name})
		}
	}
	slices.SortFunc(out, func(a, b triage.Name) int {
		return cmp.Or(cmp.Compare(a.Server, b.Server), cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Name, b.Name))
	})
	return out
}
