package triage

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/lock"
)

// BenchmarkFirstLock labels every item of every dev package's latest
// release in the corpus as added (what the first lock of a repository with
// those eleven servers labels; the held-out packages are left out, so that
// the figure stays comparable); BenchmarkHashLatest hashes the same tools
// as lock does (DecodeServer), for the ratio docs/PERFORMANCE.md quotes:
//
//	go test ./triage -run XXX -bench . -benchmem -count 3
func BenchmarkFirstLock(b *testing.B) {
	c := loadCorpus(b).dev()
	for b.Loop() {
		c.firstLock(b)
	}
}

func BenchmarkHashLatest(b *testing.B) {
	c := loadCorpus(b).dev()
	var raws [][]json.RawMessage
	for _, pkg := range c.order {
		rs := c.releases[pkg]
		raws = append(raws, rs[len(rs)-1].Tools)
	}
	for b.Loop() {
		for _, r := range raws {
			if _, _, err := lock.DecodeServer(lock.Version1, r); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkChangeLarge labels one changed tool whose description is
// 100 KB of real wording (firecrawl's longest description, repeated).
func BenchmarkChangeLarge(b *testing.B) {
	c := loadCorpus(b).dev()
	rs := c.releases["firecrawl-mcp"]
	items := c.itemsOf(b, rs[len(rs)-1])
	var longest string
	for _, def := range items {
		var v map[string]any
		json.Unmarshal(def, &v)
		if d, _ := v["description"].(string); len(d) > len(longest) {
			longest = d
		}
	}
	big := strings.Repeat(longest+"\n", 100_000/len(longest)+1)
	o, _ := json.Marshal(map[string]any{"name": "t", "description": longest})
	n, _ := json.Marshal(map[string]any{"name": "t", "description": big})
	s := Surface{Server: "firecrawl-mcp", Names: c.context("", b)}
	b.SetBytes(int64(len(big)))
	for b.Loop() {
		Change(&Item{Kind: KindTool, Name: "t", Def: o}, &Item{Kind: KindTool, Name: "t", Def: n}, s)
	}
}

// BenchmarkWordingParse reads wording.tsv, what the first changed item an
// agentgate run labels pays once; BenchmarkBenignChanges labels every
// dev benign change of the corpus (the rules and the wording table), for
// the cost of the table per change:
//
//	go test ./triage -run XXX -bench 'WordingParse|BenignChanges' -benchmem -count 3
func BenchmarkWordingParse(b *testing.B) {
	for b.Loop() {
		if _, err := parseWording(wordingTSV); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBenignChanges(b *testing.B) {
	c := loadCorpus(b).dev()
	for b.Loop() {
		c.benign(b)
	}
}
