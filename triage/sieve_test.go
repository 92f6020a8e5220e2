package triage

import (
	"maps"
	"slices"
	"strings"
	"testing"
)

// checkSieve: every rule's sieve finds in s exactly what its expression
// finds over the whole of s, and the rules' lexicon finds the literals s
// contains.
func checkSieve(t *testing.T, s string) {
	t.Helper()
	checkLexicon(t, ruleLexicon(), s)
	for _, r := range compiledRules() {
		want := r.re.FindAllStringIndex(s, -1)
		if got := r.sieve.locate(r.re, s, r.sieve.lex.scan(s)); !slices.EqualFunc(got, want, slices.Equal) {
			t.Fatalf("%s/%s on %q: the sieve finds %v, the expression %v", r.id, r.class, s, got, want)
		}
	}
}

// checkLexicon: x finds in s exactly the literals strings.Contains
// finds.
func checkLexicon(t *testing.T, x *lexicon, s string) {
	t.Helper()
	in := x.scan(s)
	for id, l := range x.lits {
		if in.has(id) != strings.Contains(s, l) {
			t.Fatalf("%q in %q: the lexicon says %v", l, s, in.has(id))
		}
	}
}

// FuzzLexicon: for any literals (lines of list) and text, the lexicon
// finds what strings.Contains finds.
func FuzzLexicon(f *testing.F) {
	f.Add("he\nshe\nhis\nhers", "ushers")
	f.Add("a\naa\naaa\nb", "aaab")
	f.Add("://\n.\n@", "https://x.org")
	f.Fuzz(func(t *testing.T, list, s string) {
		var lits []string
		for _, l := range strings.Split(list, "\n") {
			if l != "" && !slices.Contains(lits, l) {
				lits = append(lits, l)
			}
		}
		checkLexicon(t, newLexicon(lits), s)
	})
}

// sieveSeeds are the texts the rules read in the corpus: every string,
// joined text and seam of every item of every package's latest release
// and of every attacked item, and the rows' examples and near misses.
func sieveSeeds(t testing.TB) []string {
	var out []string
	add := func(kind string, def []byte) {
		x := collect(kind, def)
		out = append(out, x.joined)
		for _, sm := range x.seams {
			out = append(out, sm.text)
		}
	}
	c := loadCorpus(t)
	for _, pkg := range c.order {
		rs := c.releases[pkg]
		items := c.itemsOf(t, rs[len(rs)-1])
		for _, k := range slices.SortedFunc(maps.Keys(items), func(x, y [2]string) int { return strings.Compare(x[0]+x[1], y[0]+y[1]) }) {
			add(k[0], items[k])
		}
	}
	for _, a := range readAttacks(t) {
		_, n, _ := c.attacked(t, a)
		add(n.Kind, n.Def)
	}
	for _, r := range compiledRules() {
		out = append(out, Normalize(r.match), Normalize(r.miss))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// FuzzSieve: on the corpus's texts and on any other, the sieve changes
// no rule's matches.
func FuzzSieve(f *testing.F) {
	for _, s := range sieveSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkSieve(t, s)
		if n := Normalize(s); n != s {
			checkSieve(t, n)
		}
	})
}
