package triage

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/agentgate/agentgate/internal/lazyre"
	"github.com/agentgate/agentgate/internal/safetext"
)

// hiddenLabels is hidden-text: a character internal/safetext lists (the
// list the lockfile writer and every report escape) in the name or any
// string of the new definition that the old one did not hold as often.
// Emoji presentation is not hidden text: a variation selector after a
// symbol, a zero-width joiner between two symbols (🧑‍💻), a keycap
// sequence, and the tag characters of a subdivision flag (🏴 + tags +
// U+E007F) are skipped, and so is a joiner or non-joiner inside a word
// of a script that spells with them (joiners: Persian "می‌کند").
func hiddenLabels(item *Item, nt, ot texts) []Label {
	type where struct{ path, raw string }
	count := func(t texts, name string) (map[rune]int, []where) {
		c := map[rune]int{}
		var first []where
		scan := func(path, raw string) {
			found := false
			for _, r := range hiddenRunes(raw) {
				c[r]++
				found = true
			}
			if found {
				first = append(first, where{path, raw})
			}
		}
		if name != "" {
			scan("name", name)
		}
		for _, p := range t.pieces {
			if p.path != "name" {
				scan(p.path, p.raw)
			}
		}
		return c, first
	}
	var out []Label
	if l, ok := escapeLabel(nt, ot); ok {
		out = append(out, l)
	}
	nc, nw := count(nt, item.Name)
	if len(nw) == 0 {
		return out
	}
	oc, _ := count(ot, "")
	var kinds []string
	for r, n := range nc {
		if n > oc[r] {
			if k := safetext.Kind(r); !slices.Contains(kinds, k) {
				kinds = append(kinds, k)
			}
		}
	}
	if len(kinds) == 0 {
		return out
	}
	slices.SortFunc(kinds, func(a, b string) int { return slices.Index(safetext.Kinds, a) - slices.Index(safetext.Kinds, b) })
	w := nw[0]
	return append(out, Label{ID: HiddenText, Severity: High,
		Evidence: strings.Join(kinds, ", ") + " in " + evidence(w.path, around(w.raw))})
}

// escapeLabel is hidden-text for runs of literal escapes
// ("\\u0069\\u0067...", escapeRuns) in a string of the new definition that
// the old one did not hold as often: text spelled so that a reader does
// not see it, which Normalize decodes for the word rules.
func escapeLabel(nt, ot texts) (Label, bool) {
	count := func(t texts) (int, piece, string) {
		n := 0
		var at piece
		var first string
		for _, p := range t.pieces {
			rs := escapeRuns(p.raw)
			if n == 0 && len(rs) > 0 {
				at, first = p, rs[0]
			}
			n += len(rs)
		}
		return n, at, first
	}
	n, at, run := count(nt)
	if o, _, _ := count(ot); n <= o {
		return Label{}, false
	}
	return Label{ID: HiddenText, Severity: High,
		Evidence: "literal escapes in " + evidence(at.path, run) + " read as " + evidence("", decodeEscapes(run))}, true
}

// hiddenRunes lists the hidden characters of s that are not part of an
// emoji sequence.
func hiddenRunes(s string) []rune {
	rs := []rune(s)
	var out []rune
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		if r == utf8.RuneError || safetext.Kind(r) == "" {
			continue
		}
		prev, next := rune(0), rune(0)
		if i > 0 {
			prev = rs[i-1]
		}
		if i+1 < len(rs) {
			next = rs[i+1]
		}
		switch {
		case (r == 0xFE0F || r == 0xFE0E) && (isSymbol(prev) || next == 0x20E3 && strings.ContainsRune("0123456789#*", prev)):
			continue
		case r == 0x200D && (isSymbol(prev) || prev == 0xFE0F || prev >= 0x1F3FB && prev <= 0x1F3FF) && isSymbol(next):
			continue
		case (r == 0x200C || r == 0x200D) && joinerScript(prev, next):
			continue
		case r >= 0xE0020 && r <= 0xE007E && flagTags(rs, i):
			continue
		case r == 0xE007F && i > 0 && rs[i-1] >= 0xE0061 && rs[i-1] <= 0xE007A && flagTags(rs, i-1):
			continue
		}
		out = append(out, r)
	}
	return out
}

// joiners are the scripts whose spelling uses U+200C ZERO WIDTH
// NON-JOINER and U+200D ZERO WIDTH JOINER between letters: Persian
// writes "می‌کند" with one, Hindi and Bengali choose a conjunct's form
// with them. Between two letters (or a letter and its mark) of one of
// these scripts they are orthography, not hidden text; anywhere else
// they are.
var joiners = []*unicode.RangeTable{unicode.Arabic, unicode.Syriac, unicode.Devanagari, unicode.Bengali, unicode.Gurmukhi,
	unicode.Gujarati, unicode.Oriya, unicode.Tamil, unicode.Telugu, unicode.Kannada, unicode.Malayalam, unicode.Sinhala, unicode.Mongolian}

// joinerScript reports whether prev and next are of one script of
// joiners.
func joinerScript(prev, next rune) bool {
	for _, t := range joiners {
		if unicode.Is(t, prev) && unicode.Is(t, next) {
			return true
		}
	}
	return false
}

// isSymbol reports whether r can start an emoji presentation sequence.
func isSymbol(r rune) bool {
	return unicode.Is(unicode.So, r) || unicode.Is(unicode.Sm, r) || r >= 0x1F000 && r <= 0x1FAFF ||
		r == 0x00A9 || r == 0x00AE || r == 0x203C || r == 0x2049 || r >= 0x2190 && r <= 0x21FF
}

// flagTags reports whether the tag character at i belongs to a
// subdivision flag: U+1F3F4, two to six tag letters or digits, U+E007F.
func flagTags(rs []rune, i int) bool {
	j := i
	for j > 0 && isFlagTag(rs[j-1]) {
		j--
	}
	if j == 0 || rs[j-1] != 0x1F3F4 {
		return false
	}
	k := j
	for k < len(rs) && isFlagTag(rs[k]) {
		k++
	}
	return k-j >= 2 && k-j <= 6 && k < len(rs) && rs[k] == 0xE007F
}

func isFlagTag(r rune) bool { return r >= 0xE0061 && r <= 0xE007A || r >= 0xE0030 && r <= 0xE0039 }

// around is the text around the first hidden character of s.
func around(s string) string {
	for i, r := range s {
		if safetext.Kind(r) != "" {
			lo := max(0, i-40)
			for lo > 0 && !utf8.RuneStart(s[lo]) {
				lo--
			}
			return s[lo:]
		}
	}
	return s
}

// The annotations whose move toward less caution is permission-loosened,
// with the value the MCP specification gives an absent hint and the
// value that is the less cautious one.
var hints = []struct {
	name          string
	absent, loose bool
}{
	{"destructiveHint", true, false},
	{"readOnlyHint", false, true},
	{"openWorldHint", true, false},
	{"idempotentHint", false, true},
}

// Host names. A dotted name is a host when its last label is a TLD
// that is not also a common file extension or member name (hostTLDs),
// one of the names reserved for tests and private networks, or, with at
// least three labels, a TLD that is also a file extension or member
// name (hostTLDsLong: "readme.md" and "user.id" are not hosts,
// "files.evil.sh" is); and an IPv4 literal. Version numbers ("1.2.3"),
// file names ("config.json", "index.ts") and identifiers ("os.path",
// "process.env") are not: their last label is none of these.
const (
	hostTLDs = `com|net|org|edu|gov|mil|int|io|dev|app|xyz|info|biz|top|site|online|cloud|tech|pw|tk|click|live|shop|store|blog|news|space|website|club|pro|icu|vip|work|ru|cn|uk|de|fr|jp|br|au|ca|nl|eu|ch|se|kr|tw|hk|sg|nz|za|ir|ua|kz|su|onion|` +
		`example|test|invalid|localhost|internal|local|lan|corp|home|intranet|arpa`
	hostTLDsLong = `co|me|ai|sh|cc|to|in|is|it|id|ms|md|py|rs|pl|so|ps|pm|mk|ml|am|ac|us|tv|ly|gg|fm|la|ws|link|name|email|page|run|zip|mov`
	hostLabel    = `[a-z0-9](?:[a-z0-9-]*[a-z0-9])?`
	hostOctet    = `(?:25[0-5]|2[0-4][0-9]|1?[0-9]?[0-9])`
	// hostName matches a host name in lower case text; hostEnd what may
	// follow one (not a letter, digit, "_", "-", or a "." that goes on:
	// "config.local.json" holds no host).
	hostName = `(?:` + hostLabel + `\.)+(?:` + hostTLDs + `)|(?:` + hostLabel + `\.){2,}(?:` + hostTLDsLong + `)|` +
		hostOctet + `(?:\.` + hostOctet + `){3}`
	hostEnd = `(?:[^a-z0-9_.-]|\.(?:[^a-z0-9_-]|$)|$)`
)

// urlRe finds URLs, "www." names, e-mail addresses (group 1) and
// candidate host names (group 2, which hostBounded then checks).
var urlRe = lazyre.New(`(?i)(\bhttps?://[^\s"'<>\x60)\]}]+|\bwww\.[a-z0-9.-]+\.[a-z]{2,}\b|\b[a-z0-9._%+-]+@[a-z0-9-]+(?:\.[a-z0-9-]+)+\b)|\b(` + hostName + `)\b`)

// urlSieve tells the strings that hold no match of urlRe.
var urlSieve = sync.OnceValue(func() *sieve { return &newSieves([]string{urlRe().String()})[0] })

// hostBounded reports whether s[lo:hi] stands alone as a host name: not
// part of a longer dotted name, path, package scope or identifier
// (".env.example", "config.local.json", "@scope/pkg.dev", "my_var.test");
// after "://" (wss://, s3://) it is one.
func hostBounded(s string, lo, hi int) bool {
	word := func(c byte) bool {
		return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
	}
	if lo > 0 && (word(s[lo-1]) || strings.IndexByte(".@/", s[lo-1]) >= 0) && !strings.HasSuffix(s[:lo], "://") {
		return false
	}
	if hi < len(s) && (word(s[hi]) || s[hi] == '.' && hi+1 < len(s) && word(s[hi+1])) {
		return false
	}
	return true
}

// urls lists the URLs and host names in t's raw text, trailing
// punctuation removed.
func urls(t texts) []string {
	var out []string
	for _, p := range t.pieces {
		if !urlSieve().may(p.raw) {
			continue
		}
		for _, m := range urlRe().FindAllStringSubmatchIndex(p.raw, -1) {
			var u string
			switch {
			case m[2] >= 0:
				u = p.raw[m[2]:m[3]]
			case hostBounded(p.raw, m[4], m[5]):
				u = p.raw[m[4]:m[5]]
			default:
				continue
			}
			u = strings.TrimRight(u, ".,;:!?")
			if !slices.Contains(out, u) {
				out = append(out, u)
			}
		}
	}
	return out
}

// structLabels are the labels that compare structure: permission-loosened,
// new-url, new-parameter and a resource template moved out (movedOut)
// when both sides are known, new-url for an added item.
func structLabels(old, new *Item, nt, ot texts) []Label {
	var out []Label
	switch {
	case old == nil:
		for _, u := range urls(nt) {
			out = append(out, Label{ID: NewURL, Severity: Medium, Evidence: evidence("", u)})
		}
	case old.Def == nil || !nt.known:
		// a version 1 lockfile: the old text is not known
	default:
		ov, nv := decode(old.Def), decode(new.Def)
		out = append(out, loosened(ov, nv)...)
		ou := urls(ot)
		for _, u := range urls(nt) {
			if !slices.Contains(ou, u) {
				out = append(out, Label{ID: NewURL, Severity: Medium, Evidence: evidence("", u)})
			}
		}
		out = append(out, newParams(new.Kind, ov, nv)...)
		if new.Kind == KindResourceTemplate {
			out = append(out, movedOut(ov, nv)...)
		}
	}
	return out
}

// movedOut is exfiltration for a resource template whose uriTemplate
// moved from a scheme of the server's own ("exported-data://{name}",
// "file:///...") to an http or https URL: what the template names is now
// fetched from, and so kept at, a host on the network, and the reader is
// told nothing but the new link.
func movedOut(ov, nv any) []Label {
	o, _ := get(ov, "uriTemplate").(string)
	n, _ := get(nv, "uriTemplate").(string)
	if o == "" || webURL(o) || !webURL(n) {
		return nil
	}
	return []Label{{ID: Exfiltration, Severity: High, Evidence: evidence("uriTemplate", o+" → "+n)}}
}

// webURL reports whether s starts with an http or https scheme.
func webURL(s string) bool {
	s = strings.ToLower(s)
	return strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://")
}

// wordingOnly is the label of a changed item, both sides known, with no
// other label, when some string of it changed.
func wordingOnly(nt, ot texts) []Label {
	was := ot.byPath()
	var changed []string
	for _, p := range nt.pieces {
		if o, ok := was[p.path]; ok && o.raw != p.raw && !slices.Contains(changed, p.path) {
			changed = append(changed, p.path)
		}
	}
	if len(changed) == 0 {
		return nil
	}
	ev := safetext.VisibleLine(changed[0]) + " changed"
	if len(changed) > 1 {
		ev += fmt.Sprintf(" (+%d more)", len(changed)-1)
	}
	return []Label{{ID: WordingOnly, Severity: Low, Evidence: ev}}
}

func decode(def []byte) any {
	var v any
	dec := json.NewDecoder(bytes.NewReader(def))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return nil
	}
	return v
}

func get(v any, path ...string) any {
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

func loosened(ov, nv any) []Label {
	var out []Label
	readOnly, _ := get(nv, "annotations", "readOnlyHint").(bool)
	for _, h := range hints {
		if readOnly && (h.name == "destructiveHint" || h.name == "idempotentHint") {
			continue // meaningful only for a tool that is not read-only
		}
		was, now := h.absent, h.absent
		if b, ok := get(ov, "annotations", h.name).(bool); ok {
			was = b
		}
		if b, ok := get(nv, "annotations", h.name).(bool); ok {
			now = b
		}
		if was != h.loose && now == h.loose {
			out = append(out, Label{ID: PermissionLoosened, Severity: Medium,
				Evidence: fmt.Sprintf("annotations.%s: %v -> %v", h.name, was, now)})
		}
	}
	return out
}

// newParams lists the input parameters of nv that ov does not have: a
// tool's inputSchema.properties, a prompt's arguments, a resource
// template's variables.
func newParams(kind string, ov, nv any) []Label {
	names := func(v any) (all []string, required map[string]bool) {
		required = map[string]bool{}
		switch kind {
		case KindTool:
			if props, ok := get(v, "inputSchema", "properties").(map[string]any); ok {
				all = slices.Sorted(maps.Keys(props))
			}
			if req, ok := get(v, "inputSchema", "required").([]any); ok {
				for _, r := range req {
					if s, ok := r.(string); ok {
						required[s] = true
					}
				}
			}
		case KindPrompt:
			args, _ := get(v, "arguments").([]any)
			for _, a := range args {
				if n, ok := get(a, "name").(string); ok {
					all = append(all, n)
					if b, _ := get(a, "required").(bool); b {
						required[n] = true
					}
				}
			}
		case KindResourceTemplate:
			if t, ok := get(v, "uriTemplate").(string); ok {
				for _, m := range templateVar().FindAllStringSubmatch(t, -1) {
					for _, n := range strings.Split(m[1], ",") {
						all = append(all, strings.TrimRight(strings.TrimLeft(n, "+#./;?&"), "*"))
					}
				}
			}
		}
		return all, required
	}
	was, _ := names(ov)
	now, req := names(nv)
	var out []Label
	for _, n := range now {
		if slices.Contains(was, n) {
			continue
		}
		sev, what := Low, ""
		if req[n] {
			sev, what = Medium, " (required)"
		}
		out = append(out, Label{ID: NewParameter, Severity: sev, Evidence: evidence("", n) + what})
	}
	return out
}

// defaultOf is the member path of the schema whose default, or one
// element of whose array default, is at path: "a.properties.to" for
// "a.properties.to.default" and "a.properties.bcc.default[0]".
func defaultOf(path string) (string, bool) {
	if prefix, ok := strings.CutSuffix(path, ".default"); ok {
		return prefix, true
	}
	i := strings.LastIndex(path, ".default[")
	if i < 0 || !strings.HasSuffix(path, "]") || strings.Trim(path[i+len(".default["):len(path)-1], "0123456789") != "" {
		return "", false
	}
	return path[:i], true
}

var templateVar = lazyre.New(`\{([^}]*)\}`)

// destWord is what a parameter's name or description says when it is
// where data goes.
var destWord = lazyre.New(`(?i)deliver|receiv|copied|\bcop(?:y|ies)\b|mirror|forward|\bsync|webhook|callback|notif|recipient|\bsent\b|upload|report|relay|\becho|ingest|endpoint|target|destination|inbox|\bb?cc\b|e-?mail|address`)

// defaultDestLabels is exfiltration for a parameter whose default, new
// in this definition, is a URL, host or e-mail address and whose name or
// description says data goes there ("webhook", "delivered here", "a copy
// of every report"): left alone, every call sends to someone the user
// did not name.
func defaultDestLabels(nt, ot texts) []Label {
	if !slices.ContainsFunc(nt.pieces, func(p piece) bool { _, ok := defaultOf(p.path); return ok }) {
		return nil
	}
	old, now := ot.byPath(), nt.byPath()
	var out []Label
	for _, p := range nt.pieces {
		prefix, ok := defaultOf(p.path)
		if !ok || !strings.Contains(prefix, ".properties.") || old[p.path].raw == p.raw || !urlRe().MatchString(p.raw) {
			continue
		}
		words := prefix[strings.LastIndex(prefix, ".")+1:] + " " + now[prefix+".description"].norm + " " + now[prefix+".title"].norm
		if destWord().MatchString(words) {
			out = append(out, Label{ID: Exfiltration, Severity: High, Evidence: evidence(p.path, p.raw)})
		}
	}
	return out
}
