package guard

// client.go: the client's side: every message is forwarded to the server
// as sent, except calls for names guard withholds.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"time"

	"github.com/agentgate/agentgate/mcp/jsonrpc"
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

// fromClient reads one message of the client's with guard's one reader,
// the server's (readMessage), and reports whether to forward it. A
// message it refuses is answered with a JSON-RPC error instead
// (refuseClient), and so is a request whose id is already pending (the
// server's answers could not be told apart) and a call guard does not let
// through (allowCall). Every other request is recorded as pending (by
// id, with its method).
func (p *proxy) fromClient(line []byte) bool {
	t := bytes.TrimSpace(line)
	if len(t) == 0 {
		return false
	}
	env, bad := readMessage(t, "request")
	if bad != nil {
		p.refuseClient(t, bad)
		return false
	}
	if env.Response() {
		return true // the client's answer to a request of the server's
	}
	if env.ID == nil {
		if env.Method == "notifications/cancelled" {
			p.cancelled(member(env.Params, "requestId"))
		}
		return true // a notification
	}
	key, _ := jsonrpc.IDKey(env.ID) // jsonrpc.ParseEnvelope accepted the id
	p.mu.Lock()
	_, dup := p.pending[key]
	p.mu.Unlock()
	if dup {
		p.logf("refused a request of the client's (%s, id %s): a request with this id is still waiting for its answer: not forwarded", visible(env.Method), shownRaw(env.ID))
		p.sendError(env.ID, codeInvalidRequest, "agentgate guard: a request with this id is still waiting for the answer of server "+quote(p.opts.Server)+"; this one was not forwarded")
		return false
	}
	kind := ""
	switch env.Method {
	case "tools/call":
		kind = kindTool
	case "prompts/get":
		kind = kindPrompt
	case "resources/read":
		kind = kindResource
	case "initialize":
		p.noteCapabilities(env.Params)
	}
	if kind != "" && !p.allowCall(kind, &env) {
		return false
	}
	p.mu.Lock()
	p.pending[key] = pending{method: env.Method, id: bytes.Clone(env.ID)}
	p.mu.Unlock()
	return true
}

// allowCall decides a call of kind (tools/call, prompts/get,
// resources/read) once the listing on its way, if any, arrived
// (awaitListing), and reports whether to forward it. A call whose params
// have no string name (uri for resources/read) cannot be checked, and a
// call for a name guard refuses (refuseCall) must not run: both are
// answered here with a JSON-RPC error.
func (p *proxy) allowCall(kind string, env *jsonrpc.Envelope) bool {
	p.awaitListing(listMethod[kind])
	key, verb := "name", "called"
	if kind == kindResource {
		key, verb = "uri", "read"
	}
	name, ok := jsonrpc.String(member(env.Params, key))
	if !ok {
		p.logf("%s: refused a call whose params have no %q string: not forwarded", visible(env.Method), key)
		p.sendError(env.ID, codeInvalidParams, "agentgate guard: this call to server "+quote(p.opts.Server)+" has no "+key+" string in its params; it was not "+verb)
		return false
	}
	why := p.refuseCall(kind, name)
	if why == "" {
		return true
	}
	p.logf("%s %s: %s: call refused, not forwarded", kind, shown(name), why)
	if kind == kindTool && why == driftUnpinned {
		if hint := p.capabilitiesHint(shown(name)); hint != "" {
			p.logf("%s", hint)
		}
	}
	p.sendError(env.ID, codeInvalidParams, "agentgate guard: this "+kind+" of server "+quote(p.opts.Server)+
		" is "+why+"; it was not "+verb+" (review with 'agentgate diff', then 'agentgate lock')")
	return false
}

// refuseClient answers a message of the client's that readMessage
// refused with a JSON-RPC error (-32700 for a line that is not JSON,
// -32600 otherwise) and logs it. The error carries the request's id when
// the message has one id member, a string or an exact integer, and a
// method; otherwise a null id, as JSON-RPC answers a request whose id
// cannot be read.
func (p *proxy) refuseClient(t []byte, bad *badMessage) {
	id, code := []byte("null"), codeInvalidRequest
	if bad.notJSON {
		code = codeParse
	} else if sole, method := soleID(t); method && sole != nil && (sole[0] == '"' || jsonrpc.ExactInteger(sole)) {
		if _, ok := jsonrpc.IDKey(sole); ok {
			id = sole
		}
	}
	p.logf("refused a message of the client's: %s: not forwarded, answered with an error", visible(bad.detail))
	p.sendError(id, code, "agentgate guard refused this message to server "+quote(p.opts.Server)+": "+bad.public+"; it was not forwarded")
}

// cancelled marks the pending request the client cancelled (its raw id):
// drain and awaitListing no longer wait for its answer.
func (p *proxy) cancelled(id []byte) {
	key, ok := jsonrpc.IDKey(id)
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
// not pinned; or the server's current listing (guard's own, ownList,
// when no listing since the last change decides it: knows) withheld it,
// does not show it (tools and prompts), or could not be had. A uri no
// listing withheld is forwarded even when it is not pinned (a template's
// uris are not listed). With Warn, or nothing pinned, or a version 1
// lockfile for prompts and resources, or a lockfile that does not pin
// resources, every call is forwarded.
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
	switch {
	case !pinned:
		why = driftUnpinned
	case !p.knows(kind, name) && !p.ownList(kind):
		why = "unchecked: guard could not get the server's current listing to compare it with agentgate.lock"
	}
	if why == "" {
		p.mu.Lock()
		switch {
		case p.withheld[kind][name]:
			why = "withheld: its definition differs from agentgate.lock"
		case kind != kindResource && !p.seen[kind][name]:
			why = "not in the server's current listing, so its definition is unknown"
		}
		p.mu.Unlock()
	}
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
