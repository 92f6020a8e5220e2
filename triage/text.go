package triage

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/mtibben/confusables"
	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"

	"github.com/agentgate/agentgate/internal/lazyre"
	"github.com/agentgate/agentgate/internal/safetext"
)

// piece is one string of a definition: a string value, or a property
// name of a schema's "properties".
type piece struct {
	path string // "description", "inputSchema.properties.q.description", "inputSchema.properties.q" (the name)
	raw  string // as sent
	norm string // Normalize(raw)
}

// texts is every string of one definition, in a deterministic order
// (members sorted by name as Go strings, array elements in order), and
// all of them normalised and joined with a space.
type texts struct {
	known  bool // the definition was given
	pieces []piece
	joined string
	starts []int // where each piece starts in joined
	seen   sight // the rules' literals in joined (ruleLexicon)
	// seams join the end of a name, title or description that stops
	// mid-sentence with the start of each other description or title it
	// is not next to in joined, so that a sentence split between the
	// description and any parameter's description is read whole.
	seams []seam
}

// A seam is the last words of one piece and the first of another.
type seam struct {
	text  string
	split int    // where the second piece starts in text
	path  string // "description + inputSchema.properties.x.description"
	seen  sight  // the rules' literals in text
}

// seamWords is how many words of each side a seam holds.
const seamWords = 16

// skipped members hold identifiers, not text for the model: matching
// words or URLs in them only adds noise ("$schema" is a URL on every
// tool of some servers).
var skipped = map[string]bool{"$schema": true, "$id": true, "$ref": true, "type": true, "format": true, "pattern": true}

// collect gathers the strings of a definition. A definition that is not
// JSON is read as one string (so that nothing a server sent escapes the
// word rules).
func collect(kind string, def []byte) texts {
	if def == nil {
		return texts{}
	}
	t := texts{known: true}
	var v any
	dec := json.NewDecoder(bytes.NewReader(def))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		v = string(def)
	}
	if kind == KindInstructions {
		if s, ok := v.(string); ok {
			t.add("instructions", s)
		}
	} else {
		var names []piece
		walk(&t, &names, "", v)
		// Descriptions and titles first, in reading order, so that a
		// sentence split across them reads on in the joined text; then
		// the other strings (defaults, enums, ...), then property names.
		slices.SortStableFunc(t.pieces, func(a, b piece) int { return prose(b.path) - prose(a.path) })
		t.pieces = append(t.pieces, names...)
	}
	var b strings.Builder
	for i := range t.pieces {
		if i > 0 {
			b.WriteByte(' ')
		}
		t.starts = append(t.starts, b.Len())
		b.WriteString(t.pieces[i].norm)
	}
	t.joined = capped(b.String())
	t.seams = seams(t.pieces)
	lex := ruleLexicon()
	t.seen = lex.scan(t.joined)
	for i := range t.seams {
		t.seams[i].seen = lex.scan(t.seams[i].text)
	}
	return t
}

// seams lists the seams of pieces (in joined's order): for each of the
// name, title and description that does not end a sentence, with every
// other description or title but the one after it.
func seams(pieces []piece) []seam {
	var out []seam
	for i, a := range pieces {
		if !midSentence(a) {
			continue
		}
		tail := lastWords(a.norm, seamWords)
		for j, b := range pieces {
			if j == i || j == i+1 || prose(b.path) == 0 || head(b.path) {
				continue
			}
			head := firstWords(b.norm, seamWords)
			out = append(out, seam{text: tail + " " + head, split: len(tail) + 1, path: a.path + " + " + b.path})
		}
	}
	return out
}

// midSentence reports whether p is the title or description that stops
// mid-sentence (no final punctuation), which the seams read on.
func midSentence(p piece) bool {
	return head(p.path) && p.norm != "" && !strings.ContainsAny(p.norm[len(p.norm)-1:], ".!?:;)]}\"'`")
}

// head reports whether path is the item's own title or description, the
// text the rest of a definition is read after.
func head(path string) bool { return path == "title" || path == "description" }

func lastWords(s string, n int) string {
	i := len(s)
	for ; n > 0 && i > 0; n-- {
		i = strings.LastIndexByte(s[:i], ' ')
		if i < 0 {
			return s
		}
	}
	return s[i+1:]
}

func firstWords(s string, n int) string {
	i := 0
	for ; n > 0; n-- {
		k := strings.IndexByte(s[i:], ' ')
		if k < 0 {
			return s
		}
		i += k + 1
	}
	return s[:i-1]
}

// MaxRead is the most bytes of one definition's normalised text the word
// rules read (its strings joined, and each string alone); the rest is
// not labelled. Hidden characters, names, annotations, parameters and
// URLs are read whole.
const MaxRead = 64 << 10

func capped(s string) string {
	if len(s) <= MaxRead {
		return s
	}
	n := MaxRead
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func (t *texts) add(path, s string) {
	if strings.TrimSpace(s) == "" {
		return
	}
	t.pieces = append(t.pieces, piece{path: path, raw: s, norm: capped(Normalize(s))})
}

// walk adds the strings of v to t, and the property names of its schemas
// to names (which collect puts last, so that the joined text reads as the
// descriptions do).
func walk(t *texts, names *[]piece, path string, v any) {
	switch v := v.(type) {
	case string:
		t.add(path, v)
	case []any:
		for i, e := range v {
			walk(t, names, path+"["+strconv.Itoa(i)+"]", e)
		}
	case map[string]any:
		keys := sortedKeys(v)
		if path == "" {
			keys = readingOrder(keys)
		}
		for _, k := range keys {
			if _, obj := v[k].(map[string]any); skipped[k] && !obj {
				continue // a keyword's value; a property named "pattern" is read
			}
			p := memberPath(path, k)
			if props, ok := v[k].(map[string]any); ok && k == "properties" {
				for _, name := range sortedKeys(props) {
					if strings.TrimSpace(name) != "" {
						*names = append(*names, piece{path: memberPath(p, name), raw: name, norm: Normalize(name)})
					}
				}
			}
			walk(t, names, p, v[k])
		}
	}
}

// sortedKeys is m's keys, sorted.
func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// prose is 1 for a member that holds text for a reader (a description or
// title at any depth), 0 for others.
func prose(path string) int {
	if strings.HasSuffix(path, "description") || strings.HasSuffix(path, "title") {
		return 1
	}
	return 0
}

// readingOrder puts a definition's name, title and description first,
// in the order a person (or a model) reads them, then the other members
// sorted.
func readingOrder(keys []string) []string {
	first := []string{"name", "title", "description"}
	var out []string
	for _, k := range first {
		if slices.Contains(keys, k) {
			out = append(out, k)
		}
	}
	for _, k := range keys {
		if !slices.Contains(first, k) {
			out = append(out, k)
		}
	}
	return out
}

// memberPath is lock's member path notation: "a.b", or a["x.y"] for a
// name that is not a plain identifier.
func memberPath(path, key string) string {
	plain := key != ""
	for _, r := range key {
		if !(r == '_' || r == '-' || r == '$' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			plain = false
		}
	}
	switch {
	case !plain:
		q, _ := json.Marshal(key)
		return path + "[" + string(q) + "]"
	case path == "":
		return key
	}
	return path + "." + key
}

// byPath is t's pieces by their member path.
func (t texts) byPath() map[string]piece {
	out := make(map[string]piece, len(t.pieces))
	for _, p := range t.pieces {
		out[p.path] = p
	}
	return out
}

// pathsAt names the pieces that the joined text's bytes [i, j) fall in.
func (t *texts) pathsAt(i, j int) string {
	var ps []string
	for k, st := range t.starts {
		end := st + len(t.pieces[k].norm)
		if st < j && i < end {
			ps = append(ps, t.pieces[k].path)
		}
	}
	return strings.Join(ps, " + ")
}

// memberStart is where the sentence holding the joined text's byte i
// may start at the earliest: the start of the piece holding it, unless
// the piece before it is the title or description that stops
// mid-sentence and reads on into it ("Password" then "Path to private
// key file" are two members, not one sentence).
func (t *texts) memberStart(i int) int {
	k := len(t.starts) - 1
	for k > 0 && t.starts[k] > i {
		k--
	}
	for k > 0 && midSentence(t.pieces[k-1]) {
		k--
	}
	if k < 0 {
		return 0
	}
	return t.starts[k]
}

// unreadEnd is where the joined text's bytes [i, j) stop reading on:
// the end of the first piece they leave that is neither the title nor
// the description, or -1 when they leave none. One parameter's
// description does not continue into another's ("headers to include in
// the request" and "bearer token ..."), while the title and description
// may run on into what follows.
func (t *texts) unreadEnd(i, j int) int {
	for k, st := range t.starts {
		end := st + len(t.pieces[k].norm)
		if k+1 < len(t.pieces) && i < end && end < j && !head(t.pieces[k].path) {
			return end
		}
	}
	return -1
}

var fold = cases.Fold()

// Normalize is the text the word rules read: runs of three or more
// literal escapes ("\\u0069\\u0067\\u006e", escapeRuns) decoded to what they
// spell, Unicode tag characters
// (U+E0020 to U+E007E) decoded to the ASCII they spell, other hidden
// characters (internal/safetext's list) removed, NFKC, case folded, every non-ASCII
// letter whose Unicode TR39 confusable prototype is ASCII replaced by it
// (Cyrillic "о" reads as "o"), curly quotes made straight, Markdown
// emphasis ("*", "**") removed, every run of white space one space, and
// the backslashes of Windows paths written as slashes.
func Normalize(s string) string {
	s = decodeEscapes(s)
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if r >= 0xE0020 && r <= 0xE007E {
			// A tag character spells the ASCII character 0xE0000
			// below it: what it hides is read as text too.
			b.WriteRune(r - 0xE0000)
			continue
		}
		if r == utf8.RuneError || safetext.Kind(r) != "" {
			continue
		}
		b.WriteRune(r)
	}
	s = foldNFKC(b.String())
	b.Reset()
	b.Grow(len(s))
	space := true // drop leading space
	for _, r := range s {
		switch r {
		case '‘', '’', '‚', '‛', '′':
			r = '\''
		case '“', '”', '„', '‟', '″':
			r = '"'
		case '*':
			continue
		}
		if r == ' ' || r == '\n' || r == '\t' || r == '\r' || r == '\u00a0' {
			if !space {
				b.WriteByte(' ')
			}
			space = true
			continue
		}
		space = false
		if r >= 0x80 {
			if a := asciiPrototype(r); a != "" {
				b.WriteString(a)
				continue
			}
		}
		b.WriteRune(r)
	}
	return windowsPaths(strings.TrimSuffix(b.String(), " "))
}

// escapeRun is three or more literal escapes in a row: "\\u0069",
// "\\u{69}", "\\x69", as JSON, JavaScript or C write a character.
var escapeRun = lazyre.New(`(?i)(?:\\u[0-9a-f]{4}|\\u\{[0-9a-f]{1,6}\}|\\x[0-9a-f]{2}){3,}`)

var escapeOne = lazyre.New(`(?i)\\(?:u\{([0-9a-f]{1,6})\}|u([0-9a-f]{4})|x([0-9a-f]{2}))`)

// escapeRuns returns the runs of literal escapes in s.
func escapeRuns(s string) []string {
	if !strings.Contains(s, `\`) {
		return nil
	}
	return escapeRun().FindAllString(s, -1)
}

// decodeEscapes replaces each run of literal escapes in s by the
// characters it spells (UTF-16 surrogate pairs joined).
func decodeEscapes(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	return escapeRun().ReplaceAllStringFunc(s, func(run string) string {
		var u []uint16
		for _, m := range escapeOne().FindAllStringSubmatch(run, -1) {
			n, _ := strconv.ParseUint(m[1]+m[2]+m[3], 16, 32)
			if n > 0xFFFF {
				u = append(u, utf16.Encode([]rune{rune(n)})...)
			} else {
				u = append(u, uint16(n))
			}
		}
		return string(utf16.Decode(u))
	})
}

// windowsPath is a word that starts a Windows path: a drive, the home
// directory or a profile variable, then backslashes.
var windowsPath = lazyre.New(`(?:^|[^a-z0-9])(?:[a-z]:|%[a-z_]+%|\$env:[a-z_]+|\$home|~)\\+[^\\ ]|\\+users\\+`)

// windowsPaths writes the backslashes of Windows paths as slashes
// ("c:\users\me\.aws\credentials" reads as "c:/users/me/.aws/credentials"),
// so that the rules written with "/" read them too. Other backslashes
// (escapes, regular expressions) stay.
func windowsPaths(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	words := strings.Split(s, " ")
	for i, w := range words {
		if strings.Contains(w, `\`) && windowsPath().MatchString(w) {
			words[i] = backslashes().ReplaceAllString(w, "/")
		}
	}
	return strings.Join(words, " ")
}

var backslashes = lazyre.New(`\\+`)

// asciiPrototype is r's TR39 skeleton when it is printable ASCII
// letters or digits, else "".
func asciiPrototype(r rune) string {
	sk := confusables.Skeleton(string(r))
	if sk == "" || len(sk) > 2 {
		return ""
	}
	for i := 0; i < len(sk); i++ {
		c := sk[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return ""
		}
	}
	return strings.ToLower(sk)
}

// foldNFKC is s in NFKC, case folded: for ASCII, in lower case.
func foldNFKC(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return fold.String(norm.NFKC.String(s))
		}
	}
	return strings.ToLower(s)
}
