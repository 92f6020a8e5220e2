package guard

// resources.go: concrete resources (resources/list), which a version 2
// lockfile pins only when agentgate.toml asks (resources = true).

import (
	"fmt"

	"github.com/agentgate/agentgate/lock"
)

// checkResource compares one element of a resources/list result with the
// pinned resource of its uri, by the definition hash lock.BuildServerV2
// computes; the verdict's name is the uri.
func (p *Pins) checkResource(raw []byte) verdict {
	srv, err := lock.BuildServerV2(nil, lock.Listing{Resources: [][]byte{raw}, LockResources: true}, len(p.Ignore) > 0)
	if err != nil || len(srv.Resources) != 1 {
		return verdict{drift: "not a " + kindResource + " definition agentgate can hash"}
	}
	e := srv.Resources[0]
	v := verdict{name: e.URI}
	pin, ok := p.Resources[e.URI]
	switch {
	case !ok:
		v.drift = "not in agentgate.lock"
	case pin.DefinitionHash != e.DefinitionHash && !lock.OnlyIgnored(pin.Definition, e.Definition, p.Ignore):
		v.drift = fmt.Sprintf("definition changed (definitionHash %s, locked %s)", short(e.DefinitionHash), short(pin.DefinitionHash))
	}
	return v
}

// unpinnedResources logs, once per session, that the server's resources
// pass unchecked because the lockfile does not pin them.
func (p *proxy) unpinnedResources() {
	p.mu.Lock()
	told := p.toldUnpinned
	p.toldUnpinned = true
	p.mu.Unlock()
	if !told {
		p.logf("resources/list: agentgate.lock does not pin this server's resources (agentgate.toml: resources = true, then agentgate lock): forwarded unchecked")
	}
}
