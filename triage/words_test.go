package triage

import (
	"slices"
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
