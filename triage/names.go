package triage

import (
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/mtibben/confusables"
	"golang.org/x/text/unicode/norm"
)

// Skeleton is the Unicode TR39 skeleton of a name after NFKC
// ("read_fiIe" and "read_file" share one, and so do "reаd_file" with a
// Cyrillic а and "read_file"). The confusables table is
// github.com/mtibben/confusables (Unicode 13.0.0's confusables.txt).
func Skeleton(name string) string {
	return confusables.Skeleton(norm.NFKC.String(name))
}

// lookAlike reports whether two different names look alike: one
// Skeleton, or one Skeleton once case folded ("Echo" and "echo") and
// without separators ("write-file" and "write_file") and combining marks
// ("fiłe", whose Skeleton is "fil" and a combining overlay, and "file"),
// with look-alike ASCII made one (plain).
// It is written apart from nameKeys so that TestNameIndex checks the
// index's keys against it.
func lookAlike(a, b string) bool {
	if a == b {
		return false
	}
	x, y := Skeleton(fold.String(a)), Skeleton(fold.String(b))
	return Skeleton(a) == Skeleton(b) || x == y || plain(x) == plain(y)
}

// nameKeys are the three forms lookAlike compares, each tagged with
// which it is: the Skeleton, the Skeleton case folded, and that without
// separators and combining marks, look-alike ASCII made one (plain).
// Two different names look alike when they have one in common.
func nameKeys(name string) [3]string {
	x := Skeleton(fold.String(name))
	return [3]string{"s" + Skeleton(name), "f" + x, "u" + plain(x)}
}

// plain is a case-folded Skeleton without separators and combining
// marks, with the ASCII characters that look alike in lower case made
// one: i, 1 and | are l, 0 is o, vv is w ("search_lssues" and
// "search_issues", "l0gs" and "logs", "brovvser_navigate" and
// "browser_navigate"; the Skeleton makes "I" and "l" one, not "i", and
// "rn" and "m", not "vv" and "w"). No
// two of the corpus's 3,064 real names share a plain form they do not
// share without it.
func plain(x string) string {
	return asciiAlike.Replace(strings.ToLower(unmarked(unseparated(x))))
}

var asciiAlike = strings.NewReplacer("i", "l", "1", "l", "|", "l", "0", "o", "vv", "w")

// unmarked drops the combining marks of s (which NFKC and the Skeleton
// leave on letters they do not map, as ł's stroke).
func unmarked(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.Is(unicode.Mn, r) {
			return -1
		}
		return r
	}, s)
}

// styleOnly reports whether a and b differ only in letter case and word
// separators ("read_text_file" and "readTextFile"): two servers' own
// naming styles, not a confusable character.
func styleOnly(a, b string) bool {
	return unseparated(fold.String(norm.NFKC.String(a))) == unseparated(fold.String(norm.NFKC.String(b)))
}

// nameIndex maps a kind and one of nameKeys to the Surface's names
// (their positions in Names) that have it, and holds the tool names
// shadowMatches looks up (Surface.tools).
type nameIndex struct {
	toolsOnce sync.Once
	tools     toolIndex // Surface.tools

	once sync.Once
	by   map[string][]int

	serversOnce sync.Once
	servers     map[string][]string // by server: what text calls it (serverWords)

	typosOnce sync.Once
	typos     map[string][]typoEntry // by kind and a name's words with one masked (maskedWords)
}

// typoOf returns the names of s of kind that name is a typo of (typo):
// "brave_web_seach" beside "brave_web_search", through s's index when it
// has one.
func (s Surface) typoOf(kind, name string) []Name {
	var out []Name
	if s.index == nil {
		for _, n := range s.Names {
			if n.Kind == kind && typo(name, n.Name) {
				out = append(out, n)
			}
		}
		return out
	}
	s.index.typosOnce.Do(func() {
		s.index.typos = map[string][]typoEntry{}
		for i, n := range s.Names {
			for _, m := range maskedWords(nameWords(n.Name), 0) {
				k := n.Kind + "\x00" + m.key
				s.index.typos[k] = append(s.index.typos[k], typoEntry{i, m.word})
			}
		}
	})
	ws := nameWords(name)
	for _, delta := range []int{-1, 1} {
		for _, m := range maskedWords(ws, delta) {
			// the key holds every other word, so the masked words decide
			for _, e := range s.index.typos[kind+"\x00"+m.key] {
				if oneLetter(m.word, e.word) {
					out = append(out, s.Names[e.at])
				}
			}
		}
	}
	return out
}

// A typoEntry is a name of the Surface (its position in Names) under one
// of its masked keys, with the word the key masks.
type typoEntry struct {
	at   int
	word string
}

// typo reports whether a and b have the same words (nameWords) but one,
// and that word is the other with one letter more (oneLetter). No two of
// the corpus's 2,881 real tool names are typos of each other so; a name
// one letter short of another tool's is there to be called in its place.
func typo(a, b string) bool {
	wa, wb := nameWords(a), nameWords(b)
	if len(wa) != len(wb) {
		return false
	}
	d := -1
	for i := range wa {
		if wa[i] != wb[i] {
			if d >= 0 {
				return false
			}
			d = i
		}
	}
	return d >= 0 && oneLetter(wa[d], wb[d])
}

// oneLetter reports whether one of two words, at least four letters long
// in both, is the other with one letter more: not its first letter
// ("mail" and "email" are two words) and not a plural's "s" or "es".
func oneLetter(x, y string) bool {
	if len(x) > len(y) {
		x, y = y, x
	}
	if len(x) < 4 || len(y) != len(x)+1 || x[0] != y[0] || y == x+"s" || y == x+"es" || strings.HasSuffix(x, "s") && y == x[:len(x)-1]+"es" {
		return false
	}
	i := 1
	for i < len(x) && x[i] == y[i] {
		i++
	}
	return x[i:] == y[i+1:]
}

// A masked is a name's words joined by a space with one written as "*"
// and a length (key), and the word so masked.
type masked struct{ key, word string }

// maskedWords is ws masked (masked) once for each word of at least four
// letters, written as "*" and its length plus delta: a name is indexed
// under delta 0 ("brave web *6" for brave_web_search), and a name one
// letter from it is looked up under its own word's length one more or
// one less (delta 1 and -1: "brave web *5"+1 for brave_web_seach).
func maskedWords(ws []string, delta int) []masked {
	var out []masked
	for i, w := range ws {
		if len(w) < 4 {
			continue
		}
		m := slices.Clone(ws)
		m[i] = "*" + strconv.Itoa(len(w)+delta)
		out = append(out, masked{strings.Join(m, " "), w})
	}
	return out
}

// nameWords are the words of a tool name, lower case: split at
// separators and where camelCase starts a word ("get_userData" is get,
// user, data).
func nameWords(name string) []string {
	var ws []string
	var b strings.Builder
	flush := func() {
		if b.Len() > 0 {
			ws = append(ws, b.String())
			b.Reset()
		}
	}
	prev := rune(0)
	for _, r := range name {
		switch {
		case r == '_' || r == '-' || r == '.' || r == ' ' || r == '/':
			flush()
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			flush()
			b.WriteRune(unicode.ToLower(r))
		default:
			b.WriteRune(unicode.ToLower(r))
		}
		prev = r
	}
	flush()
	return ws
}

// lookAlikes returns the names of s of kind that look like name
// (lookAlike), through s's index when it has one.
func (s Surface) lookAlikes(kind, name string) []Name {
	var like []Name
	if s.index == nil {
		for _, n := range s.Names {
			if n.Kind == kind && lookAlike(name, n.Name) {
				like = append(like, n)
			}
		}
		return like
	}
	s.index.once.Do(func() {
		s.index.by = map[string][]int{}
		for i, n := range s.Names {
			for _, k := range nameKeys(n.Name) {
				s.index.by[n.Kind+"\x00"+k] = append(s.index.by[n.Kind+"\x00"+k], i)
			}
		}
	})
	seen := map[int]bool{}
	for _, k := range nameKeys(name) {
		for _, i := range s.index.by[kind+"\x00"+k] {
			if n := s.Names[i]; !seen[i] && n.Name != name {
				seen[i] = true
				like = append(like, n)
			}
		}
	}
	return like
}

// unseparated drops the separators a name's words are joined with, so
// that "write-file", "write_file" and "write.file" look alike, and the
// dots no name is told apart by ("web_search·", a middle dot).
func unseparated(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '_' || r == '-' || r == '.' || r == ' ' || strings.ContainsRune(dotLike, r) {
			return -1
		}
		return r
	}, s)
}

// dotLike are the dots and bullets a name can end or be joined with to
// look like another: middle dot, Greek ano teleia, hyphenation point,
// bullet operator, dot operator, katakana middle dot (full and half
// width), bullet, one-dot leader.
const dotLike = "\u00b7\u0387\u2027\u2219\u22c5\u30fb\uff65\u2022\u2024"

// The scripts a name's letters may mix without being a lookalike: TR39's
// "highly restrictive" profile (Latin with Han and the Japanese or
// Korean scripts).
var allowedMixes = [][]string{
	{"Latin", "Han", "Hiragana", "Katakana"},
	{"Latin", "Han", "Bopomofo"},
	{"Latin", "Han", "Hangul"},
}

// scripts lists the scripts of the letters of s (Common and Inherited
// characters, digits and punctuation are in none), sorted.
func scripts(s string) []string {
	var out []string
	for _, r := range s {
		if !unicode.IsLetter(r) {
			continue
		}
		for name, tab := range unicode.Scripts {
			if name != "Common" && name != "Inherited" && unicode.Is(tab, r) {
				if !slices.Contains(out, name) {
					out = append(out, name)
				}
				break
			}
		}
	}
	slices.Sort(out)
	return out
}

// mixedScripts reports whether the letters of s mix scripts beyond the
// allowed mixes.
func mixedScripts(s string) ([]string, bool) {
	sc := scripts(s)
	if len(sc) < 2 {
		return sc, false
	}
	for _, mix := range allowedMixes {
		all := true
		for _, x := range sc {
			all = all && slices.Contains(mix, x)
		}
		if all {
			return sc, false
		}
	}
	return sc, true
}

// toolTypos is typoOf for a tool, nothing for another kind.
func (s Surface) toolTypos(item *Item) []Name {
	if item.Kind != KindTool {
		return nil
	}
	return s.typoOf(KindTool, item.Name)
}

// nameLabels is lookalike-name: the item's name mixes scripts, or it
// differs from another name of the same kind on the surface (any server)
// but has the same Skeleton, or a tool's name is one letter from another
// tool's (typo); and name-collision: another server lists a
// tool of exactly this name (filesystem servers share "read_file"), which
// a client that does not qualify tool names by server may call instead.
func nameLabels(item *Item, s Surface) []Label {
	if item.Name == "" {
		return nil
	}
	var out []Label
	if sc, mixed := mixedScripts(item.Name); mixed {
		out = append(out, Label{ID: LookalikeName, Severity: High,
			Evidence: evidence("name", item.Name) + " mixes " + strings.Join(sc, " and ") + " letters"})
	}
	like := s.lookAlikes(item.Kind, item.Name)
	slices.SortFunc(like, func(a, b Name) int {
		return strings.Compare(a.Server+"\x00"+a.Name, b.Server+"\x00"+b.Name)
	})
	if len(like) > 0 {
		out = append(out, likeLabel(item, like, s))
	} else if ty := s.toolTypos(item); len(ty) > 0 {
		slices.SortFunc(ty, func(a, b Name) int {
			return strings.Compare(a.Server+"\x00"+a.Name, b.Server+"\x00"+b.Name)
		})
		where := "this server's"
		if ty[0].Server != s.Server {
			where = "server " + quote(ty[0].Server) + "'s"
		}
		out = append(out, Label{ID: LookalikeName, Severity: High,
			Evidence: evidence("name", item.Name) + " is one letter from " + where + " tool " + evidence("", ty[0].Name)})
	}
	if l, ok := collision(item, s); ok {
		out = append(out, l)
	}
	return out
}

// likeLabel is the label for item's look-alike names (like, sorted):
// lookalike-name (high) on the first, unless every one is on another
// server and differs from item's name only in case and separators
// (styleOnly) while item's name follows its own server's naming
// (offNaming): then name-collision (medium), as for an exact name, since
// "readTextFile" beside another server's "read_text_file" is two
// servers' styles. A confusable character, a look-alike on the item's
// own server, or a name that breaks its server's naming (offNaming,
// styleBreak) stays high.
func likeLabel(item *Item, like []Name, s Surface) Label {
	n := like[0]
	where := "this server's"
	if n.Server != s.Server {
		where = "server " + quote(n.Server) + "'s"
	}
	ev := evidence("name", item.Name) + " looks like " + where + " " + n.Kind + " " + evidence("", n.Name)
	for _, o := range like {
		if o.Server == s.Server || !styleOnly(item.Name, o.Name) {
			return Label{ID: LookalikeName, Severity: High, Evidence: ev}
		}
	}
	if own := ownNames(item, s); offNaming(Normalize(item.Name), own) != "" || styleBreak(item.Name, own) {
		return Label{ID: LookalikeName, Severity: High, Evidence: ev}
	}
	return Label{ID: NameCollision, Severity: Medium, Evidence: ev + ", in another naming style"}
}

// styleBreak reports whether name is written in camelCase where its
// server's other tools (own, at least two) all join words with a
// separator and none is camelCase, or the other way round: a style its
// server does not use, which offNaming (on case-folded names) cannot
// see.
func styleBreak(name string, own []string) bool {
	if len(own) < 2 {
		return false
	}
	separated := func(n string) bool { return strings.ContainsAny(n, "_-.") }
	switch {
	case camelCase(name) && !separated(name):
		return !slices.ContainsFunc(own, camelCase) && !slices.ContainsFunc(own, func(n string) bool { return !separated(n) })
	case separated(name) && !camelCase(name):
		return !slices.ContainsFunc(own, separated) && !slices.ContainsFunc(own, func(n string) bool { return !camelCase(n) })
	}
	return false
}

// ownNames is the names of the other tools of item's server, as listed.
func ownNames(item *Item, s Surface) []string {
	var own []string
	for _, n := range s.Names {
		if n.Server == s.Server && n.Kind == KindTool && n.Name != item.Name {
			own = append(own, n.Name)
		}
	}
	return own
}

// collision labels a tool whose exact name another server lists:
// name-collision (medium) where the name follows this server's own
// naming, as two filesystem servers' "read_file" do; tool-shadowing
// (high) where it breaks it (offNaming): "browser_navigate" added to a
// server whose tools are all "puppeteer_*" is there to be called in
// place of the other server's tool.
func collision(item *Item, s Surface) (Label, bool) {
	if item.Kind != KindTool {
		return Label{}, false
	}
	name := Normalize(item.Name)
	others := slices.DeleteFunc(slices.Clone(s.tools().servers[name]), func(x string) bool { return x == s.Server })
	if len(others) == 0 {
		return Label{}, false
	}
	ev := evidence("name", item.Name) + " is also a tool of server " + quote(slices.Min(others))
	if why := offNaming(name, ownNames(item, s)); why != "" && !slices.ContainsFunc(others, func(o string) bool { return mirrors(s, o) }) {
		return Label{ID: ToolShadowing, Severity: High, Evidence: ev + ", and " + why}, true
	}
	return Label{ID: NameCollision, Severity: Medium, Evidence: ev}, true
}

// mirrors reports whether server other lists the same tools as s's
// server: at least four tools, and at least three in four of s's
// server's tools and of other's listed by both. Two packages that ship
// one server (playwright's and @playwright/test's MCP servers list the
// same browser_*, planner_* and test_* tools) are a copy, not a tool
// added to be called in place of another server's: their collisions
// are name-collision (medium), each of them, and their texts are read
// by every other rule.
func mirrors(s Surface, other string) bool {
	ti := s.tools()
	mine, theirs, both := 0, 0, 0
	for _, servers := range ti.servers {
		a, b := slices.Contains(servers, s.Server), slices.Contains(servers, other)
		if a {
			mine++
		}
		if b {
			theirs++
		}
		if a && b {
			both++
		}
	}
	return mine >= 4 && 4*both >= 3*mine && 4*both >= 3*theirs
}

// offNaming says how name (Normalize'd) breaks the naming of a server's
// other tools (own, as listed, at least two), or returns "": when at least three in four of
// them start with one word and a separator ("puppeteer_") and name does
// not, or when all of them that have a separator use one kind ("-") and
// name uses another.
func offNaming(name string, own []string) string {
	if len(own) < 2 {
		return ""
	}
	firsts := map[string]int{}
	seps := map[byte]bool{}
	for _, o := range own {
		o = Normalize(o)
		if i := strings.IndexAny(o, "_-."); i > 0 {
			firsts[o[:i+1]]++
			seps[o[i]] = true
		}
	}
	for p, n := range firsts {
		if 4*n >= 3*len(own) && !strings.HasPrefix(name, p) {
			return "this server's other tools are named " + quote(p+"…")
		}
	}
	if i := strings.IndexAny(name, "_-."); i > 0 && len(seps) == 1 && !seps[name[i]] {
		return "this server's other tools join words with another separator"
	}
	return ""
}

func quote(s string) string { return evidence("", s) }

// toolIndex is what the surface's tool names say, built once per index
// (Surface.tools).
type toolIndex struct {
	// servers maps the Normalize'd name of every tool to the servers
	// that list it (each once, in the order of Names).
	servers map[string][]string
	// camel holds the Normalize'd names of the tools written in camelCase
	// ("readTextFile"): once case folded they read as one plain word, but
	// not one a text uses by chance, so a text naming one names the tool.
	camel map[string]bool
}

// tools is s's toolIndex, built once per index.
func (s Surface) tools() toolIndex {
	build := func() toolIndex {
		ti := toolIndex{servers: map[string][]string{}, camel: map[string]bool{}}
		for _, n := range s.Names {
			if n.Kind != KindTool {
				continue
			}
			nn := Normalize(n.Name)
			if nn != "" && !slices.Contains(ti.servers[nn], n.Server) {
				ti.servers[nn] = append(ti.servers[nn], n.Server)
			}
			if camelCase(n.Name) {
				ti.camel[nn] = true
			}
		}
		return ti
	}
	if s.index == nil {
		return build()
	}
	s.index.toolsOnce.Do(func() { s.index.tools = build() })
	return s.index.tools
}

// camelCase reports whether name has a lower-case ASCII letter followed
// by an upper-case one.
func camelCase(name string) bool {
	for i := 1; i < len(name); i++ {
		if name[i-1] >= 'a' && name[i-1] <= 'z' && name[i] >= 'A' && name[i] <= 'Z' {
			return true
		}
	}
	return false
}

// toolWhere is where name is a tool, among tools (toolIndex.servers): 1 on
// server, 2 on another server, 3 both, 0 neither. The labelled item's own
// name is not asked (shadowMatches skips it).
func toolWhere(tools map[string][]string, server, name string) int {
	w := 0
	for _, srv := range tools[name] {
		if srv != server {
			w |= 2
		} else {
			w |= 1
		}
	}
	return w
}
