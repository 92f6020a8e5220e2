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

// PEP 440 versions from an index are untrusted: parsing must not panic and
// comparison must be a total order on what parses.
func FuzzPEP440(f *testing.F) {
	for _, s := range []string{"1.0", "1.0.post1.dev2", "1!2.0rc1+local.7", "v1.0-1", "0.0.0a0"} {
		f.Add(s, "1.0")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		x, ok1 := parsePEP440(a)
		y, ok2 := parsePEP440(b)
		if !ok1 || !ok2 {
			return
		}
		if comparePEP440(x, x) != 0 || comparePEP440(x, y) != -comparePEP440(y, x) {
			t.Fatalf("%q vs %q: not an order", a, b)
		}
		if specs, ok := parsePySpecifiers(">=" + b); ok {
			_ = matchesPy(specs, x, a)
		}
	})
}

// A registry's WWW-Authenticate header is untrusted input.
func FuzzParseChallenge(f *testing.F) {
	f.Add(`Bearer realm="https://a/token",service="s",scope="repository:a:pull"`)
	f.Add(`Basic realm=x, charset="UTF-8"`)
	f.Fuzz(func(t *testing.T, h string) {
		parseChallenge(h)
	})
}
