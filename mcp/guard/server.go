package guard

// server.go: the server's side: every message is checked, list and
// initialize results are compared with the lockfile.

import (
	"bytes"
	"fmt"

	"github.com/agentgate/agentgate/lock"
	"github.com/agentgate/agentgate/mcp/jsonrpc"
)

// fromServer handles one complete message of the server's, held in
// memory.
func (p *proxy) fromServer(line []byte) {
	t := bytes.TrimSpace(line)
	if len(t) == 0 {
		return
	}
	m, env := p.recall(t) // a repeated listing: checked before (memo.go)
	if m == nil {
		var bad *badMessage
		if env, bad = readMessage(t, "reply"); bad != nil {
			if bad.notJSON {
				p.logf("refused a line that is not JSON (%d bytes): not forwarded", len(t))
			} else {
				p.refuse(t, bad.public, bad.detail)
			}
			return
		}
	}
	pr, ok := p.responseTo(&env)
	if !ok {
		return
	}
	switch pr.method {
	case "tools/list":
		p.list(t, &env, m, pr, kindTool, "tools")
	case "prompts/list":
		p.list(t, &env, m, pr, kindPrompt, "prompts")
	case "resources/templates/list":
		p.list(t, &env, m, pr, kindTemplate, "resourceTemplates")
	case "resources/list":
		p.list(t, &env, m, pr, kindResource, "resources")
	case "initialize":
		p.initialize(t, &env, pr)
	default:
		p.send(t)
	}
}

// responseTo returns the pending request a response answers, and false
// when the message was dealt with: a request or notification (forwarded),
// an error with a null id (forwarded: the server could not read a message
// of the client's), or a response to no pending request (refused).
func (p *proxy) responseTo(env *jsonrpc.Envelope) (pending, bool) {
	if !env.Response() || string(env.ID) == "null" {
		if kind, ok := listChanged[env.Method]; ok && env.ID == nil {
			p.forget(kind)
		}
		p.sendRaw(env)
		return pending{}, false
	}
	key, _ := jsonrpc.IDKey(env.ID)
	p.mu.Lock()
	pr, ok := p.pending[key]
	delete(p.pending, key)
	p.mu.Unlock()
	if !ok {
		p.logf("refused a response to no pending request (id %s): not forwarded", shownRaw(env.ID))
	}
	return pr, ok
}

// sendRaw forwards the message env was read from.
func (p *proxy) sendRaw(env *jsonrpc.Envelope) { p.send(env.Raw) }

// refuse drops a message that failed a check: public says why to the
// client (no text of the server's), detail to the log. When the message
// is a response (one "id" member) to a pending request, that request is
// answered instead (refusePending).
func (p *proxy) refuse(msg []byte, public, detail string) {
	id, method := soleID(msg)
	var pr pending
	found := false
	if key, ok := jsonrpc.IDKey(id); ok && !method {
		p.mu.Lock()
		pr, found = p.pending[key]
		delete(p.pending, key)
		p.mu.Unlock()
	}
	if !found {
		p.logf("refused a message: %s: not forwarded", visible(detail))
		return
	}
	p.refusePending(pr, public, detail)
}

// refusePending answers the request pr, whose response failed a check,
// with a JSON-RPC error (for a listing of guard's own: the call waiting
// for it learns it failed), and logs why.
func (p *proxy) refusePending(pr pending, public, detail string) {
	if pr.own != nil {
		p.logf("refused the response to %s (id %s): %s", pr.what(), shownRaw(pr.id), visible(detail))
		pr.own.answer(false, nil)
		return
	}
	p.logf("refused the response to %s (id %s): %s: answered with an error", pr.method, shownRaw(pr.id), visible(detail))
	p.sendError(pr.id, codeInternal, fmt.Sprintf("agentgate guard refused the reply of server %s to %s: %s", quote(p.opts.Server), pr.method, public))
}

// list compares one page of a list result with the pins and forwards it,
// withheld, blocked or warned about as the mode says. m, when not nil, is
// the memo t repeats (recall), whose outcome is reused.
func (p *proxy) list(t []byte, env *jsonrpc.Envelope, m *memo, pr pending, kind, key string) {
	if env.Error != nil {
		p.listError(t, pr)
		return
	}
	if pr.own != nil {
		// guard's own listing: the verdicts are recorded, nothing is sent;
		// the call waiting for it gets the page's cursor.
		defer func() { pr.own.answer(true, bytes.Clone(member(env.Result, "nextCursor"))) }()
	}
	send := p.send
	if pr.own != nil {
		send = func([]byte) {}
	}
	if int64(len(t)) > p.opts.MaxListingBytes {
		p.refusePending(pr, "the listing is larger than agentgate allows", fmt.Sprintf("a %s page larger than max-listing-bytes (%d)", pr.method, p.opts.MaxListingBytes))
		return
	}
	pins := p.opts.Pins
	compare := p.compares(kind)
	pg, ok := p.page(t, env, m, pr, kind, key, compare)
	if !ok {
		return
	}
	if !compare {
		if kind == kindResource && pins != nil && pins.v2() {
			p.unpinnedResources()
		}
		send(t)
		return
	}
	bad := p.record(kind, pg.verdicts)
	if bad == 0 {
		p.logf("%s: %d %s(s) match agentgate.lock: %s", pr.what(), pg.n, kind, map[bool]string{false: "forwarded", true: "recorded"}[pr.own != nil])
		send(t)
		return
	}
	p.logDrift(kind, pg.verdicts)
	switch p.mode {
	case Warn:
		send(t)
	case Block:
		if pr.own != nil {
			return
		}
		p.sendError(pr.id, codeInternal, fmt.Sprintf("agentgate guard blocked the %s of server %s: %d of %d %s definition(s) differ from agentgate.lock (review with 'agentgate diff')",
			pr.method, quote(p.opts.Server), bad, pg.n, kind))
	default:
		if pr.own != nil {
			return
		}
		p.notifyWithheld(kind, pg.verdicts, pg.n)
		if pg.recalled {
			pg.elems = m.elementsOf(env)
		}
		send(withholding(t, env.ResultAt+pg.arrAt, pg.arrLen, pg.elems, pg.verdicts))
	}
}

// listError passes on a list request's error answer, or, for a listing of
// guard's own, tells the call waiting for it that it failed.
func (p *proxy) listError(t []byte, pr pending) {
	if pr.own != nil {
		p.logf("%s: the server answered with an error", pr.what())
		pr.own.answer(false, nil)
		return
	}
	p.send(t)
}

// compares reports whether the pins compare listings of kind: tools with
// any pins, the other kinds with version 2's, resources only when the
// lockfile pins them.
func (p *proxy) compares(kind string) bool {
	pins := p.opts.Pins
	return pins != nil && (kind == kindTool || pins.v2()) && (kind != kindResource || pins.Resources != nil)
}

// listPage is what list learnt of one page: its elements and their
// verdicts (nil when the pins do not compare this kind), and where its
// array is.
type listPage struct {
	elems    [][]byte // nil when recalled, until needed (memo.elementsOf)
	verdicts []verdict
	arrAt    int // the array's offset in the result
	arrLen   int // its length
	n        int // its elements
	recalled bool
}

// page is the memo's outcome when m answered the same kind (it compares
// the same way), else the page's key array split and, when compare, each
// element's verdict, remembered for a repeat. A page that cannot be read
// or holds more than MaxTools elements is refused (refusePending): ok is
// false.
func (p *proxy) page(t []byte, env *jsonrpc.Envelope, m *memo, pr pending, kind, key string, compare bool) (pg listPage, ok bool) {
	if m != nil && m.kind == kind {
		return listPage{verdicts: m.verdicts, arrAt: m.arrAt, arrLen: m.arrLen, n: len(m.elems), recalled: true}, true
	}
	arr, at, ok := arrayMember(env.Result, key)
	if !ok {
		p.refusePending(pr, "its result has no "+key+" array", "its result has no "+key+" array")
		return pg, false
	}
	raws, ok := jsonrpc.ArrayElements(arr)
	if !ok {
		p.refusePending(pr, "its "+key+" array does not parse", "its "+key+" array does not parse")
		return pg, false
	}
	if len(raws) > p.opts.MaxTools {
		p.refusePending(pr, "the listing has more elements than agentgate allows", fmt.Sprintf("a %s page with more than max-tools (%d) elements", pr.method, p.opts.MaxTools))
		return pg, false
	}
	pg = listPage{elems: make([][]byte, len(raws)), arrAt: at, arrLen: len(arr), n: len(raws)}
	for i, e := range raws {
		pg.elems[i] = e
	}
	if compare {
		pg.verdicts = p.verdicts(kind, pg.elems)
	}
	p.remember(t, env, kind, at, len(arr), pg.elems, pg.verdicts)
	return pg, true
}

// record notes each named element of a compared page as seen, and as
// withheld when it drifted (no longer withheld when it matches), and
// returns how many drifted.
func (p *proxy) record(kind string, verdicts []verdict) (bad int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	w, seen := p.withheld[kind], p.seen[kind]
	if w == nil {
		w = map[string]bool{}
		p.withheld[kind] = w
	}
	if seen == nil {
		seen = map[string]bool{}
		p.seen[kind] = seen
	}
	for _, v := range verdicts {
		if v.drift != "" {
			bad++
		}
		if v.name == "" {
			continue
		}
		seen[v.name] = true
		if v.drift == "" {
			delete(w, v.name)
		} else {
			w[v.name] = true
		}
	}
	return bad
}

// logDrift logs each element that drifted and what the mode does about
// it, with the client-capabilities hint for an unpinned tool.
func (p *proxy) logDrift(kind string, verdicts []verdict) {
	action := map[Mode]string{Withhold: "withheld", Block: "listing blocked", Warn: "forwarded (--on-drift warn)"}[p.mode]
	for i, v := range verdicts {
		if v.drift == "" {
			continue
		}
		name := v.label(i)
		p.logf("%s %s: %s: %s", kind, name, v.drift, action)
		if kind == kindTool && v.drift == driftUnpinned && v.name != "" {
			if hint := p.capabilitiesHint(name); hint != "" {
				p.logf("%s", hint)
			}
		}
	}
}

// withholding is the message t with its listing's array (arrLen bytes at
// start) holding only the elements whose verdict has no drift. The
// returned slice has its newline just past its end, so that it is sent
// in one write.
func withholding(t []byte, start, arrLen int, elems [][]byte, verdicts []verdict) []byte {
	out := make([]byte, 0, len(t)+1)
	out = append(out, t[:start]...)
	out = append(out, '[')
	first := true
	for i, e := range elems {
		if verdicts[i].drift != "" {
			continue
		}
		if !first {
			out = append(out, ',')
		}
		first = false
		out = append(out, e...)
	}
	out = append(out, ']')
	out = append(out, t[start+arrLen:]...)
	out = append(out, '\n')
	return out[:len(out)-1]
}

// arrayMember returns the raw value of the member key of the object obj
// when it is an array, and its offset in obj.
func arrayMember(obj []byte, key string) ([]byte, int, bool) {
	ms, ok := jsonrpc.ObjectMembers(obj)
	if !ok {
		return nil, 0, false
	}
	for _, m := range ms {
		if m.Name == key && obj[m.Start] == '[' {
			return obj[m.Start:m.End], m.Start, true
		}
	}
	return nil, 0, false
}

// initialize compares the instructions of an initialize result with the
// pinned instructions hash (version 2 lockfiles); drifted instructions
// are stripped (Withhold), fail the initialize (Block) or are forwarded
// with a warning (Warn).
func (p *proxy) initialize(t []byte, env *jsonrpc.Envelope, pr pending) {
	pins := p.opts.Pins
	if env.Error != nil || pins == nil || !pins.v2() {
		p.send(t)
		return
	}
	got := lock.InstructionsHash(jsonrpc.InstructionsOf(env.Result))
	want := pins.Instructions
	if (got == nil && want == nil) || (got != nil && want != nil && *got == *want) {
		p.send(t)
		return
	}
	if got == nil {
		p.logf("instructions: the server sent none, agentgate.lock pins some: forwarded")
		p.send(t)
		return
	}
	what := "instructions not in agentgate.lock"
	if want != nil {
		what = fmt.Sprintf("instructions changed (instructionsHash %s, locked %s)", short(*got), short(*want))
	}
	switch p.mode {
	case Warn:
		p.logf("%s: forwarded (--on-drift warn)", what)
		p.send(t)
	case Block:
		p.logf("%s: initialize blocked", what)
		p.sendError(pr.id, codeInternal, fmt.Sprintf("agentgate guard blocked the initialize of server %s: its instructions differ from agentgate.lock (review with 'agentgate diff')", quote(p.opts.Server)))
	default:
		p.logf("%s: stripped from the initialize result", what)
		p.send(withoutMember(t, env.ResultAt, env.Result, "instructions"))
	}
}

// withoutMember returns msg with the member name of the object obj (at
// offset at in msg) removed, with the comma that separated it.
func withoutMember(msg []byte, at int, obj []byte, name string) []byte {
	ms, _ := jsonrpc.ObjectMembers(obj)
	for i, m := range ms {
		if m.Name != name {
			continue
		}
		from, to := m.KeyStart, m.End
		switch {
		case i+1 < len(ms):
			to = ms[i+1].KeyStart
		case i > 0:
			from = ms[i-1].End
		}
		out := append([]byte{}, msg[:at+from]...)
		return append(out, msg[at+to:]...)
	}
	return msg
}

// shownRaw is a raw JSON value from the server for a log line, cut to 40
// bytes and escaped.
func shownRaw(raw []byte) string {
	s := string(raw)
	if len(s) > 40 {
		s = s[:40] + "..."
	}
	return visible(s)
}
