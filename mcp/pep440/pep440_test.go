package pep440

import "testing"

// Each pair is an example from PEP 440's "Normalization" section (or a
// rule it states, applied to a hand-written version): the left spelling
// is equal to, and normalises to, the right one.
func TestNormalisation(t *testing.T) {
	for _, c := range []struct{ in, norm string }{
		{"1.1RC1", "1.1rc1"},                 // case sensitivity
		{"00", "0"},                          // integer normalisation
		{"09000", "9000"},                    //
		{"1.0+foo0100", "1.0+foo0100"},       // alphanumeric local segment kept
		{"1.0+0100", "1.0+100"},              // numeric local segment
		{"1.1.a1", "1.1a1"},                  // pre-release separators
		{"1.1-a1", "1.1a1"},                  //
		{"1.0a.1", "1.0a1"},                  //
		{"1.1alpha1", "1.1a1"},               // pre-release spelling
		{"1.1beta2", "1.1b2"},                //
		{"1.1c3", "1.1rc3"},                  //
		{"1.1pre3", "1.1rc3"},                //
		{"1.1preview3", "1.1rc3"},            //
		{"1.2a", "1.2a0"},                    // implicit pre-release number
		{"1.2-post2", "1.2.post2"},           // post-release separators
		{"1.2post2", "1.2.post2"},            //
		{"1.2.post-2", "1.2.post2"},          //
		{"1.2.post", "1.2.post0"},            // implicit post-release number
		{"1.0-1", "1.0.post1"},               // implicit post release
		{"1.0-r4", "1.0.post4"},              // post-release spelling
		{"1.0rev4", "1.0.post4"},             //
		{"1.2-dev2", "1.2.dev2"},             // development release separators
		{"1.2dev", "1.2.dev0"},               // implicit development release number
		{"1.0+ubuntu-1", "1.0+ubuntu.1"},     // local version segments
		{"1.0+ubuntu_1", "1.0+ubuntu.1"},     //
		{"v1.0", "1.0"},                      // preceding v character
		{"V1.0", "1.0"},                      //
		{" 1.0\n", "1.0"},                    // leading and trailing whitespace
		{"1!2.0", "1!2.0"},                   // epoch kept
		{"0!1.0", "1.0"},                     // epoch 0 is the default
		{"1.0.0", "1.0.0"},                   // release components as written
		{"1.0.POST1.DEV2", "1.0.post1.dev2"}, //
	} {
		v, ok := Parse(c.in)
		if !ok {
			t.Errorf("Parse(%q) failed", c.in)
			continue
		}
		if got := v.String(); got != c.norm {
			t.Errorf("Parse(%q).String() = %q, want %q", c.in, got, c.norm)
		}
		if eq, ok := Equal(c.in, c.norm); !ok || !eq {
			t.Errorf("%q != %q", c.in, c.norm)
		}
	}
	for _, bad := range []string{"", "french toast", "1..0", "1.0.", ".1", "1.0+", "1.0+foo!", "1.0a1a2", "1.0-", "1,0", "2!", "1.0 1"} {
		if _, ok := Parse(bad); ok {
			t.Errorf("Parse(%q) accepted text PEP 440 rejects", bad)
		}
	}
}

// Valid, as its doc states: every spelling Parse accepts, but no
// surrounding white space, prefix match or specifier set.
func TestValid(t *testing.T) {
	for _, c := range []struct {
		in string
		ok bool
	}{
		{"1.0", true}, {"V1.0", true}, {"1.0-1", true}, {"1.0.RC1", true},
		{" 1.0", false}, {"1.0 ", false}, {"1.0\n", false}, {"1.0.*", false}, {">=1.0", false}, {"", false},
	} {
		if got := Valid(c.in); got != c.ok {
			t.Errorf("Valid(%q) = %v, want %v", c.in, got, c.ok)
		}
	}
}

// PEP 440: "trailing zeros in the release segment" compare as absent
// ("1.0 == 1.0.0"), and versions that differ only there share a Key.
func TestEquality(t *testing.T) {
	for _, c := range []struct {
		a, b string
		eq   bool
	}{
		{"1.0", "1.0.0", true},
		{"1", "1.0.0.0", true},
		{"1.0", "1.0.1", false},
		{"1.0", "1.0.post0", false},
		{"1.0", "1.0+local", false},
		{"1.0rc1", "1.0c1", true},
		{"2.0", "1!2.0", false},
	} {
		eq, ok := Equal(c.a, c.b)
		if !ok || eq != c.eq {
			t.Errorf("Equal(%q, %q) = %v, %v; want %v", c.a, c.b, eq, ok, c.eq)
		}
		x, _ := Parse(c.a)
		y, _ := Parse(c.b)
		if (x.Key() == y.Key()) != c.eq {
			t.Errorf("Key(%q) = %q, Key(%q) = %q", c.a, x.Key(), c.b, y.Key())
		}
	}
}

// PEP 440's ordering example (the "Summary of permitted suffixes and
// relative ordering" list), in increasing order, plus local versions
// (ordered after their public version, numbers after strings).
func TestOrder(t *testing.T) {
	order := []string{
		"1.0.dev456", "1.0a1", "1.0a2.dev456", "1.0a12.dev456", "1.0a12", "1.0b1.dev456", "1.0b2", "1.0b2.post345.dev456",
		"1.0b2.post345", "1.0rc1.dev456", "1.0rc1", "1.0", "1.0+abc.5", "1.0+abc.7", "1.0+5", "1.0.post456.dev34", "1.0.post456",
		"1.0.15", "1.1.dev1", "1!0.1",
	}
	for i := 0; i+1 < len(order); i++ {
		a, ok1 := Parse(order[i])
		b, ok2 := Parse(order[i+1])
		if !ok1 || !ok2 || Compare(a, b) >= 0 || Compare(b, a) <= 0 {
			t.Errorf("%s < %s does not hold", order[i], order[i+1])
		}
	}
	// Pre-release and development flags, as Prerelease reports them.
	for s, pre := range map[string]bool{"1.0": false, "1.0a1": true, "1.0.dev1": true, "1.0.post1": false, "1.0.post1.dev1": true, "1.0+x": false} {
		v, _ := Parse(s)
		if v.Prerelease() != pre {
			t.Errorf("Parse(%q).Prerelease() = %v", s, !pre)
		}
	}
}

// PEP 440's "Version specifiers" examples and rules.
func TestMatch(t *testing.T) {
	for _, c := range []struct {
		spec, version string
		want          bool
	}{
		// Version matching: "==1.1" ... "1.1.0" matches; a post-release does not.
		{"==1.1", "1.1.0", true},
		{"==1.1", "1.1.post1", false},
		{"==1.1.post1", "1.1.post1", true},
		{"==1.1.*", "1.1.post1", true}, // prefix match
		{"==1.1.*", "1.10", false},
		{"==1.*", "1.1a1", true},
		{"!=1.1.*", "1.2", true},
		{"!=1.1.*", "1.1.3", false},
		{"==1.0.*", "1.0.5", true}, // the prefix as written: trailing zeros count
		{"==1.0.*", "1.1", false},
		// A candidate's local label is ignored when the clause has none.
		{"==1.0", "1.0+local.7", true},
		{"==1.0+local.7", "1.0+local.7", true},
		{"==1.0+local.7", "1.0", false},
		// Compatible release: ~=2.2 is >=2.2, ==2.*; ~=1.4.5 is >=1.4.5, ==1.4.*.
		{"~=2.2", "2.9", true},
		{"~=2.2", "3.0", false},
		{"~=2.2", "2.1", false},
		{"~=1.4.5", "1.4.9", true},
		{"~=1.4.5", "1.5.0", false},
		{"~=2.0", "2.5", true},
		{"~=2.0", "3.0", false},
		{"~=1.0.0", "1.1", false},
		{"~=2.2.post3", "2.3", true},
		{"~=1.4.5a4", "1.4.5", true},
		// Exclusive ordered comparison: >1.7 allows 1.7.1 but not 1.7.0.post1;
		// >1.7.post2 allows 1.7.0.post3; <3.1 excludes 3.1.dev0.
		{">1.7", "1.7.1", true},
		{">1.7", "1.7.0.post1", false},
		{">1.7.post2", "1.7.0.post3", true},
		{">1.7.post2", "1.7.1", true},
		{"<3.1", "3.1.dev0", false},
		{"<3.1", "3.0", true},
		{"<3.1rc1", "3.1a1", true},
		{">1.7", "1.7+local", false},
		// Inclusive ordered comparison, and sets.
		{">=1.0,<2", "1.5", true},
		{">=1.0,<2", "2.0", false},
		{"<=2.0", "2.0.0", true},
		{">= 1.0 , != 1.3.4.*, < 2.0", "1.3.4.1", false},
		// Arbitrary equality compares text (case-insensitively).
		{"===foobar", "foobar", true},
		{"===1.0", "1.0.0", false},
	} {
		specs, ok := ParseSpecifiers(c.spec)
		if !ok {
			t.Errorf("ParseSpecifiers(%q) failed", c.spec)
			continue
		}
		v, ok := Parse(c.version)
		if !ok && c.spec[:3] != "===" {
			t.Errorf("Parse(%q) failed", c.version)
			continue
		}
		if got := specs.Match(v, c.version); got != c.want {
			t.Errorf("%q matches %q = %v, want %v", c.spec, c.version, got, c.want)
		}
	}
	for _, bad := range []string{"~=1", ">=1.*", "==1.0a1.*", ">=1.0+local", "=>1.0", "1.0", "==", ">=1,", "~=1.0.*"} {
		if _, ok := ParseSpecifiers(bad); ok {
			t.Errorf("ParseSpecifiers(%q) accepted a specifier PEP 440 rejects", bad)
		}
	}
}

// PEP 440 versions from an index are untrusted: parsing must not panic,
// comparison must be a total order on what parses and agree with Key, and
// String must parse back to an equal version.
func FuzzPEP440(f *testing.F) {
	for _, s := range []string{"1.0", "1.0.post1.dev2", "1!2.0rc1+local.7", "v1.0-1", "0.0.0a0", "1.0+ubuntu-01"} {
		f.Add(s, "1.0")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		x, ok1 := Parse(a)
		y, ok2 := Parse(b)
		if !ok1 || !ok2 {
			return
		}
		if Compare(x, x) != 0 || Compare(x, y) != -Compare(y, x) {
			t.Fatalf("%q vs %q: not an order", a, b)
		}
		if (Compare(x, y) == 0) != (x.Key() == y.Key()) {
			t.Fatalf("%q vs %q: Key disagrees with Compare", a, b)
		}
		if z, ok := Parse(x.String()); !ok || Compare(x, z) != 0 {
			t.Fatalf("%q: String %q does not parse back", a, x.String())
		}
		if specs, ok := ParseSpecifiers(">=" + b); ok {
			_ = specs.Match(x, a)
		}
	})
}
