package check

// v2.go: what lock, diff, ci and hook do for lockfile version 2: build
// the version 2 entries from what the servers listed, and apply
// agentgate.toml's ignore-members.

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/agentgate/agentgate/internal/safetext"
	"github.com/agentgate/agentgate/lock"
	"github.com/agentgate/agentgate/mcp/config"
	"github.com/agentgate/agentgate/mcp/wire"
)

// ToV2 rebuilds every captured server as a version 2 entry (whole
// definitions, instructions, prompts, resource templates, resources when
// asked). A server whose listing cannot be pinned (a repeated member name,
// a prompt without a name, two templates of one name) becomes an
// Unverified failure: added to l.Failures (kept sorted) and returned, in
// the order found.
func (l *Live) ToV2(p *config.Project) []Failure {
	var added []Failure
	for _, name := range slices.Sorted(maps.Keys(l.raw)) {
		res := l.raw[name]
		defs := slices.Collect(maps.Values(l.Defs[name]))
		lst := lock.Listing{Instructions: res.Instructions, LockResources: res.Resources != nil, Sent: map[lock.ElementRef]string{}}
		if res.InstructionsSent != "" {
			lst.InstructionsSent = &res.InstructionsSent
		}
		for _, s := range res.Sent {
			if kind, ok := map[string]string{wire.ListPrompts: lock.KindPrompt, wire.ListTemplates: lock.KindResourceTemplate, wire.ListResources: lock.KindResource}[s.List]; ok {
				lst.Sent[lock.ElementRef{Kind: kind, Index: s.Index}] = s.DefinitionHash
			}
		}
		for _, r := range res.Prompts {
			lst.Prompts = append(lst.Prompts, r)
		}
		for _, r := range res.ResourceTemplates {
			lst.ResourceTemplates = append(lst.ResourceTemplates, r)
		}
		for _, r := range res.Resources {
			lst.Resources = append(lst.Resources, r)
		}
		srv, err := lock.BuildServer(lock.Version2, defs, lock.BuildOptions{Listing: lst, Definitions: !p.Settings.NoDefinitions})
		if err != nil {
			delete(l.Servers, name)
			added = append(added, Failure{Server: name, File: l.files[name], Class: Unverified,
				Msg:   "invalid listing for lockfile version 2: " + err.Error(),
				Hints: []string{HintOf(err, "the server listed a definition agentgate cannot pin (see docs/spec/lockfile-v2.md); report it to the server's maintainers")}})
			continue
		}
		if pk := res.Package; pk != nil {
			lp := &lock.Package{Ecosystem: pk.Ecosystem, Name: pk.Name, Version: pk.Version, Integrity: pk.Integrity, Registry: pk.Registry}
			if err := lp.Validate(); err != nil {
				delete(l.Servers, name)
				added = append(added, Failure{Server: name, File: l.files[name], Class: Unverified,
					Msg:   fmt.Sprintf("package %s: the resolved package cannot be pinned: %v", safetext.Quote(lp.String()), err),
					Hints: []string{"the registry's answer is not what its API promises; try again, or report it to agentgate's maintainers (docs/spec/lockfile-v2.md, Packages)"}})
				continue
			}
			srv.Package = lp
		}
		l.Servers[name] = srv
	}
	l.Failures = append(l.Failures, added...)
	slices.SortFunc(l.Failures, func(a, b Failure) int { return strings.Compare(a.Server, b.Server) })
	return added
}

// IgnoreMembers keeps old's entry for every tool, prompt, template and
// resource of live whose definition changed only in members that
// agentgate.toml's [servers.NAME] ignore-members lists, so that such a
// change is not drift; then recomputes the server's hashes. Both sides
// must keep definitions (otherwise which members changed is unknown, and
// every change counts).
func IgnoreMembers(old, live lock.Server, ignore []string) lock.Server {
	if len(ignore) == 0 || old.ToolsSetHash == "" || live.ToolsSetHash == "" {
		return live
	}
	onlyIgnored := func(a, b string) bool { return lock.OnlyIgnored(a, b, ignore) }
	oldTools := map[string]lock.Tool{}
	for _, t := range old.Tools {
		oldTools[t.Name] = t
	}
	live.Tools = slices.Clone(live.Tools)
	for i, t := range live.Tools {
		if o, ok := oldTools[t.Name]; ok && o.DefinitionHash != t.DefinitionHash && onlyIgnored(o.Definition, t.Definition) {
			live.Tools[i] = o
		}
	}
	keep := func(olds, lives []lock.Entry) []lock.Entry {
		if lives == nil {
			return nil
		}
		byID := map[[2]string]lock.Entry{}
		for _, e := range olds {
			byID[[2]string{e.Name, e.URI}] = e
		}
		out := slices.Clone(lives)
		for i, e := range out {
			if o, ok := byID[[2]string{e.Name, e.URI}]; ok && o.DefinitionHash != e.DefinitionHash && onlyIgnored(o.Definition, e.Definition) {
				out[i] = o
			}
		}
		return out
	}
	live.Prompts = keep(old.Prompts, live.Prompts)
	live.ResourceTemplates = keep(old.ResourceTemplates, live.ResourceTemplates)
	live.Resources = keep(old.Resources, live.Resources)
	return lock.Rehash(live)
}
