package render

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/internal/testing/testenv"
	"github.com/agentgate/agentgate/lock"
)

func TestPackageLines(t *testing.T) {
	npm := func(name, v, integ string) *lock.Package {
		return &lock.Package{Ecosystem: "npm", Name: name, Version: v, Integrity: integ}
	}
	file := func(integ string) *lock.Package {
		return &lock.Package{Ecosystem: "file", Name: "tools/server.js", Integrity: integ}
	}
	for _, c := range []struct {
		old, new *lock.Package
		want     []string
	}{
		{npm("@s/p", "1.4.2", "sha512-A"), npm("@s/p", "1.5.0", "sha512-B"),
			[]string{"package: 1.4.2 -> 1.5.0", "integrity: sha512-A -> sha512-B"}},
		{npm("@s/p", "1.4.2", "sha512-A"), npm("@s/p", "1.4.2", "sha512-B"),
			[]string{"package: @s/p@1.4.2, same version, different integrity", "integrity: sha512-A -> sha512-B"}},
		{npm("a", "1.0.0", "sha512-A"), npm("b", "2.0.0", "sha512-B"),
			[]string{"package: npm a@1.0.0 -> npm b@2.0.0", "integrity: sha512-A -> sha512-B"}},
		{file("sha256-A"), file("sha256-B"),
			[]string{"package: tools/server.js, file changed", "integrity: sha256-A -> sha256-B"}},
		{npm("a", "1.0.0", "sha512-A"), nil, []string{"package: npm a@1.0.0 -> (none)"}},
		// A hostile name is escaped.
		{npm("a\u202eb", "1", "sha512-A"), npm("c", "1", "sha512-A"),
			[]string{"package: npm a<U+202E RIGHT-TO-LEFT OVERRIDE>b@1 -> npm c@1"}},
	} {
		got := PackageLines(lock.ComparePackages(c.old, c.new))
		if !slices.Equal(got, c.want) {
			t.Errorf("%+v -> %+v:\n got %q\nwant %q", c.old, c.new, got, c.want)
		}
	}
	if PackageLines(lock.ComparePackages(nil, npm("a", "1", "sha512-A"))) != nil {
		t.Errorf("a package locked for the first time is a change")
	}
	if PackageLines(lock.ComparePackages(npm("a", "1", "x"), &lock.Package{Ecosystem: "npm", Name: "a", Version: "1", Integrity: "x", Registry: "http://127.0.0.1:1/"})) != nil {
		t.Errorf("a registry change alone is a change")
	}
}

// TestReviewPackage: a server whose tools are identical but whose package
// changed is one package-changed finding (SARIF, GitLab, Markdown, text
// and title), located at the server's "package" member in the lockfile.
func TestReviewPackage(t *testing.T) {
	lockData := []byte(`{
  "lockfileVersion": 2,
  "servers": {
    "memory": {
      "surfaceHash": "00",
      "package": {
        "ecosystem": "npm"
      },
      "tools": []
    }
  }
}
`)
	d := lock.Diff{Servers: []lock.ServerDiff{{Name: "memory", Change: lock.Changed, Package: lock.ComparePackages(
		&lock.Package{Ecosystem: "npm", Name: "@modelcontextprotocol/server-memory", Version: "1.4.2", Integrity: "sha512-A"},
		&lock.Package{Ecosystem: "npm", Name: "@modelcontextprotocol/server-memory", Version: "1.5.0", Integrity: "sha512-B"})}}}
	r := &Review{Command: "ci", Version: "v1.0.0", Lockfile: "agentgate.lock", LockData: lockData, Against: "HEAD", Result: "drift",
		Servers: []ServerStatus{{Name: "memory", Status: "drift", File: ".mcp.json", Line: 3, Tools: 9}}, Diff: d}
	fs := r.Findings()
	if len(fs) != 1 || fs[0].Rule != "package-changed" || fs[0].LockLine != 6 || fs[0].Entry != "package" ||
		fs[0].Message != "server \"memory\": package: 1.4.2 -> 1.5.0\nintegrity: sha512-A -> sha512-B" {
		t.Fatalf("findings %+v", fs)
	}
	sarif := SARIF(r)
	if err := testenv.ValidateSARIF(sarif); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Runs []struct {
			Results []struct {
				RuleID string `json:"ruleId"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(sarif, &log); err != nil || len(log.Runs[0].Results) != 1 || log.Runs[0].Results[0].RuleID != "package-changed" {
		t.Errorf("SARIF results %+v (%v)", log, err)
	}
	gl := GitLabCodeQuality(r)
	if err := testenv.ValidateGitLab(gl); err != nil || !strings.Contains(string(gl), `"check_name": "package-changed"`) {
		t.Errorf("GitLab: %v\n%s", err, gl)
	}
	md := Markdown(r)
	for _, s := range []string{"package changed", "package: 1.4.2 -> 1.5.0", "integrity: sha512-A -> sha512-B"} {
		if !strings.Contains(md, s) {
			t.Errorf("Markdown lacks %q:\n%s", s, md)
		}
	}
	sum := Summary(d, nil, nil, false)
	if want := "~ server \"memory\": package changed\n  ~ package: 1.4.2 -> 1.5.0\n      integrity: sha512-A -> sha512-B\n"; sum != want {
		t.Errorf("Summary:\n%s\nwant\n%s", sum, want)
	}
	if got := r.Title(); got != "agentgate: MCP tool surface changed: memory (~package 1.4.2 -> 1.5.0)" {
		t.Errorf("title %q", got)
	}
}
