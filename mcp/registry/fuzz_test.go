package registry

import "testing"

// The range parser takes any spec text from a config: it must not panic,
// and what it accepts must behave as a range (a version either satisfies
// it or not, the same way twice).
func FuzzParseRange(f *testing.F) {
	for _, s := range []string{"^1.2.3", "~1", "1.2.3 - 2", ">=1 <2 || 3.x", "latest", "", "*", "1.2.3-rc.1 - 1.2.3", ">x"} {
		f.Add(s, "1.2.3")
	}
	f.Fuzz(func(t *testing.T, rng, version string) {
		r, ok := parseRange(rng)
		v, vok := parseSemver(version)
		if !ok || !vok {
			return
		}
		if r.satisfies(v) != r.satisfies(v) {
			t.Fatal("not deterministic")
		}
	})
}
