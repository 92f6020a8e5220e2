package triage

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
)

// The targets docs/TRIAGE.md states: at least 95% of attacks get a high
// label on the attacked item, at most 5% of benign changes get one.
//
// The attack files named heldout*.json are held out: written by someone
// who does not read the rules, measured once when they land, never tuned
// against. minHeldOut is what they measured then, so that the test fails
// if the rules get worse on them. Earlier held-out files were tuned
// against in the round that followed and are dev files now
// (docs/TRIAGE.md, "Overfitting, measured"): heldout4.json is dev5.json,
// heldout5.json dev7.json, heldout6.json dev9.json, heldout7.json
// dev10.json, heldout8.json dev11.json and heldout9.json dev12.json
// (round 7). heldout10.json, written blind by a sixth author during
// round 7, measured 80/104 when it landed after that round: minHeldOut.
// With no held-out file the test reports so rather than passing on zero;
// a held-out file with minHeldOut 0 (unset) fails, naming the figure to
// set.
const (
	minRecall     = 0.95
	maxBenignHigh = 0.05
	minHeldOut    = 80.0 / 104
)

// TestCorpus measures the labeller on the corpus and fails below the
// targets. Run it with -v for the table docs/TRIAGE.md quotes:
//
//	go test ./triage -run TestCorpus -v
func TestCorpus(t *testing.T) {
	c := loadCorpus(t)
	benign := c.benign(t)
	first := c.firstLock(t)
	attacks := loadAttacks(t, c)

	rate := func(xs []benignChange) (int, int) {
		n := 0
		for _, b := range xs {
			if hasHigh(b.labels) {
				n++
				t.Logf("benign with a high label: %s -> %s %s %q:%s", b.from, b.to, b.kind, b.name, fmtLabels(b.labels))
			}
		}
		return n, len(xs)
	}
	bh, bn := rate(benign)
	fh, fn := rate(first)

	type tally struct{ hit, n int }
	recall := map[string]*tally{"dev": {}, "held-out": {}}
	perLabel := map[string]*[3]int{} // expected and found, expected and missed, found but not expected (medium or high)
	for _, id := range IDs {
		perLabel[id] = &[3]int{}
	}
	classes := map[string]*tally{}
	files := map[string]*tally{}
	var medOnly tally
	for _, a := range attacks {
		part := "dev"
		if strings.HasPrefix(a.file, "heldout") {
			part = "held-out"
		}
		wantHigh := false
		for _, id := range a.Expect {
			wantHigh = wantHigh || DefaultSeverity[id] == High
		}
		got := gotIDs(a.labels, Low)
		for _, id := range a.Expect {
			if slices.Contains(got, id) {
				perLabel[id][0]++
			} else {
				perLabel[id][1]++
			}
		}
		for _, id := range gotIDs(a.labels, Medium) {
			if !slices.Contains(a.Expect, id) {
				perLabel[id][2]++
			}
		}
		if !wantHigh {
			medOnly.n++
			if allOf(a.Expect, got) {
				medOnly.hit++
			}
			continue
		}
		if classes[a.Class] == nil {
			classes[a.Class] = &tally{}
		}
		if files[a.file] == nil {
			files[a.file] = &tally{}
		}
		files[a.file].n++
		recall[part].n++
		classes[a.Class].n++
		if hasHigh(a.labels) {
			recall[part].hit++
			classes[a.Class].hit++
			files[a.file].hit++
		} else {
			t.Logf("attack without a high label: %s (%s, %s):%s", a.ID, a.file, a.Class, fmtLabels(a.labels))
		}
		if !allOf(a.Expect, got) {
			t.Logf("attack missing expected labels %v: %s:%s", a.Expect, a.ID, fmtLabels(a.labels))
		}
	}
	for _, b := range benign {
		for _, id := range gotIDs(b.labels, High) {
			perLabel[id][2]++
		}
	}

	pct := func(a, b int) string {
		if b == 0 {
			return "-"
		}
		return fmt.Sprintf("%.1f%% (%d/%d)", 100*float64(a)/float64(b), a, b)
	}
	var w strings.Builder
	fmt.Fprintf(&w, "benign changes between consecutive releases: %d packages, %d changes, high label on %s\n", len(c.order), bn, pct(bh, bn))
	fmt.Fprintf(&w, "first lock of the latest releases (every item added): %d items, high label on %s\n", fn, pct(fh, fn))
	all := tally{recall["dev"].hit + recall["held-out"].hit, recall["dev"].n + recall["held-out"].n}
	fmt.Fprintf(&w, "attacks with a high label on the attacked item: all %s, dev %s, held-out %s\n",
		pct(all.hit, all.n), pct(recall["dev"].hit, recall["dev"].n), pct(recall["held-out"].hit, recall["held-out"].n))
	fmt.Fprintf(&w, "annotation-only attacks (medium by design) with their expected labels: %s\n", pct(medOnly.hit, medOnly.n))
	fmt.Fprintf(&w, "\n| attack file | high label |\n|---|---|\n")
	for _, k := range slices.Sorted(maps.Keys(files)) {
		fmt.Fprintf(&w, "| %s | %s |\n", k, pct(files[k].hit, files[k].n))
	}
	fmt.Fprintf(&w, "\n| attack class | high label |\n|---|---|\n")
	for _, k := range slices.Sorted(maps.Keys(classes)) {
		fmt.Fprintf(&w, "| %s | %s |\n", k, pct(classes[k].hit, classes[k].n))
	}
	fmt.Fprintf(&w, "\n| label | expected and found | expected, missed | found, not expected |\n|---|---|---|---|\n")
	for _, id := range IDs {
		p := perLabel[id]
		fmt.Fprintf(&w, "| `%s` | %d | %d | %d |\n", id, p[0], p[1], p[2])
	}
	t.Log("\n" + w.String())

	if d := recall["dev"]; d.n == 0 {
		t.Error("no dev attacks (attacks/dev*.json)")
	} else if r := float64(d.hit) / float64(d.n); r < minRecall {
		t.Errorf("recall of high labels on the dev attacks %.3f, below the target %.2f", r, minRecall)
	}
	switch h := recall["held-out"]; {
	case h.n == 0:
		t.Log("NO HELD-OUT ATTACKS: no attacks/heldout*.json in the corpus, so recall on phrasing the rules were not shaped by is not measured; the dev figure above is not that")
	case minHeldOut == 0:
		t.Errorf("held-out attacks measured %s, but minHeldOut is unset: set it to %d.0 / %d (their first measurement)", pct(h.hit, h.n), h.hit, h.n)
	case float64(h.hit)/float64(h.n) < minHeldOut-1e-9:
		t.Errorf("recall of high labels on the held-out attacks %s, below the %.3f measured when they were written", pct(h.hit, h.n), minHeldOut)
	}
	if r := float64(bh) / float64(bn); r > maxBenignHigh {
		t.Errorf("high labels on %.3f of benign changes, above the target %.2f", r, maxBenignHigh)
	}
	if r := float64(fh) / float64(fn); r > maxBenignHigh {
		t.Errorf("high labels on %.3f of first-lock items, above the target %.2f", r, maxBenignHigh)
	}
	if bn < 100 || all.n < 100 {
		t.Errorf("the corpus has %d benign changes and %d attacks; docs/TRIAGE.md promises 100 of each", bn, all.n)
	}
}

func allOf(want, got []string) bool {
	for _, id := range want {
		if !slices.Contains(got, id) {
			return false
		}
	}
	return true
}
