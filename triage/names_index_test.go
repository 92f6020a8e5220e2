package triage

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// sortedNames is names in the order nameLabels sorts them.
func sortedNames(ns []Name) []Name {
	ns = slices.Clone(ns)
	slices.SortFunc(ns, func(a, b Name) int {
		return strings.Compare(a.Server+"\x00"+a.Kind+"\x00"+a.Name, b.Server+"\x00"+b.Kind+"\x00"+b.Name)
	})
	return ns
}

// checkIndex: NewSurface's index finds exactly the names the plain
// comparison with every name (a Surface without index) finds, for
// look-alikes and for typos.
func checkIndex(t *testing.T, names []Name, kind, name string) {
	t.Helper()
	plain := Surface{Server: "s", Names: names}.lookAlikes(kind, name)
	indexed := NewSurface("s", names).lookAlikes(kind, name)
	if p, i := sortedNames(plain), sortedNames(indexed); !slices.Equal(p, i) {
		t.Fatalf("%q (%s): the index finds %v, comparing with every name finds %v", name, kind, i, p)
	}
	plain = Surface{Server: "s", Names: names}.typoOf(kind, name)
	indexed = NewSurface("s", names).typoOf(kind, name)
	if p, i := sortedNames(plain), sortedNames(indexed); !slices.Equal(p, i) {
		t.Fatalf("%q (%s): the typo index finds %v, comparing with every name finds %v", name, kind, i, p)
	}
}

// TestNameIndex: on every name of the corpus's latest releases, and on
// look-alikes made of them, the index agrees with the plain comparison.
func TestNameIndex(t *testing.T) {
	c := loadCorpus(t)
	names := c.context("", t)
	names = append(names,
		Name{Server: "x", Kind: KindTool, Name: "reаd_file"}, // Cyrillic а
		Name{Server: "x", Kind: KindTool, Name: "Read-File"},
		Name{Server: "x", Kind: KindTool, Name: "read.file"},
		Name{Server: "x", Kind: KindPrompt, Name: "read_file"},
		Name{Server: "x", Kind: KindTool, Name: "brave_web_seach"},
		Name{Server: "x", Kind: KindTool, Name: "read_fille"})
	if len(names) < 100 {
		t.Fatalf("only %d names in the corpus context", len(names))
	}
	for _, n := range names {
		checkIndex(t, names, n.Kind, n.Name)
	}
	if len(NewSurface("s", names).lookAlikes(KindTool, "read_fiIe")) == 0 {
		t.Fatal("the index finds no look-alike of read_fiIe")
	}
}

// FuzzNameIndex: for any set of names, the index agrees with the plain
// comparison.
func FuzzNameIndex(f *testing.F) {
	f.Add("read_file\nreаd_file\nRead-File\nwrite_file", "read_fiIe")
	f.Add("echo\nEcho\nECHO", "echo")
	f.Add("brave_web_search\nweb_search\nwebSearch", "brave_web_seach")
	f.Add("send_email\nsend_emails\nsend-mail", "send_emal")
	f.Fuzz(func(t *testing.T, list, name string) {
		var names []Name
		for i, n := range strings.Split(list, "\n") {
			names = append(names, Name{Server: fmt.Sprint(i % 3), Kind: []string{KindTool, KindPrompt}[i%2], Name: n})
		}
		checkIndex(t, names, KindTool, name)
		checkIndex(t, names, KindPrompt, name)
	})
}

// BenchmarkFirstLockNames: the lookalike-name work of a first lock of
// 10,000 tools (scripts/bench.sh's target 4): one lookup per item with
// the index.
func BenchmarkFirstLockNames(b *testing.B) {
	names := make([]Name, 10_000)
	for i := range names {
		names[i] = Name{Server: "large", Kind: KindTool, Name: fmt.Sprintf("tool_%04d", i)}
	}
	for b.Loop() {
		s := NewSurface("large", names)
		for _, n := range names {
			nameLabels(&Item{Kind: KindTool, Name: n.Name}, s)
		}
	}
}

// BenchmarkFirstLockTypoFamily: the typo work of a first lock of a
// hostile 10,000-tool surface built so that every name's masked key
// holds half the others ("tool_x0000" to "tool_x4999" beside
// "tool_xy0000" to "tool_xy4999"): the worst case of the index, 25
// million word comparisons.
func BenchmarkFirstLockTypoFamily(b *testing.B) {
	names := make([]Name, 10_000)
	for i := range names {
		f := "tool_x%04d"
		if i%2 == 1 {
			f = "tool_xy%04d"
		}
		names[i] = Name{Server: "large", Kind: KindTool, Name: fmt.Sprintf(f, i/2)}
	}
	for b.Loop() {
		s := NewSurface("large", names)
		for _, n := range names {
			nameLabels(&Item{Kind: KindTool, Name: n.Name}, s)
		}
	}
}
