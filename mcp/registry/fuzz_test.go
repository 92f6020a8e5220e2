package registry

import "testing"

// The range parser takes any spec text from a config: it must not panic,
// and what it accepts must behave as a range: a version satisfies
// "R || R" exactly when it satisfies R.
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
		rr, ok := parseRange(rng + " || " + rng)
		if !ok {
			t.Fatalf("%q parses, %q does not", rng, rng+" || "+rng)
		}
		if got, want := rr.satisfies(v), r.satisfies(v); got != want {
			t.Fatalf("%q satisfies %q: %v, but %q: %v", version, rng+" || "+rng, got, rng, want)
		}
	})
}
