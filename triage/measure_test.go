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
// (round 7), heldout10.json dev13.json (round 8), heldout11.json
// dev14.json and heldout12.json dev15.json (round 8b; they measured
// 171/204 on landing after round 8), heldout13.json dev16.json and
// heldout14.json dev17.json (round 8c; 183/206 on landing after round
// 8b), heldout15.json dev18.json and heldout16.json dev19.json (round
// 8d; 171/203 on landing after round 8c, their authors having seen the
// subjects of the five latest commits before reading their brief).
// heldout17.json dev20.json and heldout18.json dev21.json (round 9;
// 172/203 on landing after round 8d), heldout19.json dev22.json and
// heldout20.json dev23.json (round 9b; 187/201 on landing after round 9,
// the first with the wording table), heldout21.json dev24.json and
// heldout22.json dev25.json (round 10; 190/209 on landing after round
// 9b), heldout23.json dev26.json and heldout24.json dev27.json (round
// 10b; 189/202 on landing after round 10), heldout25.json dev28.json and
// heldout26.json dev29.json (round 10c; 182/200 on landing after round
// 10b), heldout27.json dev30.json and heldout28.json dev31.json (round
// 11; 184/201 on landing after round 10c), heldout29.json dev32.json
// and heldout30.json dev33.json (round 11b; 187/204 on landing after
// round 11, their authors having seen the subjects of the five latest
// commits), heldout31.json dev34.json and heldout32.json dev35.json
// (round 12; 189/203 on landing after round 11b), heldout33.json
// dev36.json and heldout34.json dev37.json (round 12b; 194/206 on
// landing after round 12), heldout35.json dev38.json and heldout36.json
// dev39.json (round 12c; 191/204 on landing after round 12b),
// heldout37.json dev40.json and heldout38.json dev41.json (round 12d;
// 190/203 on landing after round 12c), heldout39.json dev42.json and
// heldout40.json dev43.json (round 12e; 187/203 on landing after round
// 12d), heldout41.json dev44.json and heldout42.json dev45.json (round
// 13; 192/206, heldout42 on landing after round 12e, heldout41 when it
// landed at the start of round 13 with no rule changed in between),
// heldout43.json dev46.json and heldout44.json dev47.json (round 14;
// 198/209 on landing after round 13), heldout45.json dev48.json and
// heldout46.json dev49.json (round 15; 189/200 on landing after round
// 14), heldout47.json dev50.json and heldout48.json dev51.json (round
// 16; 174/201 on landing after round 15, the red-teamer's partly in
// Italian, Dutch and other languages), heldout49.json dev52.json and
// heldout50.json dev53.json (round 17; written blind in round 17, round
// 16's pair having been lost with its machine before it landed; 179/204
// on landing after round 16, the red-teamer's a third in 18 languages),
// heldout51.json dev55.json and heldout53.json dev56.json (round 18;
// 186/211 on landing after round 17; heldout52.json, written then too, is dev54.json from landing
// on: its author read the git log first), heldout54.json dev57.json and
// heldout55.json dev58.json (round 19; 186/205 on landing with round 19's tongue
// rules, 177/205 with round 18's rules and the tongue engine with only
// its German lexicon, counted before the other lexicons were written).
// With no held-out file the test reports so rather than passing on zero;
// a held-out file with minHeldOut 0 (unset) fails, naming the figure to
// set.
const (
	minRecall     = 0.95
	maxBenignHigh = 0.05
	minHeldOut    = 0.0
)

// The releases of releases-heldout.tsv are held out too: recorded by
// someone who does not read the rules, measured once when they land,
// never tuned against. Where a figure of theirs was above the target
// then, the constant below is that first measurement, so that the test
// fails if the rules get worse on them; 0 is unset (the target holds).
// The 14 packages recorded after round 6 were tuned against in round 8
// and moved to releases.tsv (docs/TRIAGE.md, "Overfitting, measured").
// The 13 recorded during round 8 measured 35/403 changes and 35/255
// first-lock items after round 8b, the 10 recorded during round 8c
// 23/335 and 53/357 after round 8c, the 11 recorded during round 9
// 23/344 and 39/402 after round 9b, the 12 recorded during round 10
// 19/504 and 20/467 after round 10, the 11 recorded during round 10b
// 21/565 and 12/440 after round 10c, the 12 recorded during round 11
// 13/200 (6.5%) and 19/273 (7.0%) after round 11b, most of them
// react-native-ai-debugger's and godot-mcp's, the 12 recorded during
// round 12 7/202 (3.5%) and 6/247 (2.4%) after round 12c, the 12
// recorded during round 13 5/229 (2.2%) and 10/343 (2.9%) after round
// 13, the 12 recorded during round 14 42/303 (13.9%) and 34/200 (17.0%)
// after round 14, most of them @anthropic-ai/claude-code's and
// playwright's (CLIs whose MCP servers list an agent's own tools), the
// 8 recorded during round 15 17/330 (5.2%) and 24/429 (5.6%) after
// round 15, most of them @playwright/test's; each set was then tuned
// against (in rounds 8c, 8e, 10, 10b, 11, 12, 13, 14, 15 and 16) and
// moved to releases.tsv. Held out now: the 12 recorded during round 8e
// (first measured after round 8e: 6 of 267 changes, 12 of 357
// first-lock items; 6 and 10 after round 15): under the target, which
// the constants are measured against, so they are unset.
//
// First-lock items are not what the target is stated for (benign
// changes are). The dev packages' first lock was held to its round-8e
// figure (71 of 1017 items) while it was above the target; after round
// 12c it is 103 of 2599 (4.0%) in the dev repository and beside the
// held-out servers, under the target, so those constants are unset too.
// Most of what remains is @softeria/ms-365-mcp-server's Microsoft Graph
// schemas ("For internal use only." deep in response-like properties),
// which a rule must still read (an ask hidden in a nested description is
// the attack the corpus has most).
const (
	maxHeldOutBenign             = 0.0
	maxHeldOutFirstLock          = 0.0
	maxDevBesideHeldOut          = 0.0
	maxDevFirstLockBesideHeldOut = 0.0
	maxDevFirstLock              = 0.0
)

// TestCorpus measures the labeller on the corpus and fails below the
// targets. Run it with -v for the table docs/TRIAGE.md quotes:
//
//	go test ./triage -run TestCorpus -v
func TestCorpus(t *testing.T) {
	whole := loadCorpus(t)
	dev := whole.dev()
	benign := dev.benign(t)
	inDev := countBenign(t, dev, "dev repository", benign, dev.firstLock(t))
	inWhole := countBenign(t, whole, "whole repository", whole.benign(t), whole.firstLock(t))
	rows := benignRows(whole, inDev, inWhole)
	attacks := loadAttacks(t, dev)

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

	var w strings.Builder
	fmt.Fprintf(&w, "the dev repository has the %d dev servers; the whole repository has them and the %d held-out servers\n",
		len(dev.order), len(whole.order)-len(dev.order))
	for _, r := range rows {
		fmt.Fprintf(&w, "%s: high label on %s\n", r.what, pct(r.got.hit, r.got.n))
	}
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
	w.WriteString(packageTable(whole, inDev, inWhole))
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
	checkBenign(t, rows)
	bn := rows[0].got.n + rows[2].got.n
	if bn < 100 || all.n < 100 {
		t.Errorf("the corpus has %d benign changes and %d attacks; docs/TRIAGE.md promises 100 of each", bn, all.n)
	}
}

type tally struct{ hit, n int }

func (x tally) rate() float64 { return float64(x.hit) / float64(x.n) }

func pct(a, b int) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%% (%d/%d)", 100*float64(a)/float64(b), a, b)
}

// benignTally is one package's benign changes and first-lock items, each
// with how many got a high label.
type benignTally struct{ changes, first tally }

func (x *benignTally) add(y *benignTally) {
	x.changes.hit += y.changes.hit
	x.changes.n += y.changes.n
	x.first.hit += y.first.hit
	x.first.n += y.first.n
}

// countBenign counts the benign changes and first-lock items of one
// repository (c) by package, and logs each one with a high label.
func countBenign(t *testing.T, c *corpus, repo string, benign, first []benignChange) map[string]*benignTally {
	byPkg := map[string]*benignTally{}
	for _, pkg := range c.order {
		byPkg[pkg] = &benignTally{}
	}
	for _, b := range benign {
		x := &byPkg[b.pkg].changes
		x.n++
		if hasHigh(b.labels) {
			x.hit++
			t.Logf("benign change with a high label (%s, %s): %s -> %s %s %q:%s", c.part(b.pkg), repo, b.from, b.to, b.kind, b.name, fmtLabels(b.labels))
		}
	}
	for _, b := range first {
		x := &byPkg[b.pkg].first
		x.n++
		if hasHigh(b.labels) {
			x.hit++
			t.Logf("first-lock item with a high label (%s, %s): %s %s %q:%s", c.part(b.pkg), repo, b.to, b.kind, b.name, fmtLabels(b.labels))
		}
	}
	return byPkg
}

// benignRow is one benign figure and the most of it that may get a high
// label: the target, or a first measurement above it (ratchet names the
// constant that holds that).
type benignRow struct {
	what    string
	got     tally
	ceiling float64
	ratchet string
}

// benignRows are the benign figures: the dev packages in the dev
// repository (what the rules were shaped by, held to the target), the
// held-out packages in the whole repository, and the dev packages in the
// whole repository, where the held-out servers' names are context the
// rules were not shaped by either (both held to the target or to their
// first measurement). Rows 0 and 2 are the benign changes of each half.
func benignRows(whole *corpus, inDev, inWhole map[string]*benignTally) []benignRow {
	var devDev, heldWhole, devWhole benignTally
	for _, pkg := range whole.order {
		if whole.heldOut[pkg] {
			heldWhole.add(inWhole[pkg])
		} else {
			devDev.add(inDev[pkg])
			devWhole.add(inWhole[pkg])
		}
	}
	return []benignRow{
		{"benign changes of the dev packages, dev repository", devDev.changes, maxBenignHigh, ""},
		{"first-lock items of the dev packages, dev repository", devDev.first, max(maxBenignHigh, maxDevFirstLock), "maxDevFirstLock"},
		{"benign changes of the held-out packages, whole repository", heldWhole.changes, max(maxBenignHigh, maxHeldOutBenign), "maxHeldOutBenign"},
		{"first-lock items of the held-out packages, whole repository", heldWhole.first, max(maxBenignHigh, maxHeldOutFirstLock), "maxHeldOutFirstLock"},
		{"benign changes of the dev packages, whole repository", devWhole.changes, max(maxBenignHigh, maxDevBesideHeldOut), "maxDevBesideHeldOut"},
		{"first-lock items of the dev packages, whole repository", devWhole.first, max(maxBenignHigh, maxDevFirstLockBesideHeldOut), "maxDevFirstLockBesideHeldOut"},
	}
}

// packageTable is the Markdown table of every package's figures, in the
// dev repository (dev packages only) and in the whole repository.
func packageTable(whole *corpus, inDev, inWhole map[string]*benignTally) string {
	var w strings.Builder
	w.WriteString("\n| package | part | releases | benign changes, high label: dev repository | whole repository | first-lock items, high label: dev repository | whole repository |\n|---|---|---|---|---|---|---|\n")
	for _, pkg := range whole.order {
		d, a := "-", "-"
		if x := inDev[pkg]; x != nil {
			d, a = pct(x.changes.hit, x.changes.n), pct(x.first.hit, x.first.n)
		}
		x := inWhole[pkg]
		fmt.Fprintf(&w, "| %s | %s | %d | %s | %s | %s | %s |\n", pkg, whole.part(pkg), len(whole.releases[pkg]),
			d, pct(x.changes.hit, x.changes.n), a, pct(x.first.hit, x.first.n))
	}
	return w.String()
}

// checkBenign fails where a benign figure is above its ceiling, naming
// the ratchet to set where a first measurement is above the target.
func checkBenign(t *testing.T, rows []benignRow) {
	if rows[2].got.n == 0 {
		t.Log("NO HELD-OUT RELEASES: no package in releases-heldout.tsv has two releases in the corpus, so high labels on wording the rules were not shaped by are not measured")
	}
	for _, r := range rows {
		switch {
		case r.got.n == 0 || r.got.rate() <= r.ceiling+1e-9:
		case r.ceiling == maxBenignHigh && r.ratchet != "":
			t.Errorf("high labels on %s of the %s, above the target %.2f; if this is their first measurement, set %s = %d.0 / %d",
				pct(r.got.hit, r.got.n), r.what, maxBenignHigh, r.ratchet, r.got.hit, r.got.n)
		default:
			t.Errorf("high labels on %s of the %s, above %.3f", pct(r.got.hit, r.got.n), r.what, r.ceiling)
		}
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
