package cli

// v2.go: what lock, diff, ci and hook do for lockfile version 2: build
// the version 2 entries from what the servers listed, apply agentgate.toml's
// ignore-members, and settle which version a run writes.

import (
	"flag"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/agentgate/agentgate/lock"
	"github.com/agentgate/agentgate/mcp/config"
	"github.com/agentgate/agentgate/mcp/wire"
	"github.com/agentgate/agentgate/render"
)

// toV2 rebuilds every captured server as a version 2 entry (whole
// definitions, instructions, prompts, resource templates, resources when
// asked). A server whose listing cannot be pinned (a repeated member name,
// a prompt without a name, two templates of one name) becomes a failure:
// could not verify, exit 3.
func (l *live) toV2(e *env, p *config.Project) {
	for _, name := range slices.Sorted(maps.Keys(l.raw)) {
		res := l.raw[name]
		defs := slices.Collect(maps.Values(l.defs[name]))
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
			delete(l.servers, name)
			f := failure{server: name, file: l.files[name], code: ExitUnverified,
				msg:   "invalid listing for lockfile version 2: " + err.Error(),
				hints: []string{hintOf(err, "the server listed a definition agentgate cannot pin (see docs/spec/lockfile-v2.md); report it to the server's maintainers")}}
			l.failures = append(l.failures, f)
			printFailure(e, f)
			continue
		}
		if pk := res.Package; pk != nil {
			lp := &lock.Package{Ecosystem: pk.Ecosystem, Name: pk.Name, Version: pk.Version, Integrity: pk.Integrity, Registry: pk.Registry}
			if err := lp.Validate(); err != nil {
				delete(l.servers, name)
				f := failure{server: name, file: l.files[name], code: ExitUnverified,
					msg:   fmt.Sprintf("package %s: the resolved package cannot be pinned: %v", quoteVisible(lp.String()), err),
					hints: []string{"the registry's answer is not what its API promises; try again, or report it to agentgate's maintainers (docs/spec/lockfile-v2.md, Packages)"}}
				l.failures = append(l.failures, f)
				printFailure(e, f)
				continue
			}
			srv.Package = lp
		}
		l.servers[name] = srv
	}
	slices.SortFunc(l.failures, func(a, b failure) int { return strings.Compare(a.server, b.server) })
}

// ignoreMembers keeps old's entry for every tool, prompt, template and
// resource of live whose definition changed only in members that
// agentgate.toml's [servers.NAME] ignore-members lists, so that such a
// change is not drift; then recomputes the server's hashes. Both sides
// must keep definitions (otherwise which members changed is unknown, and
// every change counts).
func ignoreMembers(old, live lock.Server, ignore []string) lock.Server {
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

// lockfileVersionFlag registers lock's --lockfile-version.
func lockfileVersionFlag(fs *flag.FlagSet) {
	fs.Int("lockfile-version", 0, "write lockfile `version` 1 or 2 (default: the existing file's version, else 2); 2 also pins whole tool definitions, instructions, prompts and resource templates (docs/spec/lockfile-v2.md)")
}

// settleVersion returns the lockfile version lock writes: --lockfile-version
// when given, else the existing file's, else 2 (a new lockfile pins
// whole definitions and packages). Writing version 1 over a
// version 2 file needs --force (it drops pins); an upgrade refreshes every
// server, so it cannot be combined with --server.
func settleVersion(fs *flag.FlagSet, prev *lock.Lockfile, lockRel string) (int, error) {
	version := lock.Version2
	if prev != nil {
		version = prev.LockfileVersion
	}
	switch want := flagValue[int](fs, "lockfile-version"); {
	case want == 0:
	case want != lock.Version1 && want != lock.Version2:
		return 0, invalid(fmt.Errorf("--lockfile-version %d: want 1 or 2", want))
	case want == lock.Version1 && prev != nil && prev.LockfileVersion == lock.Version2 && !flagValue[bool](fs, "force"):
		return 0, invalid(fmt.Errorf("--lockfile-version 1: %s is lockfileVersion 2; writing version 1 drops the pins of whole tool definitions, instructions, prompts and resource templates", lockRel),
			"to downgrade anyway, add --force; to keep version 2, leave out --lockfile-version")
	default:
		version = want
	}
	if prev != nil && prev.LockfileVersion != lock.Version2 && version == lock.Version2 && len(flagValue[[]string](fs, "server")) > 0 {
		return 0, invalid(fmt.Errorf("--lockfile-version 2 with --server: upgrading %s to version 2 captures every server", lockRel),
			"run 'agentgate lock --lockfile-version 2' without --server")
	}
	return version, nil
}

// formatChange is the one line lock prints when it changed the file's
// version, or "".
func formatChange(prev, lf *lock.Lockfile, lockRel string) string {
	if prev == nil || prev.LockfileVersion == lf.LockfileVersion {
		return ""
	}
	if lf.LockfileVersion == lock.Version1 {
		return fmt.Sprintf("agentgate: format change: %s downgraded from lockfileVersion 2 to 1 (--force): whole-definition, instructions, prompt and resource template pins dropped", lockRel)
	}
	var prompts, templates, resources, instr int
	for _, s := range lf.Servers {
		prompts += len(s.Prompts)
		templates += len(s.ResourceTemplates)
		resources += len(s.Resources)
		if s.InstructionsHash != nil {
			instr++
		}
	}
	msg := fmt.Sprintf("agentgate: format change: %s upgraded from lockfileVersion 1 to 2: new pins: definitionHash per tool, toolsSetHash per server, instructions of %s, %s, %s",
		lockRel, plural(instr, "server"), plural(prompts, "prompt"), plural(templates, "resource template"))
	if resources > 0 {
		msg += ", " + plural(resources, "resource")
	}
	return msg + " (not drift: the tools were compared as version 1 pins them)"
}

// upgradeStatus is lock's status of a server on an upgrade run.
func upgradeStatus(prev *lock.Lockfile, name string, srv lock.Server) string {
	old, ok := prevServer(prev, name)
	switch {
	case !ok:
		return "new"
	case old.SurfaceHash == srv.SurfaceHash:
		return "unchanged (now version 2)"
	default:
		return "changed (now version 2)"
	}
}

// ciMemberChanges converts member changes for the JSON report.
func ciMemberChanges(ms []lock.MemberChange) []ciMember {
	out := make([]ciMember, 0, len(ms))
	for _, m := range ms {
		out = append(out, ciMember{Path: m.Path, Old: m.Old, New: m.New})
	}
	return out
}

// ciMember is one changed member of a definition in ci's JSON report;
// Old and New are canonical JSON text ("" when absent).
type ciMember struct {
	Path string `json:"path"`
	Old  string `json:"old"`
	New  string `json:"new"`
}

// ciEntry is one prompt, resource template or resource that differs.
type ciEntry struct {
	Kind    string     `json:"kind"` // prompt, resource template, resource
	Name    string     `json:"name"` // the uri for a resource
	Change  string     `json:"change"`
	Members []ciMember `json:"members"`
}

// ciV2 fills a drifted server's version 2 changes into the JSON report.
func ciV2(s *ciServer, d lock.ServerDiff) {
	if in := d.Instructions; in != nil {
		switch {
		case in.OldHash == nil:
			s.Instructions = string(lock.Added)
		case in.NewHash == nil:
			s.Instructions = string(lock.Removed)
		default:
			s.Instructions = string(lock.Changed)
		}
	}
	for _, e := range d.Entries {
		s.Entries = append(s.Entries, ciEntry{Kind: e.Kind, Name: e.Name, Change: string(e.Change), Members: ciMemberChanges(e.Members)})
	}
	if p := d.Package; p != nil {
		s.Package = &ciPackage{Old: p.Old, New: p.New, Fields: nonNil(p.Fields)}
	}
	if len(d.Entries) > 0 || d.Instructions != nil || d.Package != nil {
		if s.Change == "" {
			s.Change = string(lock.Changed)
		}
	}
}

// v2Detail adds a drifted server's version 2 changes to ci's table line.
func v2Detail(s ciServer) string {
	var parts []string
	if p := s.Package; p != nil {
		parts = append(parts, render.PackageLines(&lock.PackageDiff{Old: p.Old, New: p.New, Fields: p.Fields})[0])
	}
	if s.Instructions != "" {
		parts = append(parts, "instructions "+s.Instructions)
	}
	if len(s.Entries) > 0 {
		parts = append(parts, plural(len(s.Entries), "prompt/template/resource")+" differ")
	}
	return strings.Join(parts, ", ")
}
