package guard

// caps.go: the client capabilities the client declared in its initialize,
// for the hint guard logs when it withholds a tool agentgate.lock does not
// pin: servers may list tools only to clients with a capability, and
// agentgate lock declares one only when agentgate.toml's
// client-capabilities says so.

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentgate/agentgate/mcp/config/syntax"

	"github.com/agentgate/agentgate/mcp/config"
)

// noteCapabilities records which of config.ClientCapabilityNames the
// client's initialize params declare (members present, whatever their
// value), sorted. It runs once per initialize, off the listing path.
func (p *proxy) noteCapabilities(params []byte) {
	var caps map[string]json.RawMessage
	if json.Unmarshal(member(params, "capabilities"), &caps) != nil {
		return
	}
	var names []string
	for _, n := range config.ClientCapabilityNames() {
		if v, ok := caps[n]; ok && string(v) != "null" {
			names = append(names, n)
		}
	}
	p.mu.Lock()
	p.clientCaps = names
	p.mu.Unlock()
}

// capabilitiesHint is the hint for a tool withheld as not in
// agentgate.lock, logged once per session, when the client declared
// capabilities: "" when it declared none or the hint was given.
func (p *proxy) capabilitiesHint(tool string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.clientCaps) == 0 || p.toldCapabilities {
		return ""
	}
	p.toldCapabilities = true
	quoted := make([]string, len(p.clientCaps))
	for i, c := range p.clientCaps {
		quoted[i] = `"` + c + `"`
	}
	return fmt.Sprintf("hint: the client declared %s in initialize, and a server may list some tools only to a client with such a capability: "+
		"if %s is expected, review it, then add client-capabilities = [%s] to agentgate.toml (top level, or [servers.%s]) and run 'agentgate lock' (docs/GUARD.md)",
		strings.Join(p.clientCaps, ", "), tool, strings.Join(quoted, ", "), visible(syntax.TOMLKey(p.opts.Server)))
}
