package render

// ci.go: the JSON report of `agentgate ci --format json`
// (docs/ci-report.md) and the text of ci's server table.

import (
	"maps"
	"slices"
	"strings"

	"github.com/agentgate/agentgate/lock"
	"github.com/agentgate/agentgate/triage"
)

// CIReportVersion is the reportVersion of `agentgate ci --format json`:
// 2 since every server carries its triage findings.
const CIReportVersion = 2

// CIReport is the JSON report, docs/ci-report.md.
type CIReport struct {
	ReportVersion       int        `json:"reportVersion"`
	Result              string     `json:"result"` // in-sync, drift, invalid, unverified
	ExitCode            int        `json:"exitCode"`
	Lockfile            string     `json:"lockfile"`
	LockfileUncommitted bool       `json:"lockfileUncommitted"`
	Servers             []CIServer `json:"servers"`
	Errors              []Problem  `json:"errors"`
}

// CIServer is one server configured or locked.
type CIServer struct {
	Name   string   `json:"name"`
	Status string   `json:"status"` // in-sync, drift, unverified
	Change string   `json:"change"` // drift only: added, removed, changed; else ""
	File   string   `json:"file"`   // the client config defining it; "" when no longer configured
	Line   int      `json:"line"`   // the server's line in File; 0 when unknown
	Tools  CITools  `json:"tools"`
	Error  *Problem `json:"error"`
	// Version 2 lockfiles only: how the instructions changed (added,
	// removed, changed) and the prompts, templates and resources that
	// differ.
	Instructions string    `json:"instructions,omitempty"`
	Entries      []CIEntry `json:"entries,omitempty"`
	// Package is the change of the package the server runs (version 2
	// lockfiles only, and only when it differs).
	Package *CIPackage `json:"package,omitempty"`
	// Findings are the triage labels of every item that differs
	// (docs/TRIAGE.md); [] when none differs.
	Findings []CIFinding `json:"findings"`
}

// CIFinding is one item that differs, with its triage labels.
type CIFinding struct {
	Kind   string    `json:"kind"` // tool, prompt, instructions, resource template
	Name   string    `json:"name"` // "" for instructions
	Change string    `json:"change"`
	Labels []CILabel `json:"labels"`
}

// CILabel is one triage label of a CIFinding.
type CILabel struct {
	ID       string `json:"id"`
	Severity string `json:"severity"` // high, medium, low
	Evidence string `json:"evidence"`
}

// CIFindings converts triage findings for the JSON reports ([] for none).
func CIFindings(fs []triage.Finding) []CIFinding {
	out := []CIFinding{}
	for _, f := range fs {
		cf := CIFinding{Kind: f.Kind, Name: f.Name, Change: f.Change, Labels: []CILabel{}}
		for _, l := range f.Labels {
			cf.Labels = append(cf.Labels, CILabel{ID: l.ID, Severity: l.Severity.String(), Evidence: l.Evidence})
		}
		out = append(out, cf)
	}
	return out
}

// CIPackage is a change of a server's pinned package: the locked and the
// live one (nil: none), and which of ecosystem, name, version, integrity
// differ.
type CIPackage struct {
	Old    *lock.Package `json:"old"`
	New    *lock.Package `json:"new"`
	Fields []string      `json:"fields"`
}

// CITools is how a server's tools compare.
type CITools struct {
	Count   int            `json:"count"` // live tools; locked tools when removed or unverified
	Added   []string       `json:"added"`
	Removed []string       `json:"removed"`
	Changed []CIToolChange `json:"changed"`
}

// CIToolChange is one changed tool and the fields that differ.
type CIToolChange struct {
	Name   string   `json:"name"`
	Fields []string `json:"fields"`
	// Members are the definition's changed members (version 2 lockfiles
	// that keep definitions).
	Members []CIMember `json:"members,omitempty"`
}

// Problem is one error as every report carries it: what happened, and
// what to do about it as values (Hints), never glued into the message.
// The JSON reports (ci's, the commands' --format json, servers') write it
// as {"message", "stderr", "hints": [...]}, hints [] for none; the text
// formats as Text.
type Problem struct {
	Message string   `json:"message"` // one or more lines
	Stderr  string   `json:"stderr"`  // last lines of a stdio server's stderr, redacted; "" if none
	Hints   []string `json:"hints"`
}

// Text is p as the text formats (Markdown, SARIF) show it: the message,
// then a "hint: " line per hint.
func (p Problem) Text() string {
	msg := p.Message
	for _, h := range p.Hints {
		msg += "\nhint: " + h
	}
	return strings.TrimPrefix(msg, "\n")
}

// CIMember is one changed member of a definition in ci's JSON report;
// Old and New are canonical JSON text ("" when absent).
type CIMember struct {
	Path string `json:"path"`
	Old  string `json:"old"`
	New  string `json:"new"`
}

// CIEntry is one prompt, resource template or resource that differs.
type CIEntry struct {
	Kind    string     `json:"kind"` // prompt, resource template, resource
	Name    string     `json:"name"` // the uri for a resource
	Change  string     `json:"change"`
	Members []CIMember `json:"members"`
}

// CIPlace is where a configured server is defined.
type CIPlace struct {
	Name string
	File string // the client config
	Line int    // 0 when unknown
}

// CIRun is what one comparison found, as CIServers reads it.
type CIRun struct {
	Configured []CIPlace                   // every configured server
	Old        *lock.Lockfile              // the lockfile compared against; nil: none
	Live       *lock.Lockfile              // the live surface (servers that failed keep Old's entry)
	Diff       lock.Diff                   // Old -> Live
	Failures   map[string]Problem          // server -> why it could not be verified
	Labels     map[string][]triage.Finding // server -> triage labels of what differs
}

// CIServers reports every server configured or locked in run, sorted by
// name: in-sync, drift (with what changed) or unverified (with why).
func CIServers(run CIRun) []CIServer {
	files := map[string]string{}
	lines := map[string]int{}
	for _, s := range run.Configured {
		files[s.Name], lines[s.Name] = s.File, s.Line
	}
	names := map[string]bool{}
	for n := range files {
		names[n] = true
	}
	if run.Old != nil {
		for n := range run.Old.Servers {
			names[n] = true
		}
	}
	diffs := map[string]lock.ServerDiff{}
	for _, d := range run.Diff.Servers {
		diffs[d.Name] = d
	}
	var out []CIServer
	for _, name := range slices.Sorted(maps.Keys(names)) {
		s := CIServer{Name: name, Status: "in-sync", File: files[name], Line: lines[name],
			Tools: CITools{Added: []string{}, Removed: []string{}, Changed: []CIToolChange{}}, Findings: CIFindings(run.Labels[name])}
		if srv, ok := run.Live.Servers[name]; ok {
			s.Tools.Count = len(srv.Tools)
		} else if run.Old != nil {
			if srv, ok := run.Old.Servers[name]; ok {
				s.Tools.Count = len(srv.Tools)
			}
		}
		if f, ok := run.Failures[name]; ok {
			s.Status = "unverified"
			f.Hints = nonNil(f.Hints)
			s.Error = &f
		}
		if d, ok := diffs[name]; ok {
			s.Status = "drift"
			s.Change = string(d.Change)
			for _, t := range d.Tools {
				switch t.Change {
				case lock.Added:
					s.Tools.Added = append(s.Tools.Added, t.Name)
				case lock.Removed:
					s.Tools.Removed = append(s.Tools.Removed, t.Name)
				default:
					tc := CIToolChange{Name: t.Name, Fields: nonNil(t.Fields)}
					if len(t.Members) > 0 {
						tc.Members = ciMemberChanges(t.Members)
					}
					s.Tools.Changed = append(s.Tools.Changed, tc)
				}
			}
			ciV2(&s, d)
		}
		out = append(out, s)
	}
	return out
}

// nonNil is s, or [] for nil (JSON reports write [] for none).
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// ciMemberChanges converts member changes for the JSON report.
func ciMemberChanges(ms []lock.MemberChange) []CIMember {
	out := make([]CIMember, 0, len(ms))
	for _, m := range ms {
		out = append(out, CIMember{Path: m.Path, Old: m.Old, New: m.New})
	}
	return out
}

// ciV2 fills a drifted server's version 2 changes into the JSON report.
func ciV2(s *CIServer, d lock.ServerDiff) {
	if in := d.Instructions; in != nil {
		switch {
		case in.OldHash == nil:
			s.Instructions = string(lock.Added)
		case in.NewHash == nil:
			s.Instructions = string(lock.Removed)
		default:
			s.Instructions = string(lock.Changed)
		}
	}
	for _, e := range d.Entries {
		s.Entries = append(s.Entries, CIEntry{Kind: e.Kind, Name: e.Name, Change: string(e.Change), Members: ciMemberChanges(e.Members)})
	}
	if p := d.Package; p != nil {
		s.Package = &CIPackage{Old: p.Old, New: p.New, Fields: nonNil(p.Fields)}
	}
	if len(d.Entries) > 0 || d.Instructions != nil || d.Package != nil {
		if s.Change == "" {
			s.Change = string(lock.Changed)
		}
	}
}

// CIDetail is the text after a server's status in ci's table.
func CIDetail(s CIServer) string {
	switch {
	case s.Status == "unverified":
		msg, _, _ := strings.Cut(s.Error.Message, "\n")
		return msg
	case s.Change == string(lock.Added):
		return "configured but not locked (" + plural(s.Tools.Count, "tool") + " live)"
	case s.Change == string(lock.Removed):
		return "locked but no longer configured"
	case s.Status == "drift":
		tools := ToolChanges(len(s.Tools.Added), len(s.Tools.Removed), s.Tools.Changed)
		if v2 := v2Detail(s); v2 != "" {
			return strings.TrimPrefix(tools+", "+v2, ", ")
		}
		return tools
	}
	return plural(s.Tools.Count, "tool")
}

// ToolChanges renders "+1 tool -2 tools ~1 tool (description)".
func ToolChanges(added, removed int, changed []CIToolChange) string {
	var parts []string
	if added > 0 {
		parts = append(parts, "+"+plural(added, "tool"))
	}
	if removed > 0 {
		parts = append(parts, "-"+plural(removed, "tool"))
	}
	if len(changed) > 0 {
		var fields []string
		for _, f := range []string{"name", "description", "inputSchema", "definition"} {
			if slices.ContainsFunc(changed, func(c CIToolChange) bool { return slices.Contains(c.Fields, f) }) {
				fields = append(fields, f)
			}
		}
		parts = append(parts, "~"+plural(len(changed), "tool")+" ("+strings.Join(fields, ", ")+")")
	}
	return strings.Join(parts, " ")
}

// v2Detail adds a drifted server's version 2 changes to ci's table line.
func v2Detail(s CIServer) string {
	var parts []string
	if p := s.Package; p != nil {
		parts = append(parts, PackageLines(&lock.PackageDiff{Old: p.Old, New: p.New, Fields: p.Fields})[0])
	}
	if s.Instructions != "" {
		parts = append(parts, "instructions "+s.Instructions)
	}
	if len(s.Entries) > 0 {
		parts = append(parts, plural(len(s.Entries), "prompt/template/resource")+" differ")
	}
	return strings.Join(parts, ", ")
}
