package triage

import "testing"

// TestFrames runs every frame on its example, which it must find, and on
// its near miss, which no frame of its label may find.
func TestFrames(t *testing.T) {
	lx, fs := compiledFrames()
	for _, f := range fs {
		hit := func(s string, id string) bool {
			for _, c := range clauses(Normalize(s)) {
				cl := lx.read(Normalize(s)[c[0]:c[1]])
				for _, g := range fs {
					if (id == "" && g.class == f.class || id != "" && g.id == id) && g.fires(cl) {
						return true
					}
				}
			}
			return false
		}
		if !hit(f.match, "") {
			t.Errorf("%s %q: does not find its example %q", f.id, f.class, f.match)
		}
		if hit(f.miss, f.id) {
			t.Errorf("%s %q: a %s frame finds the near miss %q", f.id, f.class, f.id, f.miss)
		}
	}
}
