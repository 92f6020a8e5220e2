package triage

import (
	"slices"
	"strconv"
	"testing"
)

// TestTongues runs every language file's examples: each "match" line
// must make its frame fire (and give the frame's label through
// Change), each "miss" line must not. Every language has an example
// and a near miss for the frames the corpus's attacks use most (hide,
// noconsent), and no more examples than near misses.
func TestTongues(t *testing.T) {
	ix := compiledTongues()
	if len(ix.tongues) == 0 {
		t.Fatal("no language files")
	}
	fired := func(s string) []string {
		var out []string
		tx := collect(KindTool, []byte(`{"name":"t","description":`+strconv.Quote(s)+`}`))
		for _, c := range tongueClauses(tx.joined) {
			var have uint64
			for _, h := range ix.hits(tx.joined) {
				if h.from >= c[0] && h.to <= c[1] {
					have |= h.concepts
				}
			}
			for _, f := range ix.frames {
				if f.fires(have) && !slices.Contains(out, f.name) {
					out = append(out, f.name)
				}
			}
		}
		return out
	}
	for _, tg := range ix.tongues {
		for _, need := range []string{"hide", "noconsent"} {
			if len(tg.match[need]) == 0 || len(tg.miss[need]) == 0 {
				t.Errorf("tongues/%s.txt: no match and miss lines for %s", tg.lang, need)
			}
		}
		for _, f := range ix.frames {
			if len(tg.match[f.name]) > 0 && len(tg.miss[f.name]) == 0 {
				t.Errorf("tongues/%s.txt: %s has examples and no near miss", tg.lang, f.name)
			}
			for _, s := range tg.match[f.name] {
				if got := fired(s); !slices.Contains(got, f.name) {
					t.Errorf("tongues/%s.txt: match %s: %q fires %v", tg.lang, f.name, s, got)
				}
				ls := Change(&Item{Kind: KindTool, Name: "t", Def: []byte(`{"name":"t"}`)},
					&Item{Kind: KindTool, Name: "t", Def: []byte(`{"name":"t","description":` + strconv.Quote(s) + `}`)}, Surface{})
				if !slices.ContainsFunc(ls, func(l Label) bool { return l.ID == f.id }) {
					t.Errorf("tongues/%s.txt: match %s: %q has no %s label: %v", tg.lang, f.name, s, f.id, ls)
				}
			}
			for _, s := range tg.miss[f.name] {
				if got := fired(s); slices.Contains(got, f.name) {
					t.Errorf("tongues/%s.txt: miss %s: %q fires it", tg.lang, f.name, s)
				}
			}
		}
	}
}

// TestTongueEntries checks how an entry is read: word boundaries, "*"
// at either end, and the unspaced scripts matched anywhere.
func TestTongueEntries(t *testing.T) {
	for _, c := range []struct {
		entry, text string
		want        bool
	}{
		{"nicht", "das ist nicht gut", true},
		{"nicht", "nichts davon", false},
		{"nutzer*", "dem nutzerkonto", true},
		{"nutzer*", "benutzer", false},
		{"*משתמש", "למשתמש", true},
		{"*משתמש", "משתמשים", false},
		{"用户", "不要告诉用户", true},
		{"사용자", "사용자에게", true},
		{"ohne_rückfrage", "ohne  Rückfrage", true},
	} {
		lit, start, end := tongueEntry(c.entry)
		x := &tongueIndex{lex: newLexicon([]string{lit}), lits: []tongueLit{{concepts: 1, start: start, end: end}}}
		if got := len(x.hits(Normalize(c.text))) > 0; got != c.want {
			t.Errorf("entry %q in %q: %v, want %v", c.entry, c.text, got, c.want)
		}
	}
}
