package render

import (
	"encoding/json"
	"testing"
)

// TestSARIFUnverifiedIsNotASecurityAlert: a server that could not be
// verified (a missing CI secret, a timeout) is a warning without a
// security-severity or "security" tag, so GitHub code scanning does not
// file it as a security alert; every surface finding keeps both.
func TestSARIFUnverifiedIsNotASecurityAlert(t *testing.T) {
	r := &Review{Command: "ci", Version: "v1.0.0", Lockfile: "agentgate.lock", Result: "unverified",
		Servers: []ServerStatus{{Name: "github", Status: "unverified", File: ".mcp.json", Line: 2, Error: &Problem{Message: "missing variable GITHUB_TOKEN"}}}}
	var log struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Rules []struct {
						ID                   string
						DefaultConfiguration struct{ Level string }
						Properties           map[string]any
					}
				}
			}
			Results []struct{ RuleID, Level string }
		}
	}
	if err := json.Unmarshal(SARIF(r), &log); err != nil {
		t.Fatal(err)
	}
	run := log.Runs[0]
	if len(run.Results) != 1 || run.Results[0].RuleID != "server-unverified" || run.Results[0].Level != "warning" {
		t.Fatalf("results %+v, want one server-unverified warning", run.Results)
	}
	for _, rule := range run.Tool.Driver.Rules {
		_, sev := rule.Properties["security-severity"]
		tags, _ := rule.Properties["tags"].([]any)
		security := len(tags) > 0 && tags[0] == "security"
		if rule.ID == "server-unverified" {
			if sev || security || rule.DefaultConfiguration.Level != "warning" {
				t.Errorf("server-unverified: level %q, properties %v: want a warning, no security-severity, no security tag", rule.DefaultConfiguration.Level, rule.Properties)
			}
		} else if !sev || !security || rule.DefaultConfiguration.Level != "error" {
			t.Errorf("%s: level %q, properties %v: want an error with security-severity and the security tag", rule.ID, rule.DefaultConfiguration.Level, rule.Properties)
		}
	}
}
