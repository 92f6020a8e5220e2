package render

type codeQualityIssue struct {
	Type        string              `json:"type"`
	CheckName   string              `json:"check_name"`
	Description string              `json:"description"`
	Categories  []string            `json:"categories"`
	Severity    string              `json:"severity"`
	Fingerprint string              `json:"fingerprint"`
	EngineName  string              `json:"engine_name"`
	Location    codeQualityLocation `json:"location"`
}

type codeQualityLocation struct {
	Path  string           `json:"path"`
	Lines codeQualityLines `json:"lines"`
}

type codeQualityLines struct {
	Begin int `json:"begin"`
}

// GitLabCodeQuality renders r as a GitLab Code Quality report: a JSON array
// (empty when in sync) with one issue per finding of r.Findings, in that
// order. check_name is the rule ID (Rules), description the escaped message,
// severity the highest triage label's ("critical" for high, "major" for
// medium, "minor" for low) when the finding has labels, else "critical"
// for hidden-characters and "major" otherwise,
// fingerprint the same SHA-256 as SARIF's, and location the client config
// line defining the server, or the lockfile line when the server is no
// longer configured. The JSON is indented by two spaces and ends with a
// newline; '<', '>' and '&' are written as \u003c, \u003e, \u0026, and
// hidden characters and "##[" as VisibleJSON writes them.
func GitLabCodeQuality(r *Review) []byte {
	issues := []codeQualityIssue{}
	for _, f := range r.Findings() {
		loc := codeQualityLocation{Path: r.Lockfile, Lines: codeQualityLines{f.LockLine}}
		if f.File != "" && f.Line > 0 {
			loc = codeQualityLocation{Path: f.File, Lines: codeQualityLines{f.Line}}
		}
		sev := "major"
		if f.Rule == "hidden-characters" {
			sev = "critical"
		}
		if _, _, s, ok := labelLevel(f.Labels); ok {
			sev = s
		}
		issues = append(issues, codeQualityIssue{
			Type: "issue", CheckName: f.Rule, Description: f.Message, Categories: []string{"Security"},
			Severity: sev, Fingerprint: fingerprint(f), EngineName: "agentgate", Location: loc,
		})
	}
	return JSON(issues)
}
