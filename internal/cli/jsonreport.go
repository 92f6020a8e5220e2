package cli

// jsonreport.go: the --format json document of diff, verify, lock, hook,
// pin, wrap and unwrap (docs/json-reports.md; ci and servers have their own).

import (
	"flag"
	"fmt"
	"io"

	"github.com/agentgate/agentgate/internal/check"
	"github.com/agentgate/agentgate/render"
)

// ReportVersion is the reportVersion of the --format json documents of
// diff, verify, lock, hook, pin, wrap and unwrap: 2 since diff's and
// hook's servers carry their triage findings.
const ReportVersion = 2

// ServersReportVersion is the reportVersion of servers --format json: 2
// since its errors carry "hints" (an array) as every other report does.
const ServersReportVersion = 2

// jsonReportCommands are the commands whose --format json run() handles:
// it discards their text output and prints one cmdReport instead.
var jsonReportCommands = map[string]bool{"diff": true, "verify": true, "lock": true, "hook": true, "pin": true, "wrap": true, "unwrap": true}

// cmdReport is that document. Field order is fixed, every field is always
// present (empty arrays are []), and nothing in it depends on the clock.
type cmdReport struct {
	ReportVersion int              `json:"reportVersion"`
	Command       string           `json:"command"`
	Result        string           `json:"result"` // in-sync, drift, invalid, unverified (the exit code's class)
	ExitCode      int              `json:"exitCode"`
	Lockfile      string           `json:"lockfile"` // relative to the repository root; "" when the run stopped before finding it
	Written       bool             `json:"written"`  // the command wrote the lockfile (lock, hook) or the config files (pin, wrap)
	Servers       []reportServer   `json:"servers"`
	Edits         []reportEdit     `json:"edits"`
	Errors        []render.Problem `json:"errors"`
}

// reportServer is one server as the command saw it.
type reportServer struct {
	Name string `json:"name"`
	// Status: diff: in-sync, drift or unverified; lock: locked, kept,
	// skipped, dropped, failed or captured (a partial failure); verify:
	// locked.
	Status string `json:"status"`
	// Detail: diff: added, removed or changed for a drift, the reason for
	// unverified; lock: new, unchanged, changed (...), not refreshed, ...
	Detail  string   `json:"detail"`
	Tools   int      `json:"tools"`
	Added   []string `json:"toolsAdded"`
	Removed []string `json:"toolsRemoved"`
	Changed []string `json:"toolsChanged"`
	// Findings: diff, hook: the triage labels of what differs, as in ci's
	// report; [] otherwise.
	Findings []render.CIFinding `json:"findings"`
}

// reportEdit is one config file pin or wrap edits (or would, --dry-run).
type reportEdit struct {
	File    string   `json:"file"`
	Servers []string `json:"servers"`
	Diff    string   `json:"diff"` // unified diff, a/FILE -> b/FILE, no colour
}

// jsonFormatFlag registers --format text|json (docs/json-reports.md).
func jsonFormatFlag(fs *flag.FlagSet) {
	fs.String("format", "text", "output `format`: text or json (one JSON document on stdout: docs/json-reports.md)")
}

// checkTextOrJSON refuses a --format other than text or json.
func checkTextOrJSON(fs *flag.FlagSet) error {
	if f := flagValue[string](fs, "format"); f != "text" && f != "json" {
		return invalid(fmt.Errorf("--format %q: want text or json", f))
	}
	return nil
}

func newCmdReport(cmd string) *cmdReport {
	return &cmdReport{ReportVersion: ReportVersion, Command: cmd, Servers: []reportServer{}, Edits: []reportEdit{}, Errors: []render.Problem{}}
}

// addServer records a server; r may be nil (text mode).
func (r *cmdReport) addServer(s reportServer) {
	if r == nil {
		return
	}
	s.Added, s.Removed, s.Changed = nonNil(s.Added), nonNil(s.Removed), nonNil(s.Changed)
	if s.Findings == nil {
		s.Findings = []render.CIFinding{}
	}
	r.Servers = append(r.Servers, s)
}

func (r *cmdReport) setLockfile(rel string) {
	if r != nil {
		r.Lockfile = rel
	}
}

func (r *cmdReport) setWritten() {
	if r != nil {
		r.Written = true
	}
}

func (r *cmdReport) addEdit(e reportEdit) {
	if r != nil {
		e.Servers = nonNil(e.Servers)
		r.Edits = append(r.Edits, e)
	}
}

// write finishes r with err (the command's exit error) and prints it on w
// as the JSON reports are written (render.JSON).
func (r *cmdReport) write(w io.Writer, err error) {
	r.ExitCode = exitCode(err)
	r.Result = ciResults[r.ExitCode]
	for _, p := range problemsOf(err) {
		if len(p.lines) > 0 {
			r.Errors = append(r.Errors, p.report())
		}
	}
	w.Write(render.JSON(r))
}

// reportDiffServers records the servers of a comparison as diff reports
// them (the same classification as ci's report).
func reportDiffServers(r *cmdReport, ws *check.Workspace, c *comparison) {
	if r == nil {
		return
	}
	for _, s := range ciServers(ws, c) {
		rs := reportServer{Name: s.Name, Status: s.Status, Detail: s.Change, Tools: s.Tools.Count, Added: s.Tools.Added, Removed: s.Tools.Removed, Findings: s.Findings}
		for _, ch := range s.Tools.Changed {
			rs.Changed = append(rs.Changed, ch.Name)
		}
		if s.Error != nil {
			rs.Detail = s.Error.Message
		}
		r.addServer(rs)
	}
}
