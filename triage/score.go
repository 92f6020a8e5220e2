package triage

import (
	"bufio"
	_ "embed"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// The wording table (round 9, docs/TRIAGE.md#the-wording-table-round-9): a
// weight for each word and each pair of adjacent words, learnt from the
// dev corpus (TestWordingTable trains it and checks that wording.tsv is
// what training gives). A clause's score is the table's bias plus the
// weights of the words and word pairs it holds, each counted once; a
// clause that a changed item's new definition holds and its old one does
// not, scoring at least the table's threshold, is new-instruction when
// no rule gave the item a high label. The weights are integers
// (thousandths), so that a score is the same on every machine.
//
//go:embed wording.tsv
var wordingTSV string

// A wordingTable is wording.tsv read.
type wordingTable struct {
	bias, threshold int
	weights         map[string]int
}

var wording = sync.OnceValue(func() wordingTable {
	t, err := parseWording(wordingTSV)
	if err != nil {
		panic("triage: wording.tsv: " + err.Error())
	}
	return t
})

// parseWording reads the table: "# bias N" and "# threshold N" lines,
// other "#" lines (comments), and one "FEATURE<TAB>WEIGHT" line per word
// or word pair.
func parseWording(s string) (wordingTable, error) {
	t := wordingTable{weights: map[string]int{}}
	headers := map[string]*int{"bias": &t.bias, "threshold": &t.threshold}
	seen := map[string]bool{}
	sc := bufio.NewScanner(strings.NewReader(s))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if name, v, ok := strings.Cut(strings.TrimPrefix(line, "# "), " "); ok && strings.HasPrefix(line, "# ") && headers[name] != nil {
			x, err := strconv.Atoi(v)
			if err != nil {
				return t, fmt.Errorf("line %d: %s %q: %v", n, name, v, err)
			}
			*headers[name], seen[name] = x, true
			continue
		}
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f, w, ok := strings.Cut(line, "\t")
		if !ok {
			return t, fmt.Errorf("line %d: want FEATURE<TAB>WEIGHT", n)
		}
		v, err := strconv.Atoi(w)
		if err != nil {
			return t, fmt.Errorf("line %d: weight %q: %v", n, w, err)
		}
		if _, dup := t.weights[f]; dup {
			return t, fmt.Errorf("line %d: %q twice", n, f)
		}
		t.weights[f] = v
	}
	if len(seen) < len(headers) {
		return t, fmt.Errorf("no bias or threshold line")
	}
	return t, sc.Err()
}

// wordingFeatures is what the table weighs in one clause: its words, and
// each two adjacent words joined by a space, each once, sorted.
func wordingFeatures(clause string) []string {
	ws := words(clause)
	out := make([]string, 0, 2*len(ws))
	for i, w := range ws {
		out = append(out, w.word)
		if i > 0 {
			out = append(out, ws[i-1].word+" "+w.word)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// score is the clause's score.
func (t wordingTable) score(clause string) int {
	z := t.bias
	for _, f := range wordingFeatures(clause) {
		z += t.weights[f]
	}
	return z
}

// top is the features that weigh most toward the clause's score (at
// most three, heaviest first, ties by feature).
func (t wordingTable) top(clause string) []string {
	var pos []string
	for _, f := range wordingFeatures(clause) {
		if t.weights[f] > 0 {
			pos = append(pos, f)
		}
	}
	slices.SortStableFunc(pos, func(a, b string) int { return t.weights[b] - t.weights[a] })
	return pos[:min(3, len(pos))]
}

// scoredPiece reports whether the table reads a piece at path: prose
// (descriptions and titles at any depth, the instructions), enum values
// and defaults; not property names (a property named "default_branch",
// or "default", is a name, not a default).
func scoredPiece(path string) bool {
	if prose(path) == 1 || path == "instructions" {
		return true
	}
	segs := strings.FieldsFunc(path, func(r rune) bool { return r == '.' || r == '[' })
	for i, s := range segs {
		if (s == "enum" || s == "default") && (i == 0 || segs[i-1] != "properties") {
			return true
		}
	}
	return false
}

// pieceClauses is every clause of t's scored pieces, each once, with the
// path of the first piece that holds it, in t's order.
func pieceClauses(t texts) (clauses []string, paths []string) {
	seen := map[string]bool{}
	for _, p := range t.pieces {
		if !scoredPiece(p.path) {
			continue
		}
		for _, c := range clausesOf(p.norm) {
			if !seen[c] {
				seen[c] = true
				clauses, paths = append(clauses, c), append(paths, p.path)
			}
		}
	}
	return clauses, paths
}

// clausesOf is s's clauses, trimmed, without empty ones.
func clausesOf(s string) []string {
	var out []string
	for _, c := range clauses(s) {
		if x := strings.TrimSpace(s[c[0]:c[1]]); x != "" {
			out = append(out, x)
		}
	}
	return out
}

// newClauses is the clauses of nt that ot does not hold.
func newClauses(nt, ot texts) (clauses []string, paths []string) {
	old, _ := pieceClauses(ot)
	had := map[string]bool{}
	for _, c := range old {
		had[c] = true
	}
	cs, ps := pieceClauses(nt)
	for i, c := range cs {
		if !had[c] {
			clauses, paths = append(clauses, c), append(paths, ps[i])
		}
	}
	return clauses, paths
}

// maxFeatureShown is the longest feature the evidence quotes whole.
const maxFeatureShown = 32

// wordingLabel is new-instruction for the highest-scoring new clause of
// a changed item (old and new definitions known) that scores at least
// the threshold; its evidence is the clause, its score and the features
// that weigh most.
func wordingLabel(nt, ot texts) (Label, bool) {
	if !nt.known || !ot.known {
		return Label{}, false
	}
	t := wording()
	cs, ps := newClauses(nt, ot)
	best, at := 0, -1
	for i, c := range cs {
		if z := t.score(c); z >= t.threshold && (at < 0 || z > best) {
			best, at = z, i
		}
	}
	if at < 0 {
		return Label{}, false
	}
	var why []string
	for _, f := range t.top(cs[at]) {
		w := t.weights[f]
		if len(f) > maxFeatureShown { // words are ASCII: any cut is whole letters
			f = f[:maxFeatureShown] + "…"
		}
		why = append(why, fmt.Sprintf("%q %+.2f", f, float64(w)/1000))
	}
	ev := evidence(ps[at], cs[at]) + fmt.Sprintf(" (wording scored %.2f, threshold %.2f: %s)",
		float64(best)/1000, float64(t.threshold)/1000, strings.Join(why, ", "))
	return Label{ID: NewInstruction, Severity: High, Evidence: ev}, true
}
