package guard

import (
	"fmt"

	"github.com/agentgate/agentgate/lock"
)

// Pins is what the lockfile pins for the guarded server: its tools (by
// name), and with a version 2 lockfile its prompts and resource templates
// (by name) and its instructions.
type Pins struct {
	Version   int // lockfileVersion: lock.Version1 or lock.Version2
	Tools     map[string]lock.Tool
	Prompts   map[string]lock.Entry
	Templates map[string]lock.Entry
	// Resources are the pinned resources by uri (v2, only when
	// agentgate.toml's resources = true locked them); nil: resources are
	// not pinned, and resources/list passes unchecked.
	Resources    map[string]lock.Entry
	Instructions *string // v2: the pinned instructions hash; nil: none sent when locked
	// Package is the package the lockfile pins for the server (version 2;
	// nil: none): what guard starts (runpkg.go).
	Package *lock.Package
	// Ignore are agentgate.toml's ignore-members for the server: with a
	// version 2 lockfile that keeps definitions, a definition that differs
	// from its pin only in these members passes (lock.OnlyIgnored), as
	// agentgate diff reports it in sync.
	Ignore []string
}

// PinsOf returns the pins of server in lf; ok is false when lf does not
// lock that server.
// driftUnpinned is the verdict of a name agentgate.lock does not pin.
const driftUnpinned = "not in agentgate.lock"

func PinsOf(lf *lock.Lockfile, server string) (p *Pins, ok bool) {
	srv, ok := lf.Servers[server]
	if !ok {
		return nil, false
	}
	p = &Pins{Version: lf.LockfileVersion, Tools: map[string]lock.Tool{}, Package: srv.Package}
	for _, t := range srv.Tools {
		p.Tools[t.Name] = t
	}
	if p.v2() {
		p.Prompts = map[string]lock.Entry{}
		for _, e := range srv.Prompts {
			p.Prompts[e.Name] = e
		}
		p.Templates = map[string]lock.Entry{}
		for _, e := range srv.ResourceTemplates {
			p.Templates[e.Name] = e
		}
		if srv.Resources != nil {
			p.Resources = map[string]lock.Entry{}
			for _, e := range srv.Resources {
				p.Resources[e.URI] = e
			}
		}
		p.Instructions = srv.InstructionsHash
	}
	return p, true
}

func (p *Pins) v2() bool { return p.Version >= lock.Version2 }

// version is the lockfile version whose rules a listing is hashed under:
// Version2 for a version 2 lockfile, Version1 otherwise.
func (p *Pins) version() int {
	if p.v2() {
		return lock.Version2
	}
	return lock.Version1
}

// verdict is the outcome of comparing one listed definition with the
// pins: name is the definition's name ("" when it has none), drift is ""
// when it matches and otherwise says what differs, without repeating the
// server's text.
type verdict struct {
	name  string
	drift string
}

// label names the definition of verdict v, element i of its listing, as
// guard's log and notifications do: its name (shown), or "#i (no name)".
func (v verdict) label(i int) string {
	if v.name == "" {
		return fmt.Sprintf("#%d (no name)", i)
	}
	return shown(v.name)
}

// checkTool compares one element of a tools/list result with the pinned
// tool of its name, with the lockfile's own hashes: lock.DecodeTool and
// lock.BuildServer under the lockfile's version, which give the version 1
// field hashes (name, description, inputSchema) and, with a version 2
// lockfile, the definition hash too.
func (p *Pins) checkTool(raw []byte) verdict {
	def, err := lock.DecodeTool(p.version(), raw)
	if err != nil {
		return verdict{drift: "not a tool definition agentgate can hash"}
	}
	v := verdict{name: def.Name}
	pin, ok := p.Tools[def.Name]
	if !ok {
		v.drift = driftUnpinned
		return v
	}
	srv, err := lock.BuildServer(p.version(), []lock.ToolDef{def}, lock.BuildOptions{Definitions: p.v2() && len(p.Ignore) > 0})
	if err != nil || len(srv.Tools) != 1 {
		v.drift = "definition cannot be hashed"
		return v
	}
	got := srv.Tools[0]
	if p.v2() && got.DefinitionHash != pin.DefinitionHash && lock.OnlyIgnored(pin.Definition, got.Definition, p.Ignore) {
		return v
	}
	switch {
	case got.DescriptionHash != pin.DescriptionHash && got.InputSchemaHash != pin.InputSchemaHash:
		v.drift = fmt.Sprintf("description and inputSchema changed (descriptionHash %s, locked %s)", short(got.DescriptionHash), short(pin.DescriptionHash))
	case got.DescriptionHash != pin.DescriptionHash:
		v.drift = fmt.Sprintf("description changed (descriptionHash %s, locked %s)", short(got.DescriptionHash), short(pin.DescriptionHash))
	case got.InputSchemaHash != pin.InputSchemaHash:
		v.drift = fmt.Sprintf("inputSchema changed (inputSchemaHash %s, locked %s)", short(got.InputSchemaHash), short(pin.InputSchemaHash))
	case got.NameHash != pin.NameHash:
		v.drift = "name hash differs from the lockfile's"
	case p.v2() && got.DefinitionHash != pin.DefinitionHash:
		v.drift = fmt.Sprintf("definition changed (definitionHash %s, locked %s)", short(got.DefinitionHash), short(pin.DefinitionHash))
	}
	return v
}

// checkEntry compares one element of a prompts/list (kind
// lock.KindPrompt), resources/templates/list (lock.KindResourceTemplate)
// or resources/list (lock.KindResource) result with the pinned entry of
// its name (a resource: of its uri, which is then the verdict's name), by
// the definition hash that lock.BuildServer of version 2 computes.
func (p *Pins) checkEntry(kind string, raw []byte) verdict {
	var l lock.Listing
	var pins map[string]lock.Entry
	switch kind {
	case lock.KindPrompt:
		l.Prompts, pins = [][]byte{raw}, p.Prompts
	case lock.KindResourceTemplate:
		l.ResourceTemplates, pins = [][]byte{raw}, p.Templates
	default:
		l.Resources, l.LockResources, pins = [][]byte{raw}, true, p.Resources
	}
	srv, err := lock.BuildServer(lock.Version2, nil, lock.BuildOptions{Listing: l, Definitions: len(p.Ignore) > 0})
	es := map[string][]lock.Entry{lock.KindPrompt: srv.Prompts, lock.KindResourceTemplate: srv.ResourceTemplates, lock.KindResource: srv.Resources}[kind]
	if err != nil || len(es) != 1 {
		return verdict{drift: "not a " + kind + " definition agentgate can hash"}
	}
	e := es[0]
	v := verdict{name: e.Name}
	if kind == lock.KindResource {
		v.name = e.URI
	}
	pin, ok := pins[v.name]
	switch {
	case !ok:
		v.drift = driftUnpinned
	case pin.DefinitionHash != e.DefinitionHash && !lock.OnlyIgnored(pin.Definition, e.Definition, p.Ignore):
		v.drift = fmt.Sprintf("definition changed (definitionHash %s, locked %s)", short(e.DefinitionHash), short(pin.DefinitionHash))
	}
	return v
}

// short is the first 12 hex digits of a hash, enough to tell two apart in
// a log line.
func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
