package guard

// notify.go: telling the client (and so the person) what guard withheld.
// guard's log goes to stderr, which no client shows the person (issue #25:
// Claude Code, Gemini CLI and opencode show the server as connected,
// Codex drops its tools silently); an MCP logging notification reaches
// the client on the same channel as the listing.

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// notifyWithheld sends the client a notifications/message (level
// "warning", logger "agentgate") naming the server, each definition of
// kind the listing withheld (as verdicts say; n is the listing's length)
// and why, and what to run: 'agentgate diff', then 'agentgate lock'. It
// is sent before the listing it describes, once per distinct set of
// withheld names of a kind (a client that lists again is not told
// again, unless the set changed). Names and reasons are shown as guard's
// log shows them (escaped by safetext.VisibleLine).
func (p *proxy) notifyWithheld(kind string, verdicts []verdict, n int) {
	var items, names []string
	for i, v := range verdicts {
		if v.drift == "" {
			continue
		}
		name := v.label(i)
		names = append(names, name)
		items = append(items, name+" ("+visible(v.drift)+")")
	}
	if len(items) == 0 {
		return
	}
	key := strings.Join(names, "\x00")
	p.mu.Lock()
	if p.toldWithheld == nil {
		p.toldWithheld = map[string]string{}
	}
	told := p.toldWithheld[kind] == key
	p.toldWithheld[kind] = key
	p.mu.Unlock()
	if told {
		return
	}
	slices.Sort(items)
	text := fmt.Sprintf("agentgate guard withheld %d of %d %s(s) of MCP server %s, which differ from agentgate.lock: %s. They are not available in this session. Review the change with 'agentgate diff' in the repository; after review, 'agentgate lock' pins it.",
		len(items), n, kind, shown(p.opts.Server), strings.Join(items, "; "))
	msg, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "notifications/message",
		"params": map[string]any{"level": "warning", "logger": "agentgate", "data": text}})
	if err != nil {
		return
	}
	p.send(msg)
}
