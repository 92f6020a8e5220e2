package render

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentgate/agentgate/internal/safetext"
	"github.com/agentgate/agentgate/lock"
	"github.com/agentgate/agentgate/triage"
)

// MaxInline is the longest value (as canonical JSON text) that a member
// change shows whole, as "path: old -> new"; a longer pair of strings is
// shown as a word diff (cut after MaxShown bytes), anything else longer
// is cut.
const MaxInline = 80

// writeMembers writes one line per changed member, indented:
//
//	annotations.destructiveHint: true -> false
//	title: (absent) -> "Delete"
//	description: word diff: Delete a record[-.-]{+, then call export_all.+}
//
// Values are canonical JSON text shown with VisibleLine.
func writeMembers(paint func(c, s string), indent string, ms []lock.MemberChange) {
	for _, m := range ms {
		path := m.Path
		if path == "" {
			path = "(whole definition)"
		}
		path = safetext.VisibleLine(path)
		var os, ns string
		if err1, err2 := json.Unmarshal([]byte(m.Old), &os), json.Unmarshal([]byte(m.New), &ns); err1 == nil && err2 == nil &&
			(len(m.Old) > MaxInline || len(m.New) > MaxInline) {
			paint(ansiYel, indent+path+": word diff: "+wordDiffLine(os, ns))
			continue
		}
		paint(ansiYel, indent+path+": "+shortValue(m.Old)+" -> "+shortValue(m.New))
	}
}

// wordDiffLine is WordDiff(old, new) made visible on one line, cut after
// MaxShown bytes with "… (N more bytes)".
func wordDiffLine(old, new string) string {
	shown, more := cut(safetext.VisibleLine(WordDiff(old, new)))
	if more > 0 {
		return shown + fmt.Sprintf("… (%d more bytes)", more)
	}
	return shown
}

func shortValue(v string) string {
	if v == "" {
		return "(absent)"
	}
	if len(v) > 4*MaxInline {
		s, more := v[:4*MaxInline], len(v)-4*MaxInline
		for len(s) > 0 && s[len(s)-1]&0xc0 == 0x80 {
			s = s[:len(s)-1]
		}
		return safetext.VisibleLine(s) + fmt.Sprintf("… (%d more bytes)", more)
	}
	return safetext.VisibleLine(v)
}

// WordDiff shows how new differs from old word by word, as git's
// --word-diff=plain does: removed words as [-...-], added as {+...+},
// the rest as is. Words and the white space between them are compared as
// separate tokens. Texts of more than 4,000 tokens each are shown as
// [-old-]{+new+}.
func WordDiff(old, new string) string {
	a, b := words(old), words(new)
	if len(a) > 4000 || len(b) > 4000 {
		return "[-" + old + "-]{+" + new + "+}"
	}
	// Longest common subsequence, by dynamic programming over the words.
	n, m := len(a), len(b)
	lcs := make([][]int32, n+1)
	for i := range lcs {
		lcs[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out strings.Builder
	var del, add strings.Builder
	flush := func() {
		if del.Len() > 0 {
			out.WriteString("[-" + del.String() + "-]")
			del.Reset()
		}
		if add.Len() > 0 {
			out.WriteString("{+" + add.String() + "+}")
			add.Reset()
		}
	}
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j]:
			flush()
			out.WriteString(a[i])
			i++
			j++
		case j < m && (i == n || lcs[i][j+1] >= lcs[i+1][j]):
			add.WriteString(b[j])
			j++
		default:
			del.WriteString(a[i])
			i++
		}
	}
	flush()
	return out.String()
}

// words splits s into words and the runs of white space between them,
// each its own token, so that a word matches whatever follows it.
func words(s string) []string {
	var out []string
	for len(s) > 0 {
		space := s[0] == ' ' || s[0] == '\n' || s[0] == '\t'
		i := 1
		for i < len(s) && (s[i] == ' ' || s[i] == '\n' || s[i] == '\t') == space {
			i++
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return out
}

// writeServerV2 writes a server's changed package, instructions and
// entries, with their labels among fs (see Summary).
func writeServerV2(paint func(c, s string), w *strings.Builder, s lock.ServerDiff, fs []triage.Finding) {
	for i, line := range PackageLines(s.Package) {
		if i == 0 {
			paint(ansiYel, "  ~ "+line)
		} else {
			paint(ansiYel, "      "+line)
		}
	}
	if in := s.Instructions; in != nil {
		ls := findingLabels(fs, triage.KindInstructions, "")
		switch {
		case in.OldHash == nil:
			paint(ansiGreen, "  + instructions"+labelList(ls))
		case in.NewHash == nil:
			paint(ansiRed, "  - instructions")
		default:
			paint(ansiYel, "  ~ instructions"+labelList(ls))
		}
		writeEvidence(paint, ls)
		switch {
		case in.Old != nil && in.New != nil:
			paint(ansiYel, "      word diff: "+wordDiffLine(*in.Old, *in.New))
		case in.New != nil:
			paint("", "      instructions:")
			shown, more := cut(*in.New)
			writeIndented(w, "        ", safetext.Visible(shown))
			if more > 0 {
				paint("", fmt.Sprintf("        … (%d more bytes)", more))
			}
		}
		if in.New != nil {
			if k := safetext.Suspicious(*in.New); len(k) > 0 {
				paint(ansiBold+ansiYel, "      ! warning: instructions contain "+strings.Join(k, ", "))
			}
		}
	}
	for _, e := range s.Entries {
		what := e.Kind + " " + safetext.VisibleLine(e.Name)
		ls := findingLabels(fs, e.Kind, e.Name)
		switch e.Change {
		case lock.Added:
			paint(ansiGreen, "  + "+what+labelList(ls))
		case lock.Removed:
			paint(ansiRed, "  - "+what)
		default:
			paint(ansiYel, "  ~ "+what+labelList(ls))
		}
		writeEvidence(paint, ls)
		if e.Change == lock.Changed {
			writeMembers(paint, "      ", e.Members)
		}
	}
}

// v2Counts describes the version 2 changes of a server for its header.
func v2Counts(s lock.ServerDiff) []string {
	var parts []string
	if s.Package != nil {
		parts = append(parts, "package changed")
	}
	if s.Instructions != nil {
		parts = append(parts, "instructions changed")
	}
	n := map[string]int{}
	var kinds []string
	for _, e := range s.Entries {
		if n[e.Kind] == 0 {
			kinds = append(kinds, e.Kind)
		}
		n[e.Kind]++
	}
	for _, k := range kinds {
		parts = append(parts, plural(n[k], k)+" differ")
	}
	return parts
}
