package triage

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/agentgate/agentgate/render"
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
	q := "“" + render.VisibleLine(text) + "”"
	if path == "" {
		return q
	}
	return render.VisibleLine(path) + ": " + q
}

type match struct {
	path, text string
	at         int
}

// find returns the matches of r in t: in the joined text (so that a
// sentence split across members is found), or for a scoped rule in each
// piece of its scope.
func (r *rule) find(t texts) []match {
	var out []match
	if r.scope == "" {
		for _, loc := range r.re.FindAllStringIndex(t.joined, -1) {
			out = append(out, match{path: t.pathsAt(loc[0], loc[1]), text: t.joined[loc[0]:loc[1]], at: loc[0]})
		}
		return out
	}
	for k, p := range t.pieces {
		if !inScope(r.scope, p.path) {
			continue
		}
		for _, loc := range r.re.FindAllStringIndex(p.norm, -1) {
			out = append(out, match{path: p.path, text: p.norm[loc[0]:loc[1]], at: t.starts[k] + loc[0]})
		}
	}
	return out
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
	for i := range rules {
		r := &rules[i]
		old := map[string]bool{}
		for _, m := range r.find(ot) {
			old[m.text] = true
		}
		keep(r.id, r.find(nt), old)
	}
	for _, sh := range shadowChecks(item, s) {
		old := map[string]bool{}
		for _, m := range sh.find(ot) {
			old[m.text] = true
		}
		keep(sh.id, sh.find(nt), old)
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

// A shadowCheck finds another tool's name in the text next to words that
// change how that tool behaves (tool-shadowing) or that call it when it
// belongs to another server (new-instruction).
type shadowCheck struct {
	id string
	re *regexp.Regexp
}

func (c shadowCheck) find(t texts) []match {
	var out []match
	for _, loc := range c.re.FindAllStringIndex(t.joined, -1) {
		out = append(out, match{path: t.pathsAt(loc[0], loc[1]), text: t.joined[loc[0]:loc[1]], at: loc[0]})
	}
	return out
}

// The words around another tool's name that change its behaviour.
var (
	shadowBefore = expand(`(?:\bwhen(?:ever)? (?:you )?(?:use|call|invoke|run|using|calling|invoking|running) (?:the )?|\b(?:instead of|rather than|do not use|don't use|never use|avoid|stop using|in place of|replaces|supersedes|overrides|shadows|wraps|intercepts) (?:the )?|\b(?:all |any |every )?(?:calls?|requests?|messages?|emails?) (?:to|via|through|made with|sent with|sent by) (?:the )?)`)
	shadowAfter  = `(?:(?:tool|function)s? )?(?:is|are|has been|was)(?: now)? (?:deprecated|broken|unsafe|disabled|replaced|compromised|unavailable|obsolete|no longer)|(?:(?:tool|function)s? )?(?:must|should|shall|will|needs? to|has to|is to|are to)(?: now| also| always| first| only)? (?:be )?(?:send|sent|forward|forwarded|include|included|cc|bcc|redirect|redirected|route|routed|copy|copied|set|add|added|change|changed|replace|replaced|ignore|ignored|skip|skipped|point|pointed|prefixed|suffixed|rewritten|modified|altered|wrapped|directed|given|use the (?:address|recipient|account|url|host)|go through|be called with)\b|(?:(?:tool|function)s? )?(?:now )?(?:requires?|expects?|only (?:works|accepts?)|accepts? only)\b|(?:tool |function )?(?:is|gets|was) (?:called|used|invoked|run)\b,? (?:[^ ]+ ){0,8}?(?:must|should|always|set|add|prefix|change|replace|redirect|route|send|include)\b`
	shadowFar    = `(?:must|should|is|are) (?:not|never) (?:be )?used\b|(?:is|are) (?:deprecated|broken|unsafe|compromised|stale|outdated)\b`
	callBefore   = `(?:^|[.;:!,] |\bthen |\band |\balso |\bplease |\bmust |\bshould |\bto |\bnow )(?:call|invoke|use|run|trigger|execute) (?:the |its |their )?`
)

// shadowChecks builds the checks for the other tools on the surface.
// A name that is one plain word ("search", "echo") is only recognised
// quoted or followed by "tool" or "function"; a compound name
// ("send_email", "browser-navigate") anywhere as a token.
func shadowChecks(item *Item, s Surface) []shadowCheck {
	var same, other []string
	seen := map[string]bool{}
	for _, n := range s.Names {
		if n.Kind != KindTool || n.Server == s.Server && n.Kind == item.Kind && n.Name == item.Name {
			continue
		}
		nn := Normalize(n.Name)
		if nn == "" || n.Server == s.Server && nn == Normalize(item.Name) {
			continue
		}
		key := fmt.Sprint(n.Server == s.Server, nn)
		if seen[key] {
			continue
		}
		seen[key] = true
		p := namePattern(nn)
		if n.Server == s.Server {
			same = append(same, p)
		} else {
			other = append(other, p)
		}
	}
	var out []shadowCheck
	for _, set := range [][]string{same, other} {
		if len(set) == 0 {
			continue
		}
		names := `(?:` + strings.Join(set, "|") + `)`
		out = append(out, shadowCheck{ToolShadowing, regexp.MustCompile(`(?s)` + shadowBefore + names + `|` + names + ` (?:[^ ]+ ){0,3}?(?:` + shadowAfter + `)|` + names + `[^ ]* (?:[^ ]+ ){0,8}?(?:` + shadowFar + `)`)})
	}
	if len(other) > 0 {
		names := `(?:` + strings.Join(other, "|") + `)`
		out = append(out, shadowCheck{NewInstruction, regexp.MustCompile(`(?s)` + callBefore + names)})
	}
	return out
}

// namePattern matches a normalised tool name as a token of the text.
func namePattern(n string) string {
	q := regexp.QuoteMeta(n)
	if strings.ContainsAny(n, "_-.:/0123456789") {
		lo, hi := `\b`, `\b`
		if !isWord(n[0]) {
			lo = ""
		}
		if !isWord(n[len(n)-1]) {
			hi = ""
		}
		return lo + q + hi
	}
	return `(?:['"\x60]` + q + `['"\x60]|\b` + q + ` (?:tool|function)\b)`
}

func isWord(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }
