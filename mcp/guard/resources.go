package guard

// resources.go: concrete resources (resources/list), which a version 2
// lockfile pins only when agentgate.toml asks (resources = true).

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
