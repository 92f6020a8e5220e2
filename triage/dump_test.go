package triage

import (
	"slices"
	"testing"
)

func TestDumpBenign(t *testing.T) {
	c := loadCorpus(t)
	n, high := 0, 0
	for _, b := range append(c.benign(t), c.firstLock(t)...) {
		n++
		if hasHigh(b.labels) {
			high++
		}
		if Highest(b.labels) >= High {
			t.Logf("%s -> %s %s %s:%s", b.from, b.to, b.kind, b.name, fmtLabels(b.labels))
		}
	}
	t.Logf("%d items, %d high", n, high)
}

func TestDumpAttacks(t *testing.T) {
	c := loadCorpus(t)
	miss := 0
	for _, a := range loadAttacks(t, c) {
		got := gotIDs(a.labels, Medium)
		ok := true
		for _, e := range a.Expect {
			ok = ok && slices.Contains(got, e)
		}
		if !hasHigh(a.labels) || !ok {
			miss++
			t.Logf("%s (%s) expect %v:%s", a.ID, a.Class, a.Expect, fmtLabels(a.labels))
		}
	}
	t.Logf("%d imperfect", miss)
}
