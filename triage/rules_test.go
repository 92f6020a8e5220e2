package triage

import (
	"testing"
)

// TestRules: every row of the table finds its example and not its near
// miss (both read through Normalize, as the labeller reads text).
func TestRules(t *testing.T) {
	for _, r := range compiledRules() {
		t.Run(r.id+"/"+r.class, func(t *testing.T) {
			if r.match == "" || r.miss == "" {
				t.Fatal("every row needs an example and a near miss")
			}
			if !r.re.MatchString(Normalize(r.match)) {
				t.Errorf("does not match its example %q", r.match)
			}
			if r.re.MatchString(Normalize(r.miss)) {
				t.Errorf("matches its near miss %q", r.miss)
			}
		})
	}
}

// TestRequired: the words a rule needs are found in every example it
// matches (else the prefilter would hide a match), and most rows have
// some.
func TestRequired(t *testing.T) {
	without := 0
	for _, r := range compiledRules() {
		if r.need == nil {
			without++
			continue
		}
		if !r.mayMatch(Normalize(r.match)) {
			t.Errorf("%s/%s: needs one of %q, which its example lacks", r.id, r.class, r.need)
		}
	}
	if without > len(rules)/4 {
		t.Errorf("%d of %d rows have no needed words", without, len(rules))
	}
}
