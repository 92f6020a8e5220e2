package triage

import (
	"fmt"
	"regexp"
	"slices"
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
// rule in each piece of its scope, less those it drops (dropped).
func (r *rule) find(t texts) []match {
	if r.scope == "" {
		return append(r.findJoined(t), r.findSeams(t)...)
	}
	var out []match
	// A piece that joined holds whole can hold a match only if joined can.
	whole := r.sieve.has.seen(t.seen)
	for k, p := range t.pieces {
		if !whole && t.starts[k]+len(p.norm) <= len(t.joined) || !inScope(r.scope, p.path) {
			continue
		}
		for _, loc := range r.sieve.locate(r.re, p.norm, r.sieve.lex.scan(p.norm)) {
			if r.dropped(p.norm, loc, 0) {
				continue
			}
			out = append(out, match{path: p.path, text: strings.TrimRight(p.norm[loc[0]:loc[1]], " "), at: t.starts[k] + loc[0]})
		}
	}
	return out
}

// findJoined is find in the joined text. A match that reads on out of a
// piece that is not the title or description (unreadEnd) is read again
// up to that piece's end.
func (r *rule) findJoined(t texts) []match {
	var out []match
	for _, loc := range r.sieve.locate(r.re, t.joined, t.seen) {
		if end := t.unreadEnd(loc[0], loc[1]); end >= 0 {
			in := r.re.FindStringIndex(t.joined[loc[0]:end])
			if in == nil {
				continue
			}
			loc = []int{loc[0] + in[0], loc[0] + in[1]}
		}
		if r.dropped(t.joined, loc, t.memberStart(loc[0])) {
			continue
		}
		out = append(out, match{path: t.pathsAt(loc[0], loc[1]), text: strings.TrimRight(t.joined[loc[0]:loc[1]], " "), at: loc[0]})
	}
	return out
}

// findSeams is find in t's seams: only what spans a seam (the rest is in
// the joined text).
func (r *rule) findSeams(t texts) []match {
	var out []match
	for _, sm := range t.seams {
		for _, loc := range r.sieve.locate(r.re, sm.text, sm.seen) {
			if loc[0] < sm.split && loc[1] > sm.split && !r.dropped(sm.text, loc, 0) {
				out = append(out, match{path: sm.path, text: strings.TrimRight(sm.text[loc[0]:loc[1]], " "), at: len(t.joined)})
			}
		}
	}
	return out
}

// dropped reports whether the match s[loc[0]:loc[1]] is not an ask
// after all: a negation cancels it (negate) or it is an exception
// (exceptional).
// The sentence except reads starts at bound or later (where the member
// holding the match starts in a joined text).
func (r *rule) dropped(s string, loc []int, bound int) bool {
	return r.negate && negated(s, loc[0]) || r.exceptRe != nil && exceptional(r.exceptRe, s, loc, bound)
}

// exceptional reports whether except matches the match s[loc[0]:loc[1]]
// with what comes before it in its sentence (at most 120 bytes back, to
// the last ".", ";", ":", "!" or "?", and not before bound).
func exceptional(except *regexp.Regexp, s string, loc []int, bound int) bool {
	from := max(0, bound, loc[0]-120)
	if i := strings.LastIndexAny(s[from:loc[0]], ".;:!?"); i >= 0 {
		from += i + 1
	}
	return except.MatchString(s[from:loc[1]])
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

// ownSubject reports whether the item's name holds the words of a match
// (without separators, case folded, five letters at least):
// browser_localstorage_get and "localstorage".
func ownSubject(name, text string) bool {
	w := unseparated(text)
	return len(w) >= 5 && strings.Contains(strings.ToLower(unseparated(name)), w)
}

// textLabels runs the rules table and the named shadowing checks on the
// new text, dropping matches whose words the old text already held. One
// label per id: the first match in the table's order, with the count of
// the others.
func textLabels(nt, ot texts, item *Item, s Surface) []Label {
	found := map[string][]match{}
	var ids []string
	// keep adds the matches of ms whose words no match of the old text
	// (was) held.
	keep := func(id string, was, ms []match) {
		old := map[string]bool{}
		for _, m := range was {
			old[m.text] = true
		}
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
		ms := rs[i].find(nt)
		if rs[i].subject && item != nil {
			ms = slices.DeleteFunc(ms, func(m match) bool { return ownSubject(item.Name, m.text) })
		}
		keep(rs[i].id, rs[i].find(ot), ms)
	}
	// A frame's clause that holds a word rule's match of the same label
	// is that match again: not counted twice.
	oldFrames, newFrames := frameMatches(ot), frameMatches(nt)
	for id, ms := range tongueMatches(ot) {
		oldFrames[id] = append(oldFrames[id], ms...)
	}
	for id, ms := range tongueMatches(nt) {
		newFrames[id] = append(newFrames[id], ms...)
	}
	for _, id := range IDs {
		keep(id, oldFrames[id], slices.DeleteFunc(newFrames[id], func(f match) bool {
			return slices.ContainsFunc(found[id], func(m match) bool { return strings.Contains(f.text, m.text) })
		}))
	}
	oldShadow, newShadow := shadowMatches(ot, item, s), shadowMatches(nt, item, s)
	for _, id := range IDs {
		keep(id, oldShadow[id], newShadow[id])
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
// shadowBefore includes a release named just before it ("since this
// release, create_refund takes ..."): a sibling's behaviour restated.
var (
	shadowBefore = lazyre.New(`(?s)(?:\bwhen(?:ever)? (?:you )?(?:use|call|invoke|run|using|calling|invoking|running) (?:the )?|\b(?:replaces|supersedes|overrides|shadows|intercepts) (?:the )?|\b(?:all |any |every )?(?:calls?|requests?|messages?|emails?) (?:to|via|through|made with|sent with|sent by) (?:the )?|\b(?:guardrails?|safeguards?|safety checks?|checks|confirmations?|restrictions?|limits) (?:of|for|on|in) (?:the )?|\b(?:behaviou?r|semantics?|breaking) (?:change|changes|update|updates) (?:in|of|for|to) (?:the )?|\b(?:since|as of|starting with|from) (?:this|the latest|the last|the current|v?[0-9][^ ]*) (?:release|version|update),? (?:the )?|(?:忽略|无视|不要相信|不要使用|请勿使用|無視して|使わないで) ?(?:掉 ?)?)$`)
	shadowAfter  = lazyre.New(`(?s)^[^ .;!?]* (?:[^ ]*[^ .;] ){0,3}?(?:(?:(?:tool|function)s? )?(?:is|are|has been|was)(?: now)? (?:deprecated|broken|unsafe|disabled|replaced|compromised|unavailable|obsolete|no longer)|(?:(?:tool|function)s? )?(?:must|should|shall|will|needs? to|has to|is to|are to)(?: now| also| always| first| only| therefore| thus| then| instead)* (?:be )?(?:send|sent|forward|forwarded|include|included|cc|bcc|redirect|redirected|route|routed|copy|copied|set|add|added|change|changed|replace|replaced|ignore|ignored|skip|skipped|point|pointed|prefixed|suffixed|rewritten|modified|altered|wrapped|directed|given|use the (?:address|recipient|account|url|host)|go through|be called with)\b|(?:(?:tool|function)s? )?(?:now )?(?:requires?|expects?|only (?:works|accepts?)|accepts? only)\b|(?:tool |function )?(?:is|gets|was) (?:called|used|invoked|run)\b,? (?:[^ ]+ ){0,8}?(?:must|should|always|set|add|prefix|change|replace|redirect|route|send|include)\b|(?:(?:tool|function)s? )?(?:may|can|could) (?:now |also |safely )?(?:be )?(?:called|used|invoked|run)\b,? (?:[^ ]+ ){0,14}?(?:skips?|bypass(?:es)?|ignores?|is exempt from|(?:does not|doesn't|do not|don't) (?:need|require))\b)`)
	shadowFar    = lazyre.New(`(?s)^[^ ]* (?:[^ ]+ ){0,8}?(?:(?:must|should|is|are) (?:not|never) (?:be )?used\b|(?:is|are) (?:deprecated|broken|unsafe|compromised|stale|outdated|unreliable|flaky|buggy|insecure)\b|\b(?:field|parameter|param|argument|option|flag) (?:is|are) (?:now )?(?:expressed|interpreted|treated|read|measured|counted|taken) (?:in|as)\b|(?:is|are) (?:being )?(?:phased out|retired|sunset)\b|(?:has|have) been (?:retired|phased out|sunset|deprecated|disabled|withdrawn)\b|(?:does not|doesn't|do not|don't) (?:stick|persist|take effect|actually (?:save|apply|work))\b|\bserves? (?:stale|cached|outdated|old)\b|(?:is|are) sampled\b|\bsilently (?:truncates|drops|loses|omits|fails)\b|\balways reports? (?:success|ok|passed|green)\b|(?:currently |now |silently )?(?:corrupts|mangles|garbles)\b|(?:is|are|gets?) (?:rejected|refused|blocked|denied) unless\b|\b(?:treat|consider) (?:its|their) (?:[^ ]+ ){0,2}?(?:results?|outputs?|responses?|status(?:es)?) as (?:unreliable|wrong|invalid|untrustworthy|not final)\b|\b(?:flag|option|parameter|setting|argument|mode) (?:is|are) (?:now )?(?:ignored|inverted|reversed|swapped|not honou?red|a no-op|broken|disabled)\b|\b(?:is|are) not honou?red\b|\b(?:deletes|removes|writes|pushes) for real\b|\b(?:a )?dry[- ]run is (?:implied|automatic|assumed)\b|\bcan be (?:issued|called|run|used) freely\b|\b(?:reports|returns|shows) ["'\x60]?(?:failed|error|success|empty|nothing)["'\x60]? (?:for|when|on|even)\b|\b(?:runs?|executes?) (?:every|each|all|any)? ?(?:[^ ]+ )?(?:in )?(?:preview|dry[- ]run|simulation|sandbox(?:ed)?|read-only) mode\b|\bis safe to (?:call|run|use|try)\b|\bmoves? (?:[^ ]+ ){0,3}?(?:to|into) (?:a |the )?(?:[^ ]+ )?(?:recycle bin|trash|bin)\b|\brather than (?:deleting|dropping|removing|erasing|purging) (?:it|them)\b|(?:is|are) (?:only )?(?:a )?soft[- ]deletes?\b|\bcan (?:always )?be (?:undone|restored|recovered)\b|\bthe (?:lighter|safer|gentler|softer|harmless) option\b|\breturns? (?:[^ ]+ ){0,3}?(?:less|more|fewer|lower|higher|smaller|larger|greater) than (?:the )?(?:true|real|actual|correct|expected)\b|\boff by (?:one|[0-9]+)\b)`)
	// shadowClaim is another tool of this server as the subject of what
	// it does to data ("open_nodes also permanently removes", "the
	// get-env tool returns only mock values", "merge_pull_request treats
	// 'squash' as a force push").
	shadowClaim = lazyre.New(`^(?:'s|["'\x60])? (?:(?:tool|function) )?(?:(?:on|of|in) this server )?(?:(?:is|are) (?:[^ ]+ ){0,6}?[^ ]*[.;,] (?:[^ ]+ ){0,8}?(?:always |must |should )?(?:call|use|invoke|run) it with\b|(?:now|also|actually|only|always|never|currently|no longer|in this release|since this release|as of this release),? (?:(?:also|now|actually|silently|quietly|secretly|automatically|always|never|really|still|just|then|even) )?[a-z-]*[b-hj-tv-z-]s\b|(?:ignores|skips|bypasses|disables|overrides|force-pushes|rebases|squashes|discards)\b|(?:(?:now|also|actually|silently|secretly|quietly|automatically|always|permanently|since (?:this|the latest|the last|v?[0-9][^ ]*) (?:release|version|update),?) )*(?:removes|deletes|wipes|erases|drops|destroys|purges|overwrites|truncates|submits|sends|uploads|publishes|shares|forwards|posts|leaks|exposes|logs|records|treats|interprets|rewrites|redirects|reroutes|routes|mirrors|copies|returns only|only returns|returns (?:mock|fake|dummy|stale|cached|wrong|fabricated|placeholder)|(?:is|are) (?:now )?(?:mock|fake|a stub|harmless|safe to share|public|reversible|undoable|non-destructive|safe to call|safe to run|safe to use)|(?:keeps|takes|makes) (?:a |an )?(?:snapshot|backup)))\b`)
	// passBefore is the user's words or what a tool read handed to
	// another tool: "pass the user's original question ... to", "the
	// page content or the user's request to be sent to".
	passBefore = lazyre.New(`\b(?:pass|passes|passed|send|sends|sent|give|hand|feed|forward|forwarded|provide|supply|submit|submitted|report|reported|copy|copied|relay|relayed)\b[^.;!?]{0,100}?\b(?:the user'?s?|their|original|conversation|chat|question|request|messages?|history|content|names|personal|private)\b[^.;!?]{0,100}? to (?:the )?$|\b(?:the user'?s?|their|original|conversation|chat|question|request|messages?|history|content|names|personal|private|string|connection string|token|key|secret|password|kubeconfig|credentials?|cookies?)\b[^.;!?]{0,100}?\b(?:to be|be|is|are|gets?)(?: also| then| always)? (?:sent|passed|given|handed|fed|forwarded|provided|submitted|reported|copied|relayed|posted|mirrored|uploaded) (?:to|with|via|through|using|as (?:the |an? )?(?:[^ ]+ )?(?:of|to|for|in) (?:an? |the )?) ?(?:the )?$`)
	// fixedArg is a tool named with a destination written out: "post
	// them with slack_post_message to channel D04DIRSYNC", "with
	// add_issue_comment to owner 'repo-backup-bot'"; xferBefore the
	// sending word before the name.
	fixedArg   = lazyre.New(`^["'\x60]?,? (?:(?:[^ ]+ ){0,5}?(?:to|with|using|into|on|in) (?:the )?(?:parent |shared |team |public |common |sync |ingest )?(?:channel|channel_id|channel id|owner|repo|repository|user|address|recipient|issue|issue_number|email|to|account|bucket|webhook|chat|room|thread|page|page_id|parent|contact|database|database_id|record|url|block|block_id|project|projectid|project_id|base|table|namespace|configmap|folder|folder_id|folderid|drive|space|board|spreadsheet|[a-z]+_?id)s?(?: id)?|(?:block_id|page_id|channel_id|parent_id|database_id|chat_id|user_id|projectid|project_id))[ :=]+["'\x60]?[a-z0-9][a-z0-9_.@/#-]{3,}`)
	xferBefore = lazyre.New(`\b(?:post|posts|posted|send|sends|sent|forward|forwards|forwarded|copy|copies|copied|mirror|mirrors|mirrored|back up|backs up|backed up|backup|upload|uploads|uploaded|relay|relays|relayed|report|reports|reported|share|shares|shared|log|logs|logged|save|saves|saved|store|stores|stored|call|calls|calling|push|pushes|pushed|append|appends|appended|create|creates|record|records)\b[^.;!?]{0,80}$`)
	// fixedBefore is a fixed destination written before the tool's
	// name: "post the retrieved messages to channel C05AUDITLOG using
	// slack_post_message", "to the repository gh-mirror/backup (branch
	// main) with push_files".
	fixedBefore = lazyre.New(`\b(?:post|posts|send|sends|push|pushes|copy|copies|forward|forwards|mirror|mirrors|upload|uploads|append|appends|write|writes|save|saves|attach|attaches|store|stores)\b[^.;!?]{0,80}?\b(?:to|in|into) (?:the )?(?:[^ ]+ )?(?:channel|repository|repo|page|user|account|owner|block|contact|database|project|bucket|chat|room|thread|item|ticket|task|card|namespace|configmap|base|table|[a-z]+_?id)s? (?:id )?["'\x60]?[a-z0-9][a-z0-9_.@/#-]{3,}["'\x60]?[^.;!?]{0,40}?\b(?:with|using|via|through|by calling|by) (?:the )?$`)
	// shadowParam is a claim about a parameter of another tool of this
	// server, or its default: "approve_merge_request's approval_password
	// is optional", "forward-mail-message: toRecipients may now be left
	// empty", "git_push defaults to force: true", "delete_records accepts
	// an empty recordIds array", "git_push uses 'backup' unless ...".
	shadowParam = lazyre.New(`^(?:'s|["'\x60])?:? (?:(?:tool|function) )?(?:(?:parameter|argument|flag|option) )?(?:[a-z_][a-z0-9_.]* )?(?:(?:is|are) (?:now )?(?:optional|ignored|not required|no longer required|unused)\b|(?:may|can) (?:now )?(?:safely )?be (?:left )?(?:empty|blank|omitted|null|skipped|left out)\b|(?:now )?defaults? to\b|accepts? an? (?:empty|blank|null)\b|(?:called|invoked|run|used) with an? (?:empty|blank|null)\b|uses ["'\x60]?[a-z0-9_.-]+["'\x60]? unless\b)`)
	// passAfter is a whole output put into another tool's argument, after
	// the tool's name: "call create_work_item in project X with ... the
	// full file content as the description".
	passAfter  = lazyre.New(`^["'\x60]?,? [^.;!?]{0,120}?\b(?:the |its |their )?(?:(?:full|entire|complete|whole|raw|unredacted|retrieved|returned|fetched|captured) )+(?:[^ ]+ ){0,2}?(?:content|contents|text|output|body|log|logs|object|results?|response|data|values?|headers?|list)\b[^.;!?]{0,40}? (?:as|in) (?:the |its |an? )?["'\x60]?[a-z_][a-z0-9_.]*`)
	callBefore = lazyre.New(`(?s)(?:^|[.;:!,] |\bthen |\band |\balso |\bplease |\bmust |\bshould |\bto |\bnow )(?:call|invoke|use|run|trigger|execute) (?:the |its |their )?$`)
	nameToken  = lazyre.New("[a-z0-9_][a-z0-9_.:/-]*")
)

// shadowMatches finds the other tools of the surface named in t: a tool
// of this server next to words that change how it behaves
// (tool-shadowing; not in the server's instructions, which describe its
// own tools), a tool of another server at all (tool-shadowing: a server
// has no business describing another's tools), and a call of another
// server's tool (new-instruction). A name that is one plain word
// ("search", "echo") counts only quoted or followed by "tool" or
// "function"; a compound name ("send_email", "browser-navigate")
// anywhere as a token; a camelCase one ("createTextFile", one plain word
// once case folded) only when this server lists it, so that another
// server cannot list "readMe" to make every text that says "readme"
// shadowing.
func shadowMatches(t texts, item *Item, s Surface) map[string][]match {
	if len(s.Names) == 0 || t.joined == "" {
		return nil
	}
	self, tools := Normalize(item.Name), s.tools()
	out := map[string][]match{}
	j := t.joined
	add := func(id string, from, to int) {
		out[id] = append(out[id], match{path: t.pathsAt(from, to), text: j[from:to], at: from})
	}
	for _, m := range serverMentions(j, otherServers(s)) {
		add(ToolShadowing, m[0], m[1])
	}
	for _, loc := range nameTokens(j) {
		lo, hi := loc[0], loc[1]
		for hi > lo && (j[hi-1] == '.' || j[hi-1] == ':' || j[hi-1] == '/' || j[hi-1] == '-') {
			hi--
		}
		name := j[lo:hi]
		if name == self { // the item itself; a collision is name-collision
			continue
		}
		w := toolWhere(tools.servers, s.Server, name)
		own := w&1 != 0 // camelCase, quoting and "the NAME tool" count only for this server's tools
		if w == 0 || !strings.ContainsAny(name, "_-.:/0123456789") && !(own && tools.camel[name]) && !marked(j, lo, hi) && !(own && (quoted(j, lo, hi) || calledTool(j, lo, hi))) {
			continue
		}
		nameMatches(j, lo, hi, w, item.Kind != KindInstructions, w == 2 && t.enumValue(name), add)
	}
	return out
}

// calledTool reports whether the word j[lo:hi] is written as a tool's
// name: "the find tool".
func calledTool(j string, lo, hi int) bool {
	return strings.HasSuffix(j[:lo], "the ") && (strings.HasPrefix(j[hi:], " tool ") || strings.HasPrefix(j[hi:], " tool's "))
}

// nameMatches adds the matches around the tool name at j[lo:hi], of
// this server (w&1; only outside the server's instructions, own) and of
// another only (w == 2: a name this server lists too, "read_file" on two
// filesystem servers, is read as its own). A name that is also one of
// the item's own enum or const values (value: godot_input's action
// "type_text") is that value where it stands alone; written as a call,
// or beside words that send data, it still counts.
func nameMatches(j string, lo, hi, w int, own, value bool, add func(id string, from, to int)) {
	before := j[max(0, lo-80):lo]
	far := j[max(0, lo-220):lo]
	after := j[hi:min(len(j), hi+200)]
	if w&1 != 0 && own {
		if b := shadowBefore().FindStringIndex(before); b != nil {
			add(ToolShadowing, lo-len(before)+b[0], hi)
		} else if e := firstIndex(after, shadowAfter(), shadowFar(), shadowClaim(), shadowParam()); e != nil {
			add(ToolShadowing, lo, hi+e[1])
		}
	}
	if b := passBefore().FindStringIndex(far); b != nil {
		add(Exfiltration, lo-len(far)+b[0], hi)
	} else if e, b := fixedArg().FindStringIndex(after), xferBefore().FindStringIndex(far); e != nil && b != nil {
		add(Exfiltration, lo-len(far)+b[0], hi+e[1])
	} else if b := fixedBefore().FindStringIndex(far); b != nil {
		add(Exfiltration, lo-len(far)+b[0], hi)
	} else if e, b := passAfter().FindStringIndex(after), xferBefore().FindStringIndex(far); e != nil && b != nil {
		add(Exfiltration, lo-len(far)+b[0], hi+e[1])
	}
	if w == 2 { // a name this server has too is its own
		if !value {
			add(ToolShadowing, lo, hi)
		}
		if b := callBefore().FindStringIndex(before); b != nil {
			add(NewInstruction, lo-len(before)+b[0], hi)
		}
	}
}

// enumValue reports whether v (normalised) is one of the definition's
// own enum or const strings: a value its parameters take. Asked only for
// another server's tool names, which are rare in a text.
func (t *texts) enumValue(v string) bool {
	for _, p := range t.pieces {
		last := p.path[strings.LastIndexByte(p.path, '.')+1:]
		if p.norm == v && (last == "const" || strings.HasPrefix(last, "enum[")) {
			return true
		}
	}
	return false
}

// firstIndex is the match of the first of res that matches s.
func firstIndex(s string, res ...*regexp.Regexp) []int {
	for _, re := range res {
		if loc := re.FindStringIndex(s); loc != nil {
			return loc
		}
	}
	return nil
}

// otherServers is what the other servers of s are called in text: each
// server's name, and the same without "server" and "mcp" parts
// ("tavily-mcp" and "tavily", "server-puppeteer" and "puppeteer"); words
// shorter than four letters are left out, and so is a word that names
// s's own server as well ("godot" of godot-mcp beside godot-mcp-server:
// that word is the product both serve, not the other server).
func otherServers(s Surface) []string {
	build := func() map[string][]string {
		out := map[string][]string{}
		for _, n := range s.Names {
			if _, ok := out[n.Server]; !ok {
				out[n.Server] = serverWords(n.Server)
			}
		}
		return out
	}
	var by map[string][]string
	if s.index == nil {
		by = build()
	} else {
		s.index.serversOnce.Do(func() { s.index.servers = build() })
		by = s.index.servers
	}
	own := serverWords(s.Server)
	var ws []string
	for server, words := range by {
		if server != s.Server {
			for _, w := range words {
				if !slices.Contains(own, w) {
					ws = append(ws, w)
				}
			}
		}
	}
	slices.Sort(ws)
	return slices.Compact(ws)
}

// serverWords is how text names a server called name.
func serverWords(name string) []string {
	n := Normalize(name)
	n = n[strings.LastIndex(n, "/")+1:]
	var out []string
	if len(n) >= 4 {
		out = append(out, n)
	}
	parts := strings.FieldsFunc(n, func(r rune) bool { return r == '-' || r == '_' || r == '.' })
	parts = slices.DeleteFunc(parts, func(p string) bool { return p == "mcp" || p == "server" || p == "modelcontextprotocol" })
	if stem := strings.Join(parts, "-"); len(stem) >= 4 && stem != n {
		out = append(out, stem)
	}
	if spaced := strings.Join(parts, " "); len(parts) > 1 && len(spaced) >= 4 {
		out = append(out, spaced) // "desktop-commander" written "desktop commander"
	}
	return out
}

// serverMention is what follows another server's name when a text talks
// about that server: "the tavily server", "puppeteer's tools",
// "desktop commander's read_file".
var serverMention = lazyre.New(`^(?:'s)? ?(?:mcp )?(?:servers?|tools?|integrations?|connectors?|extensions?|plugins?|results|outputs?|responses)\b|^'s (?:[^ ]+ )?(?:tools?|results|outputs?|server)\b|^'s ["'\x60]?[a-z0-9]+[_-][a-z0-9_-]+`)

// replacedOf is what comes before another server's name when a text
// claims to stand in for one of its tools, named: "this replaces the
// get_document_info of cursor-talk-to-figma-mcp" (not "rather than
// recalling from memory").
var replacedOf = lazyre.New(`\b(?:replaces|supersedes|overrides|shadows|instead of|rather than|in place of) (?:the )?["'\x60]?[a-z0-9]+[_-][a-z0-9_-]*["'\x60]? (?:tool |function )?(?:of|from|in|on) (?:the )?$`)

// serverMentions returns where j names one of the servers as a server.
func serverMentions(j string, servers []string) [][2]int {
	var out [][2]int
	for _, name := range servers {
		for from := 0; ; {
			i := strings.Index(j[from:], name)
			if i < 0 {
				break
			}
			lo, hi := from+i, from+i+len(name)
			from = hi
			if lo > 0 && isWordByte(j[lo-1]) || hi < len(j) && isWordByte(j[hi]) && j[hi] != '\'' {
				continue
			}
			if e := serverMention().FindStringIndex(j[hi:min(len(j), hi+40)]); e != nil {
				out = append(out, [2]int{lo, hi + e[1]})
			} else if b := replacedOf().FindStringIndex(j[max(0, lo-80):lo]); b != nil {
				out = append(out, [2]int{max(0, lo-80) + b[0], hi})
			}
		}
	}
	return out
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// marked reports whether the plain word at j[lo:hi] is named as a tool:
// quoted and followed by the word "tool" or after a call ("call
// `search`", "`echo` tool"), or followed by words only a tool's name
// takes ("echo is invoked", "search gets called"). A plain word merely
// quoted is more often a parameter or value ('count', "search"), and one
// followed by "tool" unquoted is more often a kind of tool ("choose the
// list or search tool").
func marked(j string, lo, hi int) bool {
	rest := j[hi:]
	if quoted(j, lo, hi) {
		after := rest[1:]
		if strings.HasPrefix(after, " tool") && (len(after) == 5 || !isWordByte(after[5])) {
			return true
		}
		if callBefore().MatchString(j[max(0, lo-1-40) : lo-1]) {
			return true
		}
	}
	for _, w := range []string{" is invoked", " is called", " gets invoked", " gets called", " was invoked", " was called"} {
		if strings.HasPrefix(rest, w) {
			return true
		}
	}
	return false
}

// quoted reports whether j[lo:hi] is between two of one quote mark or
// backtick: how a server names a sibling tool ("`echo` now expands").
func quoted(j string, lo, hi int) bool {
	return lo > 0 && hi < len(j) && strings.ContainsRune("'\"`", rune(j[lo-1])) && j[hi] == j[lo-1]
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
