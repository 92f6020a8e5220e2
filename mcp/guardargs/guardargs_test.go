package guardargs

import (
	"reflect"
	"testing"
)

// TestGuardArgsArgv: Argv writes a command line that parses back to the
// same GuardArgs.
func TestGuardArgsArgv(t *testing.T) {
	for _, g := range []GuardArgs{
		{Guard: Guard{Server: "s"}, Command: []string{"x"}},
		{Guard: Guard{Server: "-s", Lockfile: "a b.lock", OnDrift: "warn", AllowUnlocked: true, AllowUnpinnedPackage: true, IgnoreMembers: []string{"_meta", "icons"}, MaxListingBytes: 7, MaxTools: 3},
			Command: []string{"--", "-x", ""}},
		{Guard: Guard{Server: "r"}, URL: "http://h/", Headers: []string{"A: 1", "B:2"}, Transport: "sse"},
	} {
		back, err := ParseGuardArgs(g.Argv())
		if err != nil || !reflect.DeepEqual(back, g) {
			t.Errorf("%q: parsed back as %+v, %v", g.Argv(), back, err)
		}
	}
}

// TestUnlikeEveryOption: Guard.Unlike lists guard's options one by one,
// with the reason each matters. Every field of Guard that agentgate wrap
// does not write (all but Server, Lockfile and OnDrift) makes it differ
// when set, so an option added to guard is refused in a wrapper until
// Unlike says why, not passed by omission.
func TestUnlikeEveryOption(t *testing.T) {
	if flag, why := (Guard{Server: "s"}).Unlike("s", ""); flag != "" {
		t.Errorf("what wrap writes: Unlike = %q, %q", flag, why)
	}
	typ := reflect.TypeFor[Guard]()
	for i := range typ.NumField() {
		name := typ.Field(i).Name
		if name == "Server" || name == "Lockfile" || name == "OnDrift" {
			continue
		}
		g := Guard{Server: "s"}
		f := reflect.ValueOf(&g).Elem().Field(i)
		switch f.Kind() {
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Int, reflect.Int64:
			f.SetInt(1)
		case reflect.Slice:
			f.Set(reflect.ValueOf([]string{"x"}))
		default:
			t.Fatalf("Guard.%s: a %s, which this test does not set", name, f.Kind())
		}
		if flag, why := g.Unlike("s", ""); flag == "" || why == "" {
			t.Errorf("Guard.%s set: Unlike = %q, %q; want the option and why it matters", name, flag, why)
		}
	}
}
