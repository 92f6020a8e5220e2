package triage

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"golang.org/x/text/unicode/norm"
)

// FuzzNameTokens: nameTokens finds what nameToken finds.
func FuzzNameTokens(f *testing.F) {
	re := nameToken()
	f.Add("use send_email, not browser-navigate. ./a:b/ -x- é_1")
	f.Add("--.:/ a.b. c:/d-")
	f.Fuzz(func(t *testing.T, s string) {
		var want [][2]int
		for _, loc := range re.FindAllStringIndex(s, -1) {
			want = append(want, [2]int{loc[0], loc[1]})
		}
		if got := nameTokens(s); !slices.Equal(got, want) {
			t.Fatalf("%q: nameTokens finds %v, the expression %v", s, got, want)
		}
	})
}

// FuzzFoldNFKC: foldNFKC is NFKC then case folding.
func FuzzFoldNFKC(f *testing.F) {
	f.Add("Read ~/.SSH/id_rsa, K and \u212a")
	f.Add("ﬁle Ⅻ ǅ")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := foldNFKC(s), fold.String(norm.NFKC.String(s)); got != want {
			t.Fatalf("%q: foldNFKC gives %q, NFKC and folding %q", s, got, want)
		}
	})
}

// FuzzToolWhere: toolWhere over the surface's tools().servers says what a
// map built name by name from the surface's tools says.
func FuzzToolWhere(f *testing.F) {
	f.Add("send_email\nSend_Email\nsearch\nread-file", "send_email")
	f.Fuzz(func(t *testing.T, list, token string) {
		var names []Name
		for i, n := range strings.Split(list, "\n") {
			names = append(names, Name{Server: []string{"s", "o"}[i%2], Kind: []string{KindTool, KindTool, KindPrompt}[i%3], Name: n})
		}
		s := NewSurface("s", names)
		want := map[string]int{}
		for _, n := range names {
			nn := Normalize(n.Name)
			if n.Kind != KindTool || nn == "" {
				continue
			}
			if n.Server == s.Server {
				want[nn] |= 1
			} else {
				want[nn] |= 2
			}
		}
		for _, name := range append(slices.Collect(maps.Keys(want)), Normalize(token)) {
			if got := toolWhere(s.tools().servers, s.Server, name); got != want[name] {
				t.Fatalf("%q: toolWhere says %d, the name-by-name map %d", name, got, want[name])
			}
		}
	})
}
