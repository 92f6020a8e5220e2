package render

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/agentgate/agentgate/internal/safetext"
	"github.com/agentgate/agentgate/lock"
	"github.com/agentgate/agentgate/triage"
)

// Review is one comparison of a live surface with a lockfile, with what the
// report formats (SARIF, GitLab Code Quality, Markdown) need to place and
// describe every finding. The command line fills it from the same data the
// text output uses.
type Review struct {
	Command     string                             // "ci" or "diff"; used in headings
	Version     string                             // agentgate's version, e.g. "v1.2.3" or "(devel)"
	Lockfile    string                             // the lockfile's slash-separated path relative to the repository root
	LockData    []byte                             // the lockfile compared against, for line numbers
	Against     string                             // what the lockfile is: "HEAD", "working tree", a revision
	Uncommitted string                             // ci: "differs from HEAD" or "is not committed"; "" otherwise
	Servers     []ServerStatus                     // every server configured or locked, by name
	Diff        lock.Diff                          // lockfile -> live
	Live        map[string]map[string]lock.ToolDef // server -> tool name -> live definition
	Labels      map[string][]triage.Finding        // server -> triage labels of what differs (triage.Diff); nil for none
	UnifiedDiff string                             // the lockfile's unified diff, without colour; "" when equal
	Result      string                             // "in-sync", "drift", "invalid" or "unverified"
	Errors      []Problem                          // why the run stopped before comparing; agentgate's text
}

// ServerStatus is one server configured or locked.
type ServerStatus struct {
	Name   string   // the server name, as configured or locked; escape before display
	Status string   // "in-sync", "drift" or "unverified"
	File   string   // client config defining it, slash-separated, relative to the repository root; "" when no longer configured
	Line   int      // the server's line in File; 0 when unknown
	Tools  int      // live tools; locked tools when removed or unverified
	Error  *Problem // unverified: why, and what to do (agentgate's text); nil otherwise
}

// Rule is one kind of finding. Every report format uses these identifiers
// (SARIF ruleId, GitLab check_name); docs/review-formats.md lists them.
type Rule struct {
	ID    string // kebab-case, e.g. "tool-changed" (SARIF ruleId, GitLab check_name)
	Name  string // PascalCase, SARIF reportingDescriptor.name
	Short string // one line
	Help  string // what to do
	Level string // SARIF level: "error" or "warning"
	// Severity is GitHub code scanning's security-severity (0.0 to 10.0:
	// 9.0 and above critical, 7.0 high, 4.0 medium, below low); "" for a
	// rule that is not a security finding (no security-severity, no
	// "security" tag in SARIF).
	Severity string
}

// The rules, in the order SARIF lists them. Rules for lockfile version 2
// members (annotations, instructions, prompts, packages) exist so that
// reports keep stable identifiers when those are locked.
var Rules = []Rule{
	{"tool-added", "ToolAdded", "A server lists a tool the lockfile does not pin.", reviewHelp, "error", "7.0"},
	{"tool-removed", "ToolRemoved", "A server no longer lists a tool the lockfile pins.", reviewHelp, "error", "4.0"},
	{"description-changed", "DescriptionChanged", "A tool's description differs from the pinned one.", reviewHelp, "error", "7.0"},
	{"input-schema-changed", "InputSchemaChanged", "A tool's input schema differs from the pinned one.", reviewHelp, "error", "7.0"},
	{"tool-changed", "ToolChanged", "A pinned member of a tool (other than its description or input schema) differs.", reviewHelp, "error", "7.0"},
	{"annotations-changed", "AnnotationsChanged", "A tool's annotations differ from the pinned ones (lockfile version 2).", reviewHelp, "error", "7.0"},
	{"instructions-changed", "InstructionsChanged", "A server's instructions differ from the pinned ones (lockfile version 2).", reviewHelp, "error", "7.0"},
	{"prompt-changed", "PromptChanged", "A prompt differs from the pinned one (lockfile version 2).", reviewHelp, "error", "7.0"},
	{"resource-changed", "ResourceChanged", "A resource or resource template differs from the pinned one (lockfile version 2).", reviewHelp, "error", "7.0"},
	{"package-changed", "PackageChanged", "The package a server runs differs from the pinned one.", reviewHelp, "error", "7.0"},
	{"server-added", "ServerAdded", "A configured server is not in the lockfile.", "Run 'agentgate lock', review the new server's tools and commit the lockfile.", "error", "7.0"},
	{"server-removed", "ServerRemoved", "The lockfile pins a server that is no longer configured.", "Run 'agentgate lock' and commit the lockfile.", "error", "4.0"},
	// Not a finding about the server's surface but about the run (a
	// missing CI secret, a timeout): a warning without a security-severity,
	// so code scanning never files it as a security alert.
	{"server-unverified", "ServerUnverified", "A server could not be verified (unreachable, timeout, missing variable, not trusted).", "Fix what the message names and run again; a server that did not answer is never reported as in sync.", "warning", ""},
	{"hidden-characters", "HiddenCharacters", "Live text holds control, bidi, zero-width or other invisible characters.", "Read the escaped text: an agent sees characters a reviewer does not. Do not lock it unless you trust every character.", "error", "9.0"},
	{"lockfile-uncommitted", "LockfileUncommitted", "The lockfile in the working tree differs from HEAD's.", "Commit the lockfile that 'agentgate lock' wrote, or restore it.", "error", "3.0"},
}

const reviewHelp = "If the change is expected, run 'agentgate lock', review the diff and commit the lockfile; otherwise find out why the server changed before any agent uses it."

// ruleIndex maps a rule ID to its index in Rules.
var ruleIndex = func() map[string]int {
	m := map[string]int{}
	for i, r := range Rules {
		m[r.ID] = i
	}
	return m
}()

// fieldRules maps lock.ToolDiff.Fields entries to rule IDs; a field not
// listed is "tool-changed".
var fieldRules = map[string]string{
	"description": "description-changed",
	"inputSchema": "input-schema-changed",
	"annotations": "annotations-changed",
}

// Finding is one result of a Review, in the form every report format uses.
// Message is made visible (hidden characters escaped) and may hold
// newlines.
type Finding struct {
	Rule    string // a Rules ID
	Server  string // as sent; escape before display
	Tool    string // "" for a server-level finding
	Entry   string // version 2: "prompt NAME", "resource template NAME", "resource URI", "instructions" or "package"; "" otherwise
	Message string // made visible; may hold newlines
	// Labels are the triage labels of the item the finding is about
	// (high first; the message ends with their evidence); nil for none.
	Labels   []triage.Label
	File     string // client config, "" when unknown
	Line     int    // line in File, 0 when unknown
	LockLine int    // line in the lockfile (1 when nothing closer)
}

// Findings lists r's findings: the uncommitted lockfile first, then per
// server (in r.Servers order) unverified, server added/removed, then per
// tool (sorted) added, removed, changed per field (a version 2 definition
// change as annotations-changed and tool-changed, see memberFindings), and
// hidden characters in the live text of added and changed tools; then the
// server's package (package-changed), its instructions (and hidden characters in them), prompts, resource
// templates and resources (lockfile version 2).
func (r *Review) Findings() []Finding {
	var out []Finding
	if r.Uncommitted != "" {
		out = append(out, Finding{Rule: "lockfile-uncommitted", LockLine: 1,
			Message: r.Lockfile + " " + r.Uncommitted + " (uncommitted lockfile change); commit the lockfile that 'agentgate lock' wrote"})
	}
	diffs := map[string]lock.ServerDiff{}
	for _, d := range r.Diff.Servers {
		diffs[d.Name] = d
	}
	for _, s := range r.Servers {
		b := &serverFindings{r: r, s: s, name: quoted(s.Name), labels: r.Labels[s.Name]}
		if s.Status == "unverified" {
			var p Problem
			if s.Error != nil {
				p = *s.Error
			}
			msg := "server " + b.name + " could not be verified: " + safetext.Visible(p.Message)
			for _, h := range p.Hints {
				msg += "\nhint: " + safetext.Visible(h)
			}
			b.add(b.at("server-unverified", "", msg))
		}
		if d, ok := diffs[s.Name]; ok {
			b.diff(d)
		}
		out = append(out, b.out...)
	}
	return out
}

// serverFindings collects the findings of one server of a Review.
type serverFindings struct {
	r      *Review
	s      ServerStatus
	name   string           // the server's name, quoted for messages
	labels []triage.Finding // the server's triage labels
	out    []Finding
}

func (b *serverFindings) add(f Finding) { b.out = append(b.out, f) }

// at is a finding of rule about the server (tool "") or one of its tools,
// placed at the server's config line and the closest lockfile line.
func (b *serverFindings) at(rule, tool, msg string) Finding {
	return Finding{Rule: rule, Server: b.s.Name, Tool: tool, Message: msg, File: b.s.File, Line: b.s.Line,
		LockLine: b.r.lockLine(b.s.Name, tool)}
}

// labelled is f with the triage labels of the item (kind, name), their
// evidence appended to the message.
func (b *serverFindings) labelled(f Finding, kind, name string) Finding {
	f.Labels = findingLabels(b.labels, kind, name)
	f.Message += labelText(f.Labels)
	return f
}

// diff adds the findings of the server's comparison d: the server added
// or removed, each tool, and lockfile version 2's package, instructions,
// prompts, resource templates and resources.
func (b *serverFindings) diff(d lock.ServerDiff) {
	switch d.Change {
	case lock.Added:
		b.add(b.at("server-added", "", fmt.Sprintf("server %s is configured in %s but not locked (%s live)",
			b.name, orUnknown(b.s.File), plural(len(d.Tools), "tool"))))
	case lock.Removed:
		b.add(b.at("server-removed", "", fmt.Sprintf("server %s is locked (%s) but no longer configured",
			b.name, plural(len(d.Tools), "tool"))))
		return
	}
	for _, t := range d.Tools {
		b.tool(t)
	}
	b.pkg(d.Package)
	b.instructions(d.Instructions)
	for _, e := range d.Entries {
		rule := "resource-changed"
		if e.Kind == lock.KindPrompt {
			rule = "prompt-changed"
		}
		msg := fmt.Sprintf("server %s: %s %s %s", b.name, e.Kind, quoted(e.Name), e.Change)
		for _, m := range e.Members {
			msg += "\n" + memberLine(m)
		}
		f := b.labelled(b.at(rule, "", msg), e.Kind, e.Name)
		f.Entry = e.Kind + " " + e.Name
		b.add(f)
	}
}

// tool adds the findings of one tool that differs: added, removed, or
// changed per field (a version 2 definition change as memberFindings
// splits it), and hidden characters in its live text.
func (b *serverFindings) tool(t lock.ToolDiff) {
	tool := quoted(t.Name)
	def, live := b.r.Live[b.s.Name][t.Name]
	switch t.Change {
	case lock.Added:
		msg := fmt.Sprintf("server %s lists a new tool %s", b.name, tool)
		if live {
			msg += "\n" + describe(def, true, true)
		}
		b.add(b.labelled(b.at("tool-added", t.Name, msg), triage.KindTool, t.Name))
	case lock.Removed:
		b.add(b.at("tool-removed", t.Name, fmt.Sprintf("server %s no longer lists tool %s", b.name, tool)))
		return
	default:
		for _, f := range t.Fields {
			if f == "definition" {
				for _, m := range memberFindings(t) {
					b.add(b.labelled(b.at(m.rule, t.Name, fmt.Sprintf("server %s tool %s: %s", b.name, tool, m.msg)), triage.KindTool, t.Name))
				}
				continue
			}
			rule, ok := fieldRules[f]
			if !ok {
				rule = "tool-changed"
			}
			msg := fmt.Sprintf("server %s tool %s: %s changed", b.name, tool, f)
			if live {
				if text := describe(def, f == "description", f == "inputSchema"); text != "" {
					msg += "; now\n" + text
				}
			}
			b.add(b.labelled(b.at(rule, t.Name, msg), triage.KindTool, t.Name))
		}
	}
	if live {
		if w := hiddenIn(def); w != "" {
			b.add(b.at("hidden-characters", t.Name, fmt.Sprintf("server %s tool %s: %s", b.name, tool, w)))
		}
	}
}

// pkg adds package-changed for a change of the server's package (nil:
// none), at the package's lockfile line.
func (b *serverFindings) pkg(d *lock.PackageDiff) {
	lines := PackageLines(d)
	if lines == nil {
		return
	}
	f := b.at("package-changed", "", "server "+b.name+": "+strings.Join(lines, "\n"))
	f.Entry = "package"
	if n := LockfileMemberLine(b.r.LockData, b.s.Name, "package"); n > 0 {
		f.LockLine = n
	}
	b.add(f)
}

// instructions adds instructions-changed for a change of the server's
// instructions (nil: none), and hidden characters in the new text.
func (b *serverFindings) instructions(in *lock.InstructionsDiff) {
	if in == nil {
		return
	}
	msg := "server " + b.name + ": instructions "
	switch {
	case in.OldHash == nil:
		msg += "added"
	case in.NewHash == nil:
		msg += "removed"
	default:
		msg += "changed"
	}
	if in.New != nil {
		msg += "; now\n" + shown(*in.New)
	}
	b.add(b.labelled(b.at("instructions-changed", "", msg), triage.KindInstructions, ""))
	if in.New != nil {
		if k := safetext.Suspicious(*in.New); len(k) > 0 {
			f := b.at("hidden-characters", "", "server "+b.name+": instructions contain "+strings.Join(k, ", "))
			f.Entry = "instructions"
			b.add(f)
		}
	}
}

type memberFinding struct{ rule, msg string }

// memberFindings turns the definition change of a tool (lockfile version
// 2) into findings: its annotations members as one annotations-changed,
// the other members (title, outputSchema, icons, _meta, ...) as one
// tool-changed, each listing "path: old -> new"; description and
// inputSchema members are left to those fields' findings. Without kept
// definitions (no members) and no other changed field, one tool-changed.
func memberFindings(t lock.ToolDiff) []memberFinding {
	var ann, other []string
	for _, m := range t.Members {
		top, _, _ := strings.Cut(strings.SplitN(m.Path, "[", 2)[0], ".")
		switch top {
		case "description", "inputSchema":
			if slices.Contains(t.Fields, top) {
				continue
			}
			other = append(other, memberLine(m))
		case "annotations":
			ann = append(ann, memberLine(m))
		default:
			other = append(other, memberLine(m))
		}
	}
	var out []memberFinding
	if len(ann) > 0 {
		out = append(out, memberFinding{"annotations-changed", "annotations changed\n" + strings.Join(ann, "\n")})
	}
	if len(other) > 0 {
		out = append(out, memberFinding{"tool-changed", "definition changed\n" + strings.Join(other, "\n")})
	}
	if len(t.Members) == 0 && len(t.Fields) == 1 {
		out = append(out, memberFinding{"tool-changed", "definition changed (the lockfile keeps no definitions to compare)"})
	}
	return out
}

// memberLine is one member change as Summary shows it: "path: old -> new",
// values as canonical JSON text, visible, long ones cut.
func memberLine(m lock.MemberChange) string {
	path := m.Path
	if path == "" {
		path = "(whole definition)"
	}
	return safetext.VisibleLine(path) + ": " + shortValue(m.Old) + " -> " + shortValue(m.New)
}

// lockLine is the lockfile line of server's tool, else of server, else 1.
func (r *Review) lockLine(server, tool string) int {
	if tool != "" {
		if n := LockfileLine(r.LockData, server, tool); n > 0 {
			return n
		}
	}
	if n := LockfileLine(r.LockData, server, ""); n > 0 {
		return n
	}
	return 1
}

// describe renders a live definition's description and/or input schema
// for a finding message: visible, each cut to MaxShown bytes.
func describe(def lock.ToolDef, desc, schema bool) string {
	var parts []string
	if desc {
		if def.Description == nil {
			parts = append(parts, "description: (none)")
		} else {
			parts = append(parts, "description: "+shown(*def.Description))
		}
	}
	if schema {
		if def.InputSchema == nil {
			parts = append(parts, "inputSchema: (none)")
		} else {
			text, _, _ := PrettyJSON(def.InputSchema)
			parts = append(parts, "inputSchema: "+shown(text))
		}
	}
	return strings.Join(parts, "\n")
}

// shown is s cut to MaxShown bytes and made visible.
func shown(s string) string {
	text, more := cut(s)
	text = safetext.Visible(text)
	if more > 0 {
		text += fmt.Sprintf("… (%d more bytes)", more)
	}
	return text
}

// hiddenIn names the hidden characters in def's name, description and
// schema ("" if none), as Summary's warnings do.
func hiddenIn(def lock.ToolDef) string { return strings.Join(hiddenWarnings(def), "; ") }

// hiddenWarnings lists, per field of def that holds characters Suspicious
// reports, "FIELD contains KIND, KIND".
func hiddenWarnings(def lock.ToolDef) []string {
	var warnings []string
	warn := func(field string, k []string) {
		if len(k) > 0 {
			warnings = append(warnings, field+" contains "+strings.Join(k, ", "))
		}
	}
	warn("name", safetext.Suspicious(def.Name))
	if def.Description != nil {
		warn("description", safetext.Suspicious(*def.Description))
	}
	if def.InputSchema != nil {
		warn("inputSchema", SuspiciousJSON(def.InputSchema))
	}
	return warnings
}

// quoted is name in double quotes, made visible on one line.
func quoted(name string) string { return `"` + safetext.VisibleLine(name) + `"` }

func orUnknown(file string) string {
	if file == "" {
		return "an unknown file"
	}
	return safetext.VisibleLine(file)
}

// MaxTitle is the most bytes Title returns.
const MaxTitle = 200

// Title is a one-line summary of r's changes, for a pull request or commit
// title: "agentgate: MCP tool surface changed: fs (+new, -old, ~read),
// memory (added)", servers in r.Diff's order, tools +added -removed
// ~changed, then "~instructions" and version 2 entries ("+prompt NAME").
// Names go through VisibleLine; the line is cut to MaxTitle bytes (ending
// in "…") at a character boundary.
func (r *Review) Title() string {
	if r.Diff.Empty() {
		return "agentgate: MCP tool surface in sync"
	}
	var parts []string
	for _, s := range r.Diff.Servers {
		what := string(s.Change)
		if s.Change == lock.Changed {
			var tools []string
			sign := map[lock.Change]string{lock.Added: "+", lock.Removed: "-", lock.Changed: "~"}
			for _, t := range s.Tools {
				tools = append(tools, sign[t.Change]+safetext.VisibleLine(t.Name))
			}
			if s.Package != nil {
				tools = append(tools, "~"+packageTitle(s.Package))
			}
			if s.Instructions != nil {
				tools = append(tools, "~instructions")
			}
			for _, e := range s.Entries {
				tools = append(tools, sign[e.Change]+e.Kind+" "+safetext.VisibleLine(e.Name))
			}
			if len(tools) == 0 {
				tools = append(tools, "surface changed")
			}
			what = strings.Join(tools, ", ")
		}
		parts = append(parts, safetext.VisibleLine(s.Name)+" ("+what+")")
	}
	title := "agentgate: MCP tool surface changed: " + strings.Join(parts, ", ")
	if len(title) > MaxTitle {
		cutAt := MaxTitle - len("…")
		for cutAt > 0 && !utf8.RuneStart(title[cutAt]) {
			cutAt--
		}
		title = title[:cutAt] + "…"
	}
	return title
}

// labelText is the lines a finding's message ends with for its labels:
// "\nlabels: high new-instruction, low wording-only" and one line of
// evidence per high or medium label.
func labelText(ls []triage.Label) string {
	if len(ls) == 0 {
		return ""
	}
	var ids []string
	for _, l := range ls {
		ids = append(ids, l.Severity.String()+" "+l.ID)
	}
	out := "\nlabels: " + strings.Join(ids, ", ")
	for _, l := range ls {
		if l.Severity >= triage.Medium {
			out += "\n" + l.Severity.String() + " " + l.ID + ": " + l.Evidence
		}
	}
	return out
}

// labelLevel is the SARIF level, GitHub security-severity and GitLab
// severity of the highest of ls: high "error", "9.0", "critical"; medium
// "warning", "6.0", "major"; low "note", "3.0", "minor". ok is false when
// ls is empty (the rule's own level then).
func labelLevel(ls []triage.Label) (level, security, gitlab string, ok bool) {
	switch triage.Highest(ls) {
	case triage.High:
		return "error", "9.0", "critical", true
	case triage.Medium:
		return "warning", "6.0", "major", true
	case triage.Low:
		return "note", "3.0", "minor", true
	}
	return "", "", "", false
}
