package render

import (
	"strings"
	"testing"

	"github.com/agentgate/agentgate/lock"
)

// TestReviewHints: every route a hint takes into a report keeps it: the
// run's problems (Review.Errors) in SARIF's notifications and in Markdown,
// an unverified server's hints in its finding (SARIF and GitLab read
// Findings; Markdown's table shows the message's first line), and a failure's hints in ci's JSON report, [] for none.
func TestReviewHints(t *testing.T) {
	r := &Review{Command: "ci", Lockfile: "agentgate.lock", Result: "unverified",
		Errors:  []Problem{{Message: "the run stopped", Hints: []string{"do x"}}},
		Servers: []ServerStatus{{Name: "s", Status: "unverified", File: ".mcp.json", Error: &Problem{Message: "timeout", Hints: []string{"do y"}}}}}
	if got := string(SARIF(r)); !strings.Contains(got, `the run stopped\nhint: do x`) {
		t.Errorf("SARIF loses the run's hint:\n%s", got)
	}
	if got := Markdown(r); !strings.Contains(got, "the run stopped\nhint: do x") {
		t.Errorf("Markdown loses a hint:\n%s", got)
	}
	fs := r.Findings()
	if len(fs) != 1 || fs[0].Rule != "server-unverified" || !strings.HasSuffix(fs[0].Message, "timeout\nhint: do y") {
		t.Errorf("findings %+v, want the unverified server with its hint", fs)
	}
	if p := (Problem{Hints: []string{"only a hint"}}); p.Text() != "hint: only a hint" {
		t.Errorf("Text of a problem without message: %q", p.Text())
	}

	live := &lock.Lockfile{Servers: map[string]lock.Server{}}
	servers := CIServers(CIRun{Configured: []CIPlace{{Name: "a"}, {Name: "b"}}, Live: live,
		Failures: map[string]Problem{"a": {Message: "m", Hints: []string{"fix a"}}, "b": {Message: "m"}}})
	if len(servers) != 2 || strings.Join(servers[0].Error.Hints, "|") != "fix a" || servers[1].Error.Hints == nil {
		t.Fatalf("ci servers %+v, want a's hint and [] for b", servers)
	}
	if got := string(JSON(servers[1])); !strings.Contains(got, `"hints": []`) {
		t.Errorf("a failure without hints is not \"hints\": []:\n%s", got)
	}
}
