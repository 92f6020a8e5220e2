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

// MaxShown is the most bytes of one description (as sent) or one
// pretty-printed input schema that Summary shows; the rest is replaced by a
// line "… (N more bytes)". Suspicious characters are reported for the
// whole text, shown or not.
const MaxShown = 2000

// Summary renders d for a person, above the diff; "" when d is empty.
// Servers come in d's order (sorted by lock.Compare), one header line each:
//
//	~ server "fs": 1 tool added, 1 removed, 1 changed
//	+ server "memory": added, 9 tools
//	- server "old": removed, 3 tools
//
// then one line per tool: "  + tool NAME", "  - tool NAME" or
// "  ~ tool NAME (description, inputSchema)"; for a version 2 lockfile,
// each changed member of a definition follows as "      PATH: OLD -> NEW"
// (a word diff for long strings, see writeMembers), then the server's
// instructions, prompts, resource templates and resources that differ.
// For every added tool, and every changed tool whose description or
// schema changed, found in live (server -> tool name -> definition) it also shows the
// live description and input schema (PrettyJSON), indented by 8 spaces,
// and a line starting "      ! warning:" when the name, description or
// schema holds characters Suspicious reports. Names and text go through
// Visible/VisibleLine. ANSI colour only when color is true.
//
// labels (server -> triage.Diff's findings; nil for none) puts each
// item's triage labels at the end of its line, high first
// ("  ~ tool add (description)  [high: sensitive-path; low: new-parameter]"),
// and the evidence of each high and medium label on a line below it
// ("      ! high sensitive-path: description: “~/.ssh”").
func Summary(d lock.Diff, live map[string]map[string]lock.ToolDef, labels map[string][]triage.Finding, color bool) string {
	if d.Empty() {
		return ""
	}
	var w strings.Builder
	paint := func(c, s string) {
		if color && c != "" {
			s = c + s + ansiReset
		}
		w.WriteString(s)
		w.WriteByte('\n')
	}
	for _, s := range d.Servers {
		name := `server "` + safetext.VisibleLine(s.Name) + `"`
		switch s.Change {
		case lock.Added:
			paint(ansiBold+ansiGreen, fmt.Sprintf("+ %s: added, %s", name, plural(len(s.Tools), "tool")))
		case lock.Removed:
			paint(ansiBold+ansiRed, fmt.Sprintf("- %s: removed, %s", name, plural(len(s.Tools), "tool")))
		default:
			paint(ansiBold+ansiYel, fmt.Sprintf("~ %s: %s", name, changeCounts(s)))
		}
		fs := labels[s.Name]
		for _, t := range s.Tools {
			tname := "tool " + safetext.VisibleLine(t.Name)
			ls := findingLabels(fs, triage.KindTool, t.Name)
			switch t.Change {
			case lock.Added:
				paint(ansiGreen, "  + "+tname+labelList(ls))
			case lock.Removed:
				paint(ansiRed, "  - "+tname)
				continue
			default:
				paint(ansiYel, "  ~ "+tname+" ("+strings.Join(t.Fields, ", ")+")"+labelList(ls))
			}
			writeEvidence(paint, ls)
			if t.Change == lock.Changed {
				writeMembers(paint, "      ", t.Members)
			}
			if def, ok := live[s.Name][t.Name]; ok {
				writeDetails(&w, def, paint, t)
			}
		}
		writeServerV2(paint, &w, s, fs)
	}
	return w.String()
}

// shownParts says which of a tool's live description and input schema
// Summary shows in full: both for an added tool; for a changed one, each
// that changed, except a description a member line already shows
// (version 2: "description: OLD -> NEW" or its word diff).
func shownParts(t lock.ToolDiff) (desc, schema bool) {
	if t.Change == lock.Added {
		return true, true
	}
	desc = slices.Contains(t.Fields, "description") &&
		!slices.ContainsFunc(t.Members, func(m lock.MemberChange) bool { return m.Path == "description" })
	return desc, slices.Contains(t.Fields, "inputSchema")
}

// writeDetails writes what Summary shows of the live definition def of
// the tool t: the parts shownParts names, and a "! warning:" line for each
// new or changed part (name, description, inputSchema) that holds
// characters Suspicious reports.
func writeDetails(w *strings.Builder, def lock.ToolDef, paint func(c, s string), t lock.ToolDiff) {
	desc, schema := shownParts(t)
	const in = "        "
	switch {
	case !desc:
	case def.Description == nil:
		paint("", "      description: (none)")
	default:
		shown, more := cut(*def.Description)
		paint("", "      description:")
		text := safetext.Visible(shown)
		if text == "" {
			text = `""`
		}
		writeIndented(w, in, text)
		if more > 0 {
			paint("", fmt.Sprintf("%s… (%d more bytes)", in, more))
		}
	}
	switch {
	case !schema:
	case def.InputSchema == nil:
		paint("", "      inputSchema: (none)")
	default:
		text, ok, reason := PrettyJSON(def.InputSchema)
		if ok {
			paint("", "      inputSchema:")
		} else {
			paint("", "      inputSchema (as sent; "+reason+"):")
		}
		shown, more := cut(text)
		writeIndented(w, in, shown)
		if more > 0 {
			paint("", fmt.Sprintf("%s… (%d more bytes)", in, more))
		}
	}
	changed := func(field string) bool { return t.Change == lock.Added || slices.Contains(t.Fields, field) }
	for _, m := range hiddenWarnings(def) {
		if field, _, _ := strings.Cut(m, " "); changed(field) {
			paint(ansiBold+ansiYel, "      ! warning: "+m)
		}
	}
}

// writeIndented writes each line of text (already made visible) indented.
func writeIndented(w *strings.Builder, indent, text string) {
	for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		w.WriteString(indent)
		w.WriteString(l)
		w.WriteByte('\n')
	}
}

// cut returns at most MaxShown bytes of s, cut at a character boundary, and
// how many bytes were left out.
func cut(s string) (string, int) {
	if len(s) <= MaxShown {
		return s, 0
	}
	n := MaxShown
	for n > MaxShown-utf8.UTFMax && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n], len(s) - n
}

// changeCounts is a changed server's differences in words: Summary's
// tool counts, then the version 2 pins ("instructions changed", "1 prompt
// differ").
func changeCounts(s lock.ServerDiff) string {
	counts := toolCounts(s.Tools)
	if extra := v2Counts(s); len(extra) > 0 {
		if len(s.Tools) == 0 {
			counts = strings.Join(extra, ", ")
		} else {
			counts += ", " + strings.Join(extra, ", ")
		}
	}
	return counts
}

func toolCounts(ts []lock.ToolDiff) string {
	var add, rem, chg int
	for _, t := range ts {
		switch t.Change {
		case lock.Added:
			add++
		case lock.Removed:
			rem++
		default:
			chg++
		}
	}
	var parts []string
	for _, p := range []struct {
		n    int
		what string
	}{{add, "added"}, {rem, "removed"}, {chg, "changed"}} {
		if p.n > 0 && parts == nil {
			parts = append(parts, plural(p.n, "tool")+" "+p.what)
		} else if p.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", p.n, p.what))
		}
	}
	if len(parts) == 0 {
		return "surface changed"
	}
	return strings.Join(parts, ", ")
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// findingLabels is the labels of one item among a server's findings.
func findingLabels(fs []triage.Finding, kind, name string) []triage.Label {
	for _, f := range fs {
		if f.Kind == kind && f.Name == name {
			return f.Labels
		}
	}
	return nil
}

// labelList is the labels' ids by severity, for the end of an item's
// line: "  [high: new-instruction, sensitive-path; low: wording-only]";
// "" for none.
func labelList(ls []triage.Label) string {
	if len(ls) == 0 {
		return ""
	}
	var parts []string
	for i := 0; i < len(ls); {
		sev := ls[i].Severity
		var ids []string
		for ; i < len(ls) && ls[i].Severity == sev; i++ {
			if !slices.Contains(ids, ls[i].ID) {
				ids = append(ids, ls[i].ID)
			}
		}
		parts = append(parts, sev.String()+": "+strings.Join(ids, ", "))
	}
	return "  [" + strings.Join(parts, "; ") + "]"
}

// writeEvidence writes one line per high or medium label: its severity,
// id and evidence (escaped by triage).
func writeEvidence(paint func(c, s string), ls []triage.Label) {
	for _, l := range ls {
		if l.Severity < triage.Medium {
			continue
		}
		c := ansiYel
		if l.Severity == triage.High {
			c = ansiBold + ansiRed
		}
		paint(c, "      ! "+l.Severity.String()+" "+l.ID+": "+l.Evidence)
	}
}
