package guard

// own.go: guard's own listings. A call is decided by the server's current
// listing, which guard may not have seen: the client called before it
// listed (a client that caches tools across sessions, the MCP Inspector's
// tools/call), listed only the pages before the name's, or did not list
// again after the server said the list changed. Then guard lists the
// server itself before it decides.

import (
	"strconv"
	"sync"
	"time"

	"github.com/agentgate/agentgate/mcp/jsonrpc"
	"github.com/agentgate/agentgate/mcp/wire"
)

// OwnListTimeout bounds a listing guard sends itself, every page
// together; a call waiting for one that does not finish in time is
// refused.
var OwnListTimeout = 10 * time.Second

// listChanged maps each list_changed notification to the kind of
// definitions whose listing it makes stale.
var listChanged = map[string]string{
	"notifications/tools/list_changed":     kindTool,
	"notifications/prompts/list_changed":   kindPrompt,
	"notifications/resources/list_changed": kindResource,
}

// ownListing is one page of a listing of guard's own, pending: the
// server loop answers it once (answer), with the page's raw nextCursor
// when it was checked and recorded, or as failed.
type ownListing struct {
	once sync.Once
	done chan ownPage
}

type ownPage struct {
	ok     bool
	cursor []byte // the raw nextCursor member; nil when absent
}

func (o *ownListing) answer(ok bool, cursor []byte) {
	o.once.Do(func() { o.done <- ownPage{ok, cursor} })
}

// forget marks the listing of kind stale (the server said it changed):
// the next call of that kind is decided by a listing that comes after.
func (p *proxy) forget(kind string) {
	p.mu.Lock()
	delete(p.seen, kind)
	p.mu.Unlock()
}

// knows reports whether a listing since the last change decides a call
// for name of kind: it showed the name, or, for resources (whose uris a
// template makes are never listed), any listing of them came.
func (p *proxy) knows(kind, name string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if kind == kindResource {
		_, listed := p.seen[kind]
		return listed
	}
	return p.seen[kind][name]
}

// ownList lists kind (listMethod) from the server itself, every page (at
// most wire.DefaultMaxPages, capture's bound too), each answer checked
// and recorded as the client's would be (server.go) but not forwarded,
// and reports whether the whole listing came in time (OwnListTimeout).
// It runs in the client loop, the only writer of the server's input; the
// client's next message waits meanwhile. Its ids are strings
// ("agentgate-guard-N") no pending request of the client's has.
func (p *proxy) ownList(kind string) bool {
	method := listMethod[kind]
	deadline := time.NewTimer(OwnListTimeout)
	defer deadline.Stop()
	var cursor []byte
	for page := 1; page <= wire.DefaultMaxPages; page++ {
		o := &ownListing{done: make(chan ownPage, 1)}
		var id []byte
		var key string
		p.mu.Lock()
		for {
			p.ownSeq++
			id = []byte(`"agentgate-guard-` + strconv.Itoa(p.ownSeq) + `"`)
			key, _ = jsonrpc.IDKey(id)
			if _, taken := p.pending[key]; !taken {
				break
			}
		}
		p.pending[key] = pending{method: method, id: id, own: o}
		p.mu.Unlock()
		req := append([]byte(`{"jsonrpc":"2.0","id":`), id...)
		req = append(req, `,"method":"`+method+`"`...)
		if len(cursor) > 0 && string(cursor) != "null" {
			req = append(append(append(req, `,"params":{"cursor":`...), cursor...), '}')
		}
		req = append(req, "}\n"...)
		if _, err := p.upIn.Write(req); err != nil {
			p.dropOwn(key)
			return false
		}
		p.logf("%s: guard lists the server itself before it decides a call (page %d)", method, page)
		select {
		case a := <-o.done:
			if !a.ok {
				return false
			}
			if len(a.cursor) == 0 || string(a.cursor) == "null" {
				return true
			}
			cursor = a.cursor
		case <-deadline.C:
			p.dropOwn(key)
			p.logf("%s: the server did not answer guard's own listing within %s", method, OwnListTimeout)
			return false
		}
	}
	return false
}

// dropOwn forgets the pending listing of guard's own key: an answer that
// comes later answers nothing, and is refused.
func (p *proxy) dropOwn(key string) {
	p.mu.Lock()
	delete(p.pending, key)
	p.mu.Unlock()
}
