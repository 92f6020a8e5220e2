package triage

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/agentgate/agentgate/internal/lazyre"
	"github.com/agentgate/agentgate/internal/safetext"
)

// MaxEvidence is the most bytes of quoted text one label's evidence
// holds (before escaping); longer matches end in "…".
const MaxEvidence = 160

// evidence is "PATH: “TEXT”", escaped for one line.
func evidence(path, text string) string {
	if len(text) > MaxEvidence {
		cut := MaxEvidence
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		text = text[:cut] + "…"
	}
	q := "“" + safetext.VisibleLine(text) + "”"
	if path == "" {
		return q
	}
	return safetext.VisibleLine(path) + ": " + q
}

type match struct {
	path, text string
	at         int
}

// find returns the matches of r in t: in the joined text and its seams
// (so that a sentence split across members is found), or for a scoped
// rule in each piece of its scope. A row with negate drops the matches a negation
// cancels (negated).
func (r *rule) find(t texts) []match {
	var out []match
	if r.scope == "" {
		for _, loc := range r.sieve.locate(r.re, t.joined, t.seen) {
			if r.negate && negated(t.joined, loc[0]) {
				continue
			}
			out = append(out, match{path: t.pathsAt(loc[0], loc[1]), text: strings.TrimRight(t.joined[loc[0]:loc[1]], " "), at: loc[0]})
		}
		for _, sm := range t.seams {
			for _, loc := range r.sieve.locate(r.re, sm.text, sm.seen) {
				// only what spans the seam: the rest is in joined
				if loc[0] < sm.split && loc[1] > sm.split && !(r.negate && negated(sm.text, loc[0])) {
					out = append(out, match{path: sm.path, text: strings.TrimRight(sm.text[loc[0]:loc[1]], " "), at: len(t.joined)})
				}
			}
		}
		return out
	}
	// A piece that joined holds whole can hold a match only if joined can.
	whole := r.sieve.has.seen(t.seen)
	for k, p := range t.pieces {
		if !whole && t.starts[k]+len(p.norm) <= len(t.joined) || !inScope(r.scope, p.path) {
			continue
		}
		for _, loc := range r.sieve.locate(r.re, p.norm, r.sieve.lex.scan(p.norm)) {
			if r.negate && negated(p.norm, loc[0]) {
				continue
			}
			out = append(out, match{path: p.path, text: strings.TrimRight(p.norm[loc[0]:loc[1]], " "), at: t.starts[k] + loc[0]})
		}
	}
	return out
}

// negationBefore is a negation ending at most one word before a match:
// "do not [ever] include", "never invent", "avoid adding".
var negationBefore = lazyre.New(`(?:\b(?:not|never|no|nor|avoid|without|refrain from)|n't) (?:[^ ]+ )?$`)

// negated reports whether a negation just before s[at:] cancels what
// follows in the same sentence.
func negated(s string, at int) bool {
	before := s[max(0, at-40):at]
	if i := strings.LastIndexAny(before, ".;:!?"); i >= 0 {
		before = before[i+1:]
	}
	return negationBefore().MatchString(before)
}

// textLabels runs the rules table and the named shadowing checks on the
// new text, dropping matches whose words the old text already held. One
// label per id: the first match in the table's order, with the count of
// the others.
func textLabels(nt, ot texts, item *Item, s Surface) []Label {
	found := map[string][]match{}
	var ids []string
	keep := func(id string, ms []match, old map[string]bool) {
		for _, m := range ms {
			if old[m.text] {
				continue
			}
			if found[id] == nil {
				ids = append(ids, id)
			}
			found[id] = append(found[id], m)
		}
	}
	rs := compiledRules()
	for i := range rs {
		r := &rs[i]
		old := map[string]bool{}
		for _, m := range r.find(ot) {
			old[m.text] = true
		}
		keep(r.id, r.find(nt), old)
	}
	oldShadow := shadowMatches(ot, item, s)
	newShadow := shadowMatches(nt, item, s)
	for _, id := range []string{ToolShadowing, NewInstruction} {
		old := map[string]bool{}
		for _, m := range oldShadow[id] {
			old[m.text] = true
		}
		keep(id, newShadow[id], old)
	}
	var out []Label
	for _, id := range ids {
		ms := found[id]
		ev := evidence(ms[0].path, ms[0].text)
		if n := len(ms) - 1; n > 0 {
			ev += fmt.Sprintf(" (+%d more)", n)
		}
		out = append(out, Label{ID: id, Severity: DefaultSeverity[id], Evidence: ev})
	}
	return out
}

// The words around another tool's name that change its behaviour.
var (
	shadowBefore = lazyre.New(`(?s)(?:\bwhen(?:ever)? (?:you )?(?:use|call|invoke|run|using|calling|invoking|running) (?:the )?|\b(?:instead of|rather than|do not use|don't use|never use|avoid|stop using|in place of|replaces|supersedes|overrides|shadows|wraps|intercepts) (?:the )?|\b(?:all |any |every )?(?:calls?|requests?|messages?|emails?) (?:to|via|through|made with|sent with|sent by) (?:the )?|\b(?:if|when|whenever|once|before|after) (?:the )?)$`)
	shadowAfter  = lazyre.New(`(?s)^[^ ]* (?:[^ ]+ ){0,3}?(?:(?:(?:tool|function)s? )?(?:is|are|has been|was)(?: now)? (?:deprecated|broken|unsafe|disabled|replaced|compromised|unavailable|obsolete|no longer)|(?:(?:tool|function)s? )?(?:must|should|shall|will|needs? to|has to|is to|are to)(?: now| also| always| first| only)? (?:be )?(?:send|sent|forward|forwarded|include|included|cc|bcc|redirect|redirected|route|routed|copy|copied|set|add|added|change|changed|replace|replaced|ignore|ignored|skip|skipped|point|pointed|prefixed|suffixed|rewritten|modified|altered|wrapped|directed|given|use the (?:address|recipient|account|url|host)|go through|be called with)\b|(?:(?:tool|function)s? )?(?:now )?(?:requires?|expects?|only (?:works|accepts?)|accepts? only)\b|(?:tool |function )?(?:is|gets|was) (?:called|used|invoked|run)\b,? (?:[^ ]+ ){0,8}?(?:must|should|always|set|add|prefix|change|replace|redirect|route|send|include)\b|(?:(?:tool|function)s? )?(?:may|can|could) (?:now |also |safely )?(?:be )?(?:called|used|invoked|run)\b,? (?:[^ ]+ ){0,14}?(?:skips?|bypass(?:es)?|ignores?|is exempt from|(?:does not|doesn't|do not|don't) (?:need|require))\b)`)
	shadowFar    = lazyre.New(`(?s)^[^ ]* (?:[^ ]+ ){0,8}?(?:(?:must|should|is|are) (?:not|never) (?:be )?used\b|(?:is|are) (?:deprecated|broken|unsafe|compromised|stale|outdated)\b)`)
	callBefore   = lazyre.New(`(?s)(?:^|[.;:!,] |\bthen |\band |\balso |\bplease |\bmust |\bshould |\bto |\bnow )(?:call|invoke|use|run|trigger|execute) (?:the |its |their )?$`)
	nameToken    = lazyre.New("[a-z0-9_][a-z0-9_.:/-]*")
)

// shadowMatches finds the other tools of the surface named in t: a tool
// of this server next to words that change how it behaves
// (tool-shadowing; not in the server's instructions, which describe its
// own tools), a tool of another server at all (tool-shadowing: a server
// has no business describing another's tools), and a call of another
// server's tool (new-instruction). A name that is one plain word
// ("search", "echo") counts only quoted or followed by "tool" or
// "function"; a compound name ("send_email", "browser-navigate")
// anywhere as a token.
func shadowMatches(t texts, item *Item, s Surface) map[string][]match {
	if len(s.Names) == 0 || t.joined == "" {
		return nil
	}
	self := Normalize(item.Name)
	tools := s.toolServers()
	out := map[string][]match{}
	j := t.joined
	for _, loc := range nameTokens(j) {
		lo, hi := loc[0], loc[1]
		for hi > lo && (j[hi-1] == '.' || j[hi-1] == ':' || j[hi-1] == '/' || j[hi-1] == '-') {
			hi--
		}
		name := j[lo:hi]
		w := toolWhere(tools, s.Server, self, name)
		if w == 0 || !strings.ContainsAny(name, "_-.:/0123456789") && !marked(j, lo, hi) {
			continue
		}
		before := j[max(0, lo-80):lo]
		after := j[hi:min(len(j), hi+200)]
		add := func(id string, from, to int) {
			out[id] = append(out[id], match{path: t.pathsAt(from, to), text: j[from:to], at: from})
		}
		if w&1 != 0 && item.Kind != KindInstructions {
			if b := shadowBefore().FindStringIndex(before); b != nil {
				add(ToolShadowing, lo-len(before)+b[0], hi)
			} else if e := shadowAfter().FindStringIndex(after); e != nil {
				add(ToolShadowing, lo, hi+e[1])
			} else if e := shadowFar().FindStringIndex(after); e != nil {
				add(ToolShadowing, lo, hi+e[1])
			}
		}
		if w&2 != 0 {
			add(ToolShadowing, lo, hi)
			if b := callBefore().FindStringIndex(before); b != nil {
				add(NewInstruction, lo-len(before)+b[0], hi)
			}
		}
	}
	return out
}

// marked reports whether the plain word at j[lo:hi] is quoted, or
// followed by "tool" or "function", or by words only a tool's name takes
// ("echo is invoked", "search gets called").
func marked(j string, lo, hi int) bool {
	if lo > 0 && hi < len(j) && strings.ContainsRune("'\"`", rune(j[lo-1])) && j[hi] == j[lo-1] {
		return true
	}
	rest := j[hi:]
	for _, w := range []string{" tool", " function", " is invoked", " is called", " gets invoked", " gets called", " was invoked", " was called"} {
		if strings.HasPrefix(rest, w) {
			return true
		}
	}
	return false
}

// nameTokens returns where j has a token that may be a tool's name, as
// nameToken finds them: each run of [a-z0-9_.:/-], from its first byte
// that is not ".", ":", "/" or "-".
func nameTokens(j string) [][2]int {
	var out [][2]int
	for i := 0; i < len(j); i++ {
		if !nameByte(j[i]) || strings.IndexByte(".:/-", j[i]) >= 0 {
			continue
		}
		lo := i
		for i < len(j) && nameByte(j[i]) {
			i++
		}
		out = append(out, [2]int{lo, i})
	}
	return out
}

// nameByte reports whether c is one of [a-z0-9_.:/-].
func nameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || strings.IndexByte("_.:/-", c) >= 0
}
