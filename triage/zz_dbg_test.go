package triage

import (
	"os"
	"testing"
)

func TestDbgHits(t *testing.T) {
	s := Normalize(os.Getenv("DBG"))
	ix := compiledTongues()
	for _, h := range ix.hits(s) {
		var cs []string
		for b, c := range tongueConcepts {
			if h.concepts&(1<<b) != 0 {
				cs = append(cs, c)
			}
		}
		lang := "addr"
		if h.lang >= 0 {
			lang = ix.tongues[h.lang].lang
		}
		t.Logf("hit %q %s %v", s[h.from:h.to], lang, cs)
	}
}
