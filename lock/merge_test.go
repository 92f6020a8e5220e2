package lock

import (
	"bytes"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"
)

func mergeFixture() (tool func(name, d string) Tool, srv func(tools ...Tool) Server, lf func(at string, s map[string]Server) *Lockfile) {
	tool = func(name, d string) Tool {
		return Tool{Name: name, NameHash: sha(name), DescriptionHash: sha(d), InputSchemaHash: sha("{}")}
	}
	srv = func(tools ...Tool) Server { return Server{SurfaceHash: SurfaceHash(tools), Tools: tools} }
	lf = func(at string, s map[string]Server) *Lockfile {
		return &Lockfile{LockfileVersion: Version1, GeneratedBy: "agentgate@" + at, GeneratedAt: at, Servers: s}
	}
	return
}

// TestMergeStampIsTheLaterInstant: "later generatedAt" is the later
// instant, for every form the reader accepts (generatedAtCases): offsets,
// lowercase t and z, fractions of any length, a leap second. Comparing the
// strings picked the wrong side for each pair below.
func TestMergeStampIsTheLaterInstant(t *testing.T) {
	_, _, lf := mergeFixture()
	for _, tc := range []struct{ earlier, later string }{
		{"2026-08-03T13:00:00+02:00", "2026-08-03T12:00:00.000Z"},    // 11:00 UTC
		{"2026-08-03t12:00:00z", "2026-08-03T13:00:00.000Z"},         // 't' sorts after 'T'
		{"2026-08-03T12:00:00Z", "2026-08-03T12:00:00.1Z"},           // '.' sorts before 'Z'
		{"2026-08-03T12:00:00.9+00:00", "2026-08-03T11:00:01-01:00"}, // 12:00:01 UTC
		{"2016-12-31T23:59:59.999Z", "2016-12-31T23:59:60Z"},
		{"2016-12-31T23:59:60.5Z", "2017-01-01T00:00:00.000Z"},
	} {
		for _, at := range []string{tc.earlier, tc.later} {
			if !validTime(at) {
				t.Fatalf("%s is not a valid generatedAt", at)
			}
		}
		for _, sides := range [][2]string{{tc.earlier, tc.later}, {tc.later, tc.earlier}} {
			m := Merge(nil, lf(sides[0], nil), lf(sides[1], nil))
			if m.Lockfile.GeneratedAt != tc.later {
				t.Errorf("Merge(ours %s, theirs %s): stamp %s, want the later %s", sides[0], sides[1], m.Lockfile.GeneratedAt, tc.later)
			}
		}
	}
}

// TestMerge walks the per-server rules of Merge's doc comment.
func TestMerge(t *testing.T) {
	tool, srv, lf := mergeFixture()
	a0, a1, a2 := srv(tool("t", "0")), srv(tool("t", "1")), srv(tool("t", "2"))
	base := lf("2026-01-01T00:00:00.000Z", map[string]Server{
		"same": a0, "ours-only": a0, "theirs-only": a0, "both-same": a0, "both-diff": a0,
		"ours-removed": a0, "theirs-removed": a0, "removed-vs-changed": a0,
	})
	ours := lf("2026-01-03T00:00:00.000Z", map[string]Server{
		"same": a0, "ours-only": a1, "theirs-only": a0, "both-same": a1, "both-diff": a1,
		"theirs-removed": a0, "removed-vs-changed": a1, "added-ours": a1, "added-both-same": a2, "added-both-diff": a1,
	})
	theirs := lf("2026-01-02T00:00:00.000Z", map[string]Server{
		"same": a0, "ours-only": a0, "theirs-only": a2, "both-same": a1, "both-diff": a2,
		"ours-removed": a0, "added-both-same": a2, "added-both-diff": a2,
	})
	m := Merge(base, ours, theirs)
	want := map[string]Server{
		"same": a0, "ours-only": a1, "theirs-only": a2, "both-same": a1, "added-ours": a1, "added-both-same": a2,
	}
	if len(m.Lockfile.Servers) != len(want) {
		t.Errorf("merged %d servers, want %d: %v", len(m.Lockfile.Servers), len(want), slices.Sorted(maps.Keys(m.Lockfile.Servers)))
	}
	for name, s := range want {
		if got, ok := m.Lockfile.Servers[name]; !ok || got.SurfaceHash != s.SurfaceHash {
			t.Errorf("server %s: got %v, want %v", name, got, s)
		}
	}
	var conflicts []string
	for _, c := range m.Conflicts {
		conflicts = append(conflicts, c.Name)
	}
	if w := []string{"added-both-diff", "both-diff", "removed-vs-changed"}; !slices.Equal(conflicts, w) {
		t.Errorf("conflicts %v, want %v", conflicts, w)
	}
	if rc := m.Conflicts[2]; rc.Ours == nil || rc.Theirs != nil {
		t.Errorf("removed-vs-changed: ours %v theirs %v, want ours changed, theirs removed", rc.Ours, rc.Theirs)
	}
	if m.Lockfile.GeneratedAt != ours.GeneratedAt || m.Lockfile.GeneratedBy != ours.GeneratedBy {
		t.Errorf("stamp %s %s, want ours (the later)", m.Lockfile.GeneratedBy, m.Lockfile.GeneratedAt)
	}
	if m2 := Merge(base, theirs, ours); m2.Lockfile.GeneratedAt != ours.GeneratedAt {
		t.Errorf("swapped sides: stamp %s, want the later %s", m2.Lockfile.GeneratedAt, ours.GeneratedAt)
	}
}

// TestFormatMergedClean: without conflicts the output is Format's, and it
// parses back to the merged lockfile.
func TestFormatMergedClean(t *testing.T) {
	tool, srv, lf := mergeFixture()
	base := lf("2026-01-01T00:00:00.000Z", map[string]Server{"a": srv(tool("x", "0")), "b": srv(tool("y", "0"))})
	ours := lf("2026-01-02T00:00:00.000Z", map[string]Server{"a": srv(tool("x", "1")), "b": srv(tool("y", "0"))})
	theirs := lf("2026-01-03T00:00:00.000Z", map[string]Server{"a": srv(tool("x", "0")), "b": srv(tool("y", "1"))})
	m := Merge(base, ours, theirs)
	got := FormatMerged(m, "ours", "theirs", 7)
	if !bytes.Equal(got, Format(m.Lockfile)) {
		t.Fatal("FormatMerged differs from Format without conflicts")
	}
	back, err := Parse(got)
	if err != nil {
		t.Fatalf("merged lockfile does not parse: %v\n%s", err, got)
	}
	if back.Servers["a"].SurfaceHash != ours.Servers["a"].SurfaceHash || back.Servers["b"].SurfaceHash != theirs.Servers["b"].SurfaceHash ||
		back.GeneratedAt != theirs.GeneratedAt {
		t.Errorf("merged:\n%s", got)
	}
}

// TestFormatMergedConflict: markers surround the conflicted server only;
// taking either side by hand (and fixing the comma) gives each side's
// entry as Format writes it.
func TestFormatMergedConflict(t *testing.T) {
	tool, srv, lf := mergeFixture()
	base := lf("2026-01-01T00:00:00.000Z", map[string]Server{"a": srv(tool("x", "0")), "b": srv(tool("y", "0")), "c": srv(tool("z", "0"))})
	ours := lf("2026-01-02T00:00:00.000Z", map[string]Server{"a": srv(tool("x", "1")), "b": srv(tool("y", "1")), "c": srv(tool("z", "0"))})
	theirs := lf("2026-01-03T00:00:00.000Z", map[string]Server{"a": srv(tool("x", "0")), "b": srv(tool("y", "2")), "c": srv(tool("z", "2"))})
	m := Merge(base, ours, theirs)
	got := string(FormatMerged(m, "ours", "theirs", 7))
	if strings.Count(got, "<<<<<<< ours\n") != 1 || strings.Count(got, "\n=======\n") != 1 || strings.Count(got, "\n>>>>>>> theirs\n") != 1 {
		t.Fatalf("want one conflict region:\n%s", got)
	}
	region := got[strings.Index(got, "<<<<<<<"):strings.Index(got, ">>>>>>>")]
	if strings.Contains(region, `"a"`) || strings.Contains(region, `"c"`) || strings.Count(region, `"b"`) != 2 {
		t.Errorf("conflict region holds more than server b:\n%s", region)
	}
	// take ours by hand: the file is then what Format writes for a, ours' b, theirs' c
	takeOurs := got[:strings.Index(got, "<<<<<<<")] + got[strings.Index(got, "<<<<<<< ours\n")+len("<<<<<<< ours\n"):strings.Index(got, "=======\n")] +
		got[strings.Index(got, ">>>>>>> theirs\n")+len(">>>>>>> theirs\n"):]
	want := Format(lf(theirs.GeneratedAt, map[string]Server{"a": ours.Servers["a"], "b": ours.Servers["b"], "c": theirs.Servers["c"]}))
	want = bytes.Replace(want, []byte("agentgate@"+theirs.GeneratedAt), []byte(theirs.GeneratedBy), 1)
	if takeOurs != string(want) {
		t.Errorf("taking ours by hand:\n%s\nwant:\n%s", takeOurs, want)
	}
}

// FuzzMerge builds base, ours and theirs from the fuzzer's bytes (each byte
// picks, for one of four server names, absent or one of three surfaces) and
// checks Merge's rules server by server, that the merged file parses back
// to the merged servers, and that conflict markers appear once per
// conflict with nothing else between them.
func FuzzMerge(f *testing.F) {
	f.Add([]byte{0x00, 0x12, 0x21, 0x33}, []byte{0x01, 0x12, 0x20, 0x30}, []byte{0x02, 0x12, 0x23, 0x03})
	f.Add([]byte{}, []byte{0x01}, []byte{0x02})
	tool, srv, lf := mergeFixture()
	surfaces := []Server{srv(tool("t", "0")), srv(tool("t", "1")), srv(tool("t", "1"), tool("u", "2"))}
	build := func(b []byte, at string) *Lockfile {
		s := map[string]Server{}
		for _, c := range b {
			name := string(rune('a' + c>>4&3))
			if v := int(c & 3); v < 3 {
				s[name] = surfaces[v]
			} else {
				delete(s, name)
			}
		}
		return lf(at, s)
	}
	f.Fuzz(func(t *testing.T, bb, ob, tb []byte) {
		base, ours, theirs := build(bb, "2026-01-01T00:00:00.000Z"), build(ob, "2026-01-02T00:00:00.000Z"), build(tb, "2026-01-03T00:00:00.000Z")
		m := Merge(base, ours, theirs)
		conflicted := map[string]bool{}
		for _, c := range m.Conflicts {
			conflicted[c.Name] = true
		}
		for _, name := range []string{"a", "b", "c", "d"} {
			bs, inB := base.Servers[name]
			os, inO := ours.Servers[name]
			ts, inT := theirs.Servers[name]
			ms, inM := m.Lockfile.Servers[name]
			oChanged, tChanged := !sameServer(bs, inB, os, inO), !sameServer(bs, inB, ts, inT)
			switch {
			case oChanged && tChanged && !sameServer(os, inO, ts, inT):
				if !conflicted[name] || inM {
					t.Errorf("%s: changed differently on both sides, not a conflict", name)
				}
			case tChanged:
				if conflicted[name] || !sameServer(ms, inM, ts, inT) {
					t.Errorf("%s: did not take theirs", name)
				}
			default:
				if conflicted[name] || !sameServer(ms, inM, os, inO) {
					t.Errorf("%s: did not take ours", name)
				}
			}
		}
		out := FormatMerged(m, "ours", "theirs", 7)
		if len(m.Conflicts) == 0 {
			back, err := Parse(out)
			if err != nil {
				t.Fatalf("merged file does not parse: %v\n%s", err, out)
			}
			if !Compare(back, m.Lockfile).Empty() || back.GeneratedAt != "2026-01-03T00:00:00.000Z" {
				t.Fatalf("merged file differs from the merge:\n%s", out)
			}
			return
		}
		if n := bytes.Count(out, []byte("\n<<<<<<< ours\n")); n != len(m.Conflicts) {
			t.Fatalf("%d conflict regions for %d conflicts:\n%s", n, len(m.Conflicts), out)
		}
	})
}

// TestMergeV2: version 2 lockfiles merge as whole servers, every v2 pin
// kept, and the clean result is what New(Version2, ...) and Format write
// for the merged servers (so what 'agentgate lock' writes); a change only
// in a v2 pin (the instructions) counts as a change.
func TestMergeV2(t *testing.T) {
	demo := v2Server(t, true)
	other := demo
	in := "Be careful."
	other.InstructionsHash, other.Instructions = InstructionsHash(&in), &in
	at := func(h int) Stamp { return Stamp{By: "agentgate@test", At: time.Date(2026, 8, 3, h, 0, 0, 0, time.UTC)} }
	base := New(Version2, map[string]Server{"a": demo, "b": demo}, at(12), nil)
	ours := New(Version2, map[string]Server{"a": other, "b": demo}, at(13), nil)
	theirs := New(Version2, map[string]Server{"a": demo, "b": other}, at(14), nil)
	for _, l := range []*Lockfile{base, ours, theirs} {
		if _, err := Parse(Format(l)); err != nil {
			t.Fatalf("fixture does not parse: %v", err)
		}
	}
	m := Merge(base, ours, theirs)
	if len(m.Conflicts) != 0 {
		t.Fatalf("conflicts: %v", m.Conflicts)
	}
	got := FormatMerged(m, "ours", "theirs", 7)
	want := Format(New(Version2, map[string]Server{"a": other, "b": other}, at(14), nil))
	if !bytes.Equal(got, want) {
		t.Fatalf("merged:\n%s\nwant:\n%s", got, want)
	}
	// both change a's instructions differently: a conflict around a, v2 layout outside
	in2 := "Be very careful."
	third := demo
	third.InstructionsHash, third.Instructions = InstructionsHash(&in2), &in2
	m = Merge(base, ours, New(Version2, map[string]Server{"a": third, "b": demo}, at(14), nil))
	if len(m.Conflicts) != 1 || m.Conflicts[0].Name != "a" {
		t.Fatalf("conflicts %v, want a", m.Conflicts)
	}
	out := string(FormatMerged(m, "ours", "theirs", 7))
	if !strings.HasPrefix(out, "{\n  \"lockfileVersion\": 2,") || strings.Count(out, `"instructions": "Be very careful."`) != 1 ||
		strings.Count(out, `"instructions": "Be careful."`) != 1 || !strings.Contains(out, "\"definition\": {") {
		t.Errorf("conflicted v2 file:\n%s", out)
	}
}
