package guard

// client.go: the client's side: every message is forwarded to the server
// as sent, except calls for names guard withholds.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"time"

	"github.com/agentgate/agentgate/mcp/capture"
)

// clientLoop reads the client's messages until its side ends, and writes
// each to the server unless guard answers it itself.
func (p *proxy) clientLoop(r io.Reader, w io.Writer) {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 && p.fromClient(line) {
			_, _ = w.Write(line) // a server that is gone: Run sees its output end
		}
		if err != nil {
			return
		}
	}
}

// fromClient records a request as pending (by id, with its method) and
// reports whether to forward the message: a tools/call or prompts/get for
// a name guard withholds is answered here instead.
func (p *proxy) fromClient(line []byte) bool {
	t := bytes.TrimSpace(line)
	if len(t) == 0 || t[0] != '{' || !json.Valid(t) {
		return true // the server answers what it cannot parse
	}
	var rawMethod, id, params []byte
	ms, _ := capture.ObjectMembers(t) // one scan; the first of each name, as member reads it
	for _, m := range ms {
		v := t[m.Start:m.End]
		switch {
		case m.Name == "method" && rawMethod == nil:
			rawMethod = v
		case m.Name == "id" && id == nil:
			id = v
		case m.Name == "params" && params == nil:
			params = v
		}
	}
	method, isString := jsonString(rawMethod)
	if rawMethod == nil || id == nil || (!isString && json.Unmarshal(rawMethod, &method) != nil) {
		if id == nil && method == "notifications/cancelled" {
			p.cancelled(member(params, "requestId"))
		}
		return true // a notification, or a response to the server
	}
	key, ok := idKey(id)
	if !ok {
		return true
	}
	kind := ""
	switch method {
	case "tools/call":
		kind = kindTool
	case "prompts/get":
		kind = kindPrompt
	case "resources/read":
		kind = kindResource
	case "initialize":
		p.noteCapabilities(params)
	}
	if kind != "" {
		p.awaitListing(listMethod[kind])
		key, verb := "name", "called"
		if kind == kindResource {
			key, verb = "uri", "read"
		}
		var name string
		if raw := member(params, key); raw != nil && json.Unmarshal(raw, &name) == nil {
			if why := p.refuseCall(kind, name); why != "" {
				p.logf("%s %s: %s: call refused, not forwarded", kind, shown(name), why)
				if kind == kindTool && why == driftUnpinned {
					if hint := p.capabilitiesHint(shown(name)); hint != "" {
						p.logf("%s", hint)
					}
				}
				p.sendError(id, codeInvalidParams, "agentgate guard: this "+kind+" of server "+quote(p.opts.Server)+
					" is "+why+"; it was not "+verb+" (review with 'agentgate diff', then 'agentgate lock')")
				return false
			}
		}
	}
	p.mu.Lock()
	p.pending[key] = pending{method: method, id: bytes.Clone(id)}
	p.mu.Unlock()
	return true
}

// cancelled marks the pending request the client cancelled (its raw id):
// drain and awaitListing no longer wait for its answer.
func (p *proxy) cancelled(id []byte) {
	key, ok := idKey(id)
	if !ok {
		return
	}
	p.mu.Lock()
	if pr, ok := p.pending[key]; ok {
		pr.cancelled = true
		p.pending[key] = pr
	}
	p.mu.Unlock()
}

// listMethod is the listing that decides the calls of a kind.
var listMethod = map[string]string{kindTool: "tools/list", kindPrompt: "prompts/list", kindResource: "resources/list"}

// awaitListing waits, at most DrainTimeout, while a request for method
// is pending: a call the client sends while the listing is on its way is
// decided by that listing, not by the one before.
func (p *proxy) awaitListing(method string) {
	deadline := time.Now().Add(DrainTimeout)
	for time.Now().Before(deadline) {
		busy := false
		p.mu.Lock()
		for _, pr := range p.pending {
			if pr.method == method && !pr.cancelled {
				busy = true
				break
			}
		}
		p.mu.Unlock()
		if !busy {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// refuseCall says why a call for name (a tool or prompt; a resource's
// uri for resources/read) is refused, or "" to forward it: the name is
// not pinned, or the last listing that showed it differed from its pin.
// A uri no listing withheld is forwarded even when it is not pinned (a
// template's uris are not listed). With Warn, or nothing pinned, or a
// version 1 lockfile for prompts and resources, or a lockfile that does
// not pin resources, every call is forwarded.
func (p *proxy) refuseCall(kind, name string) string {
	pins := p.opts.Pins
	if pins == nil || (kind != kindTool && !pins.v2()) || (kind == kindResource && pins.Resources == nil) {
		return ""
	}
	pinned := false
	switch kind {
	case kindTool:
		_, pinned = pins.Tools[name]
	case kindPrompt:
		_, pinned = pins.Prompts[name]
	default:
		pinned = true // refused only when a listing withheld it
	}
	why := ""
	p.mu.Lock()
	switch {
	case !pinned:
		why = driftUnpinned
	case p.withheld[kind][name]:
		why = "withheld: its definition differs from agentgate.lock"
	}
	p.mu.Unlock()
	if why != "" && p.mode == Warn {
		p.logf("%s %s: %s: call forwarded (--on-drift warn)", kind, shown(name), why)
		return ""
	}
	return why
}

// quote is s as a JSON string's contents would show it, in double quotes.
func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
