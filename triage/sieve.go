package triage

import (
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
)

// A sieve picks the parts of a text that can hold a match of one rule's
// pattern, from what the pattern says every match holds, so that the
// regular expression (RE2's automaton, slow on these large patterns)
// reads only those parts. locate's result is the same as the
// expression's over the whole text.
type sieve struct {
	// need are literals one of which every match contains (required);
	// nil when none is known.
	need []string
	// has is what every match contains: literals (lex's) combined with
	// and and or. A text, or a window of one, without it holds no match.
	has cond
	lex *lexicon
	// spaces is the most ' ' bytes a match holds; -1 when there is no
	// bound, or when the pattern asserts the start or end of the text or
	// of a line (which a window would see at its own edges).
	spaces int
}

// newSieves returns the sieves of the patterns srcs (regular
// expressions that compile), sharing one lexicon: one scan of a text
// (lex.scan) serves them all.
func newSieves(srcs []string) []sieve {
	out := make([]sieve, len(srcs))
	ids := map[string]int{}
	var lits []string
	for i, src := range srcs {
		out[i] = sieve{has: always, spaces: -1}
		if re, err := syntax.Parse(src, syntax.Perl); err == nil {
			re = re.Simplify()
			out[i] = sieve{need: required(re), has: contains(re), spaces: maxSpaces(re)}
		}
		out[i].has.number(ids, &lits)
	}
	lex := newLexicon(lits)
	for i := range out {
		out[i].lex = lex
	}
	return out
}

// locate returns re's matches in s, as re.FindAllStringIndex(s, -1)
// does, where re is the pattern v was made from and in is
// v.lex.scan(s).
//
// Every match lies in the window of an occurrence of one of the needed
// words: from just after the (spaces+1)th ' ' before it to the
// (spaces+1)th ' ' after it (or the ends of s). The windows that do not
// hold v.has hold no match; the others, joined where they overlap, are
// read apart. A window's edges are the ends of s or next to a ' ' (a
// non-word byte, as the end of the text is to \b), the pattern has no ^
// or $, and a match that starts in a window ends in it, so each window
// has the matches s has there, chosen as in s.
func (v *sieve) locate(re *regexp.Regexp, s string, in sight) [][]int {
	if !v.has.seen(in) {
		return nil
	}
	if v.need == nil || v.spaces < 0 {
		return re.FindAllStringIndex(s, -1)
	}
	var out [][]int
	for _, w := range v.windows(s) {
		for _, loc := range re.FindAllStringIndex(s[w[0]:w[1]], -1) {
			out = append(out, []int{w[0] + loc[0], w[0] + loc[1]})
		}
	}
	return out
}

// may reports whether s can hold a match.
func (v *sieve) may(s string) bool { return v.has.seen(v.lex.scan(s)) }

// windows returns the windows of s that locate reads, in order, apart.
func (v *sieve) windows(s string) [][2]int {
	spaces := make([]int, 0, strings.Count(s, " ")) // where s has ' '
	for i := 0; ; i++ {
		k := strings.IndexByte(s[i:], ' ')
		if k < 0 {
			break
		}
		i += k
		spaces = append(spaces, i)
	}
	var at [][2]int // the occurrences of the needed words
	for _, w := range v.need {
		for i := 0; ; i++ {
			k := strings.Index(s[i:], w)
			if k < 0 {
				break
			}
			i += k
			at = append(at, [2]int{i, i + len(w)})
		}
	}
	slices.SortFunc(at, func(a, b [2]int) int { return a[0] - b[0] })
	var out [][2]int
	n := v.spaces + 1
	for _, o := range at {
		lo, hi := 0, len(s)
		if i, _ := slices.BinarySearch(spaces, o[0]); i >= n {
			lo = spaces[i-n] + 1
		}
		if j, _ := slices.BinarySearch(spaces, o[1]); j+n-1 < len(spaces) {
			hi = spaces[j+n-1]
		}
		last := len(out) - 1
		if last >= 0 && lo >= out[last][0] && hi <= out[last][1] || !v.may(s[lo:hi]) {
			continue
		}
		if last >= 0 && lo <= out[last][1] {
			out[last][1] = max(out[last][1], hi)
		} else {
			out = append(out, [2]int{lo, hi})
		}
	}
	return out
}

// A cond is a condition on a text: that it contains lit (the literal
// numbered id in a lexicon), or when lit is "", that it meets all of
// subs (and) or one of them.
type cond struct {
	lit  string
	id   int
	and  bool
	subs []cond
	lits []bits // the ids of the subs that are literals (number sets them)
}

// bits are the ids 64*at+b of a set, for each bit b of set.
type bits struct {
	at  int
	set uint64
}

// always is the cond every text meets.
var always = cond{and: true}

// seen reports whether a text whose sight is in meets c.
func (c cond) seen(in sight) bool {
	if c.lit != "" {
		return in.has(c.id)
	}
	if c.and && !in.all(c.lits) || !c.and && in.any(c.lits) {
		return !c.and
	}
	for _, x := range c.subs {
		if x.lit == "" && x.seen(in) != c.and {
			return !c.and
		}
	}
	return c.and
}

// number gives each literal of c its id in lits, adding the literals
// lits lacks (ids maps a literal to its id), and sets the lits of c and
// of its subs.
func (c *cond) number(ids map[string]int, lits *[]string) {
	if c.lit != "" {
		id, ok := ids[c.lit]
		if !ok {
			id = len(*lits)
			ids[c.lit] = id
			*lits = append(*lits, c.lit)
		}
		c.id = id
		return
	}
	for i := range c.subs {
		x := &c.subs[i]
		x.number(ids, lits)
		if x.lit == "" {
			continue
		}
		k := slices.IndexFunc(c.lits, func(b bits) bool { return b.at == x.id/64 })
		if k < 0 {
			k = len(c.lits)
			c.lits = append(c.lits, bits{at: x.id / 64})
		}
		c.lits[k].set |= 1 << (x.id % 64)
	}
}

// contains returns what every match of re contains, always when
// nothing is known.
func contains(re *syntax.Regexp) cond {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase == 0 {
			return cond{lit: string(re.Rune)}
		}
		// Under (?i) only the runs of runes without another case are
		// matched as written.
		var all []cond
		for _, run := range strings.FieldsFunc(string(re.Rune), func(r rune) bool { return unicode.SimpleFold(r) != r }) {
			all = append(all, cond{lit: run})
		}
		return combine(all, true)
	case syntax.OpCapture, syntax.OpPlus:
		return contains(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min == 0 {
			return always
		}
		return contains(re.Sub[0])
	case syntax.OpConcat:
		var all []cond
		for _, sub := range re.Sub {
			all = gather(all, contains(sub), true)
		}
		return combine(all, true)
	case syntax.OpAlternate:
		var one []cond
		for _, sub := range re.Sub {
			c := contains(sub)
			if c.isAlways() {
				return always
			}
			one = gather(one, c, false)
		}
		return combine(one, false)
	}
	return always
}

// gather adds x to the subs of an and (or an or): x's own subs when x
// is one too; nothing when x is always.
func gather(subs []cond, x cond, and bool) []cond {
	switch {
	case x.isAlways():
		return subs
	case x.lit == "" && x.and == and:
		return append(subs, x.subs...)
	}
	return append(subs, x)
}

// combine is the and (or the or) of subs.
func combine(subs []cond, and bool) cond {
	switch len(subs) {
	case 0:
		return always
	case 1:
		return subs[0]
	}
	return cond{and: and, subs: subs}
}

func (c cond) isAlways() bool { return c.lit == "" && c.and && len(c.subs) == 0 }

// required returns literal strings one of which every match of re
// contains, or nil when it cannot tell (a match may be made of classes
// and repeats alone). Literals shorter than three bytes are not worth a
// search and count as unknown.
func required(re *syntax.Regexp) []string {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 || len(string(re.Rune)) < 3 {
			return nil
		}
		return []string{string(re.Rune)}
	case syntax.OpCapture, syntax.OpPlus:
		return required(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min == 0 {
			return nil
		}
		return required(re.Sub[0])
	case syntax.OpConcat:
		// The most selective child: the one whose shortest literal is
		// longest.
		var best []string
		score := 0
		for _, sub := range re.Sub {
			r := required(sub)
			if r == nil {
				continue
			}
			s := len(r[0])
			for _, x := range r {
				s = min(s, len(x))
			}
			if s > score {
				best, score = r, s
			}
		}
		return best
	case syntax.OpAlternate:
		var out []string
		for _, sub := range re.Sub {
			r := required(sub)
			if r == nil {
				return nil
			}
			out = append(out, r...)
		}
		return out
	}
	return nil
}

// maxSpaces returns the most ' ' bytes a match of re holds, or -1 when
// there is no bound or re asserts the start or end of the text or of a
// line.
func maxSpaces(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpNoMatch, syntax.OpEmptyMatch, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return 0
	case syntax.OpLiteral:
		return strings.Count(string(re.Rune), " ")
	case syntax.OpCharClass:
		for i := 0; i+1 < len(re.Rune); i += 2 {
			if re.Rune[i] <= ' ' && ' ' <= re.Rune[i+1] {
				return 1
			}
		}
		return 0
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return 1
	case syntax.OpCapture, syntax.OpQuest:
		return maxSpaces(re.Sub[0])
	case syntax.OpStar, syntax.OpPlus:
		if maxSpaces(re.Sub[0]) != 0 {
			return -1
		}
		return 0
	case syntax.OpRepeat:
		switch n := maxSpaces(re.Sub[0]); {
		case n <= 0:
			return n
		case re.Max < 0:
			return -1
		default:
			return n * re.Max
		}
	case syntax.OpConcat, syntax.OpAlternate:
		total := 0
		for _, sub := range re.Sub {
			n := maxSpaces(sub)
			if n < 0 {
				return -1
			}
			if re.Op == syntax.OpConcat {
				total += n
			} else {
				total = max(total, n)
			}
		}
		return total
	}
	return -1 // ^, $ and whatever else
}
