package guard

// memo.go: the fast path for listings the server repeats, and the verdict
// cache for definitions it repeats.

import (
	"bytes"

	"github.com/agentgate/agentgate/mcp/jsonrpc"
)

// A memo is one list result that guard checked in full (json.Valid,
// jsonrpc.CheckMembersOf, jsonrpc.ParseEnvelope, the array split and the comparison
// of every element with the pins), kept with the outcome. A later message
// of the server's that is byte for byte the same except for the value of
// its id, when the new value is a plain integer or a plain ASCII string
// (jsonrpc.PlainID), is the same JSON object with the same members and the same
// result: replacing one scalar token by another keeps the text valid JSON
// with the same structure, and no check reads the id's value but the
// pending lookup, which guard still does for the new id. So guard reuses
// the memo's envelope and verdicts (fromServer, list) instead of checking
// again, and what it forwards and logs is what the full checks would
// have given: FuzzMemo compares the two paths.
//
// A repeated listing is the common case (a client that lists again, or
// lists after notifications/tools/list_changed and gets the same tools);
// any other message is checked in full. Memos are bounded: at most
// memoCount, the newest first, of messages of at most memoBytes together.
type memo struct {
	msg      []byte           // the message as checked (a copy)
	env      jsonrpc.Envelope // msg's envelope (raw, id and result point into msg)
	kind     string           // the kind of listing it answered
	arrAt    int              // the listing's array: its offset in the result
	arrLen   int              // and its length
	elems    [][2]int         // the elements' spans, relative to env.ResultAt
	verdicts []verdict        // nil when the pins do not compare this kind
}

// Bounds of the memos and of the verdict cache.
const (
	memoCount  = 4
	memoBytes  = 32 << 20
	cacheBytes = 32 << 20
)

// recall returns the memo t repeats, with t's envelope (the memo's, its
// offsets moved by the difference in length of the ids), or nil.
func (p *proxy) recall(t []byte) (*memo, jsonrpc.Envelope) {
	if p.plain {
		return nil, jsonrpc.Envelope{}
	}
	for _, m := range p.memos {
		idAt, idEnd := m.env.IDAt, m.env.IDAt+len(m.env.ID)
		suffix := len(m.msg) - idEnd
		n := len(t) - suffix - idAt // the new id's length
		if n <= 0 || n > jsonrpc.MaxPlainID || !bytes.Equal(t[:idAt], m.msg[:idAt]) {
			continue
		}
		id := t[idAt : idAt+n]
		if !jsonrpc.PlainID(id) || !bytes.Equal(t[idAt+n:], m.msg[idEnd:]) {
			continue
		}
		env := m.env
		env.Raw, env.ID = t, id
		if env.ResultAt > idAt {
			env.ResultAt += n - len(m.env.ID)
		}
		env.Result = t[env.ResultAt : env.ResultAt+len(m.env.Result)]
		p.memoHits++
		return m, env
	}
	return nil, jsonrpc.Envelope{}
}

// remember keeps t, a list result checked in full, as the newest memo:
// env its envelope, arrAt and arrLen the offset of the listing's array in
// the result and its length, elems its elements (sub-slices of t, in
// order) and verdicts theirs (nil when not compared).
func (p *proxy) remember(t []byte, env *jsonrpc.Envelope, kind string, arrAt, arrLen int, elems [][]byte, verdicts []verdict) {
	if p.plain || env.ID == nil || len(t) > memoBytes {
		return
	}
	msg := bytes.Clone(t)
	m := &memo{msg: msg, env: *env, kind: kind, arrAt: arrAt, arrLen: arrLen, verdicts: verdicts}
	m.env.Raw = msg
	m.env.ID = msg[env.IDAt : env.IDAt+len(env.ID)]
	m.env.Result = msg[env.ResultAt : env.ResultAt+len(env.Result)]
	m.env.Params, m.env.Error = nil, nil
	m.elems = make([][2]int, len(elems))
	at := env.ResultAt + arrAt + 1 // past '['; elements are separated by space and one comma
	for i, e := range elems {
		for at < len(t) && (t[at] == ',' || t[at] == ' ' || t[at] == '\t' || t[at] == '\n' || t[at] == '\r') {
			at++
		}
		m.elems[i] = [2]int{at - env.ResultAt, at + len(e) - env.ResultAt}
		at += len(e)
	}
	total := len(msg)
	keep := []*memo{m}
	for _, old := range p.memos {
		if len(keep) == memoCount || total+len(old.msg) > memoBytes {
			break
		}
		if bytes.Equal(old.msg, msg) {
			continue
		}
		keep = append(keep, old)
		total += len(old.msg)
	}
	p.memos = keep
}

// elementsOf returns the elements of the memo's listing within env.raw.
func (m *memo) elementsOf(env *jsonrpc.Envelope) [][]byte {
	out := make([][]byte, len(m.elems))
	for i, s := range m.elems {
		out[i] = env.Raw[env.ResultAt+s[0] : env.ResultAt+s[1] : env.ResultAt+s[1]]
	}
	return out
}

// cachedVerdict returns check(raw), remembered for the bytes raw of a
// definition of kind: a definition's verdict depends on its bytes and the
// session's pins only, so a listing that changed in one definition checks
// only that one. The cache holds at most cacheBytes of definitions; when
// full it starts over.
func (p *proxy) cachedVerdict(kind string, raw []byte, check func() verdict) verdict {
	if p.plain {
		return check()
	}
	c := p.cache[kind]
	if v, ok := c[string(raw)]; ok {
		return v
	}
	v := check()
	if p.cacheSize+len(raw) > cacheBytes {
		p.cache, p.cacheSize = nil, 0
	}
	if p.cache == nil {
		p.cache = map[string]map[string]verdict{}
	}
	if p.cache[kind] == nil {
		p.cache[kind] = map[string]verdict{}
	}
	p.cache[kind][string(raw)] = v
	p.cacheSize += len(raw)
	return v
}

// verdicts compares the elements of one page of a listing of kind with
// the pins (through the cache), and marks an element whose name another
// element of the page also has as "listed more than once".
func (p *proxy) verdicts(kind string, elems [][]byte) []verdict {
	pins := p.opts.Pins
	verdicts := make([]verdict, len(elems))
	names := make(map[string]int, len(elems))
	for i, e := range elems {
		if kind == kindTool {
			verdicts[i] = p.cachedVerdict(kind, e, func() verdict { return pins.checkTool(e) })
		} else {
			verdicts[i] = p.cachedVerdict(kind, e, func() verdict { return pins.checkEntry(kind, e) })
		}
		if verdicts[i].name != "" {
			names[verdicts[i].name]++
		}
	}
	for i := range verdicts {
		if v := &verdicts[i]; v.drift == "" && names[v.name] > 1 {
			v.drift = "listed more than once"
		}
	}
	return verdicts
}
