package render

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agentgate/agentgate/internal/safetext"
	"github.com/agentgate/agentgate/lock"
	"github.com/agentgate/agentgate/triage"
)

// MarkdownLimit is the most bytes Markdown returns: GitHub refuses a pull
// request body or comment over 65,536 characters. When the whole report is
// longer, the unified diff is left out, then the per-server details, each
// replaced by a one-line note.
const MarkdownLimit = 60000

var mdStatus = map[string]string{"in-sync": "in sync", "drift": "**drift**", "unverified": "**could not verify**"}

var mdResult = map[string]string{"in-sync": "in sync", "drift": "drift", "invalid": "invalid input", "unverified": "could not verify"}

// Markdown renders r for a pull request comment or body and for
// $GITHUB_STEP_SUMMARY (GitHub-flavoured Markdown):
//
//   - a heading with the command and result, and what was compared;
//   - a table with one row per server: name, status, tool count, changes
//     (or the first line of the error);
//   - per drifted server a collapsed <details> block listing each tool
//     added, removed or changed, with the live description and input
//     schema of added and changed tools in fenced blocks and a warning for
//     hidden characters;
//   - the lockfile's unified diff in a collapsed block, fenced as diff.
//
// Text that did not come from agentgate goes through VisibleLine or Visible
// first, so hidden characters show as escapes. Outside fenced blocks every
// ASCII punctuation character but space , . - / ( ) : ; = + ? ' " is then
// written as a numeric character reference, so nothing from a server
// renders as HTML or Markdown (no tags, links, emphasis, @-mentions, issue
// references or table cells). A fence is one backtick longer than the
// longest run of backticks in its text (at least three), so no text closes
// it. The output is at most MarkdownLimit bytes (see there).
func Markdown(r *Review) string {
	var head strings.Builder
	fmt.Fprintf(&head, "### agentgate %s: %s\n\n", r.Command, mdResult[r.Result])
	fmt.Fprintf(&head, "Live MCP tool surface compared with %s (%s).\n\n", mdCode(r.Lockfile), mdEscape(r.Against))
	for _, p := range r.Errors {
		head.WriteString("**Error**:\n\n" + fenced("text", safetext.Visible(p.Text())) + "\n")
	}
	if r.Uncommitted != "" {
		fmt.Fprintf(&head, "**%s %s** (uncommitted lockfile change): commit the lockfile that `agentgate lock` wrote.\n\n",
			mdCode(r.Lockfile), mdEscape(r.Uncommitted))
	}
	diffs := map[string]lock.ServerDiff{}
	for _, d := range r.Diff.Servers {
		diffs[d.Name] = d
	}
	if len(r.Servers) > 0 {
		head.WriteString("| server | status | tools | changes |\n|---|---|---:|---|\n")
		for _, s := range r.Servers {
			detail := ""
			if d, ok := diffs[s.Name]; ok {
				detail = mdEscape(serverChange(d))
			}
			if s.Status == "unverified" {
				msg := ""
				if s.Error != nil {
					msg, _, _ = strings.Cut(s.Error.Message, "\n")
				}
				detail = mdEscape(safetext.VisibleLine(msg))
			}
			fmt.Fprintf(&head, "| %s | %s | %d | %s |\n", mdEscape(safetext.VisibleLine(s.Name)), mdStatus[s.Status], s.Tools, detail)
		}
		head.WriteString("\n")
	}
	var details strings.Builder
	for _, d := range r.Diff.Servers {
		if len(d.Tools) > 0 || d.Instructions != nil || len(d.Entries) > 0 || d.Package != nil {
			writeServerDetails(&details, d, r.Live[d.Name], r.Labels[d.Name])
		}
	}
	var diff string
	if r.UnifiedDiff != "" {
		diff = fmt.Sprintf("<details><summary>lockfile diff: %s</summary>\n\n%s</details>\n\n",
			mdEscape(r.Lockfile), fenced("diff", r.UnifiedDiff))
	}
	const hint = "Run `agentgate diff` locally for the full report.\n"
	out := head.String() + details.String() + diff
	if len(out) > MarkdownLimit && diff != "" {
		out = head.String() + details.String() + fmt.Sprintf("The lockfile diff (%d bytes) is left out to keep this report short. %s", len(diff), hint)
	}
	if len(out) > MarkdownLimit {
		out = head.String() + "The per-server details are left out to keep this report short. " + hint
	}
	if len(out) > MarkdownLimit {
		out = fmt.Sprintf("### agentgate %s: %s\n\n%s: too many to list here. %s", r.Command, mdResult[r.Result], plural(len(r.Servers), "server"), hint)
	}
	return out
}

// serverChange is a server's change in words: "added, 3 tools",
// "removed, 1 tool" or Summary's counts.
func serverChange(d lock.ServerDiff) string {
	switch d.Change {
	case lock.Added:
		return "added, " + plural(len(d.Tools), "tool")
	case lock.Removed:
		return "removed, " + plural(len(d.Tools), "tool")
	}
	return changeCounts(d)
}

func writeServerDetails(w *strings.Builder, d lock.ServerDiff, live map[string]lock.ToolDef, fs []triage.Finding) {
	fmt.Fprintf(w, "<details><summary>server %s: %s</summary>\n\n", mdEscape(quoted(d.Name)), mdEscape(serverChange(d)))
	for _, t := range d.Tools {
		name := mdEscape(quoted(t.Name))
		ls := findingLabels(fs, triage.KindTool, t.Name)
		switch t.Change {
		case lock.Added:
			fmt.Fprintf(w, "- **added** tool %s%s\n", name, mdLabels(ls))
		case lock.Removed:
			fmt.Fprintf(w, "- **removed** tool %s\n", name)
			continue
		default:
			fmt.Fprintf(w, "- **changed** tool %s (%s)%s\n", name, mdEscape(strings.Join(t.Fields, ", ")), mdLabels(ls))
			if len(t.Members) > 0 {
				w.WriteString("\n  changed members:\n\n" + indent(fenced("text", plainText(func(paint func(c, s string), _ *strings.Builder) {
					writeMembers(paint, "", t.Members)
				})), "  "))
			}
		}
		def, ok := live[t.Name]
		if !ok || (t.Change == lock.Changed && !slices.ContainsFunc(t.Fields, func(f string) bool { return f != "definition" })) {
			continue
		}
		for _, warning := range hiddenWarnings(def) {
			fmt.Fprintf(w, "\n  > **Warning**: %s\n", mdEscape(warning))
		}
		if def.Description == nil {
			w.WriteString("\n  description: (none)\n")
		} else {
			w.WriteString("\n  description:\n\n" + indent(fenced("text", shown(*def.Description)), "  "))
		}
		if def.InputSchema == nil {
			w.WriteString("\n  inputSchema: (none)\n")
		} else {
			text, ok, reason := PrettyJSON(def.InputSchema)
			label := "inputSchema:"
			if !ok {
				label = "inputSchema (as sent; " + mdEscape(reason) + "):"
			}
			w.WriteString("\n  " + label + "\n\n" + indent(fenced("json", shown(text)), "  "))
		}
	}
	if d.Package != nil {
		w.WriteString("- **package**\n\n" + indent(fenced("text", strings.Join(PackageLines(d.Package), "\n")), "  "))
	}
	if d.Instructions != nil || len(d.Entries) > 0 {
		w.WriteString("- **instructions, prompts and resources**\n\n" + indent(fenced("text", plainText(func(paint func(c, s string), b *strings.Builder) {
			rest := d
			rest.Package = nil // shown above
			writeServerV2(paint, b, rest, fs)
		})), "  "))
	}
	w.WriteString("\n</details>\n\n")
}

// fenced puts text (already visible) in a fenced code block with info
// string info; the fence is longer than any run of backticks in text.
func fenced(info, text string) string {
	longest, run := 0, 0
	for i := 0; i < len(text); i++ {
		if text[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", max(3, longest+1))
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	return fence + info + "\n" + text + fence + "\n"
}

// indent prefixes every non-empty line of s with prefix.
func indent(s, prefix string) string {
	lines := strings.SplitAfter(s, "\n")
	var b strings.Builder
	for _, l := range lines {
		if l != "" && l != "\n" {
			b.WriteString(prefix)
		}
		b.WriteString(l)
	}
	return b.String()
}

// mdCode is a path in a code span, or escaped as text when it holds a
// backtick.
func mdCode(s string) string {
	s = safetext.VisibleLine(s)
	if strings.Contains(s, "`") {
		return mdEscape(s)
	}
	return "`" + s + "`"
}

// mdEscape writes every ASCII punctuation character of s (already made
// visible) except space , . - / ( ) : ; = + ? ' " as a numeric character
// reference (&#NN;). Newlines become spaces.
func mdEscape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\n':
			b.WriteByte(' ')
		case c < 0x80 && isMarkdownPunct(c):
			fmt.Fprintf(&b, "&#%d;", c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func isMarkdownPunct(c byte) bool {
	switch c {
	case ' ', ',', '.', '-', '/', '(', ')', ':', ';', '=', '+', '?', '\'', '"':
		return false
	}
	return (c >= '!' && c <= '/') || (c >= ':' && c <= '@') || (c >= '[' && c <= '`') || (c >= '{' && c <= '~')
}

// plainText runs write with a paint function that ignores colour and
// returns what it wrote: the terminal renderers' text for a fenced block.
func plainText(write func(paint func(c, s string), b *strings.Builder)) string {
	var b strings.Builder
	write(func(_, s string) { b.WriteString(s); b.WriteByte('\n') }, &b)
	return b.String()
}

// mdLabels is an item's labels for its Markdown line: " — **high**:
// `new-instruction` (evidence), ..." with each label's evidence escaped;
// "" for none.
func mdLabels(ls []triage.Label) string {
	if len(ls) == 0 {
		return ""
	}
	var parts []string
	for _, l := range ls {
		p := "**" + l.Severity.String() + "** " + mdCode(l.ID)
		if l.Severity >= triage.Medium {
			p += " (" + mdEscape(l.Evidence) + ")"
		}
		parts = append(parts, p)
	}
	return " — " + strings.Join(parts, ", ")
}
