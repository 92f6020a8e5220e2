package render

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/agentgate/agentgate/internal/safetext"
	"github.com/pmezard/go-difflib/difflib"
)

// Context is the number of unchanged lines shown around each change.
const Context = 3

// ANSI colours used when color is true.
const (
	ansiReset = "\x1b[0m"
	ansiBold  = "\x1b[1m"
	ansiRed   = "\x1b[31m"
	ansiGreen = "\x1b[32m"
	ansiYel   = "\x1b[33m"
	ansiCyan  = "\x1b[36m"
)

// UnifiedDiff returns a minimal unified diff from a to b ("" when equal),
// with ---/+++ headers fromName/toName, "\ No newline at end of file" where
// due, and ANSI colour only when color is true (bold headers, cyan @@ lines,
// red removals, green additions).
//
// Without colour the output is byte-for-byte what GNU "diff -u --label
// fromName --label toName" prints for text without control or invisible
// characters: 3 lines of context, hunks closer than 7 lines merged, each
// run of changes slid as far down as it goes (GNU diff's boundary
// shifting). Line contents (and the names) are shown through VisibleLine,
// so untrusted bytes in a lockfile cannot reach the terminal raw; a line
// longer than MaxShown bytes once visible (a version 2 definition's long
// description) is cut there and ends "… (N more bytes)".
//
// It is linear in the input size plus the cost of the changed regions:
// common leading and trailing lines are stripped, lines unique to both
// sides anchor the rest (as in patience diff), and go-difflib's
// SequenceMatcher only compares the windows between anchors that differ.
func UnifiedDiff(a, b []byte, fromName, toName string, color bool) string {
	if string(a) == string(b) {
		return ""
	}
	la, lb := splitLines(string(a)), splitLines(string(b))
	ca, cb := changedLines(la, lb)
	shiftBoundaries(la, ca, cb)
	shiftBoundaries(lb, cb, ca)
	return formatUnified(la, lb, ca, cb, fromName, toName, color)
}

// splitLines splits s after each newline; a last line without a newline is
// kept without one. "" has no lines.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// changedLines marks the lines of a and b that are not in a longest common
// subsequence found as described on UnifiedDiff. The slices have a sentinel
// false at both ends: line i is at index i+1.
func changedLines(a, b []string) (ca, cb []bool) {
	ca, cb = make([]bool, len(a)+2), make([]bool, len(b)+2)
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	s := 0
	for s < len(a)-p && s < len(b)-p && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	m := &marker{a: a, b: b, ca: ca, cb: cb}
	m.anchored(p, len(a)-s, p, len(b)-s)
	return ca, cb
}

type marker struct {
	a, b   []string
	ca, cb []bool
}

// anchored marks changes in a[alo:ahi] vs b[blo:bhi] using lines that occur
// exactly once on each side as anchors.
func (m *marker) anchored(alo, ahi, blo, bhi int) {
	if alo == ahi || blo == bhi {
		m.window(alo, ahi, blo, bhi)
		return
	}
	type occ struct{ na, nb, ia, ib int32 }
	seen := make(map[string]int32, (ahi-alo)+(bhi-blo))
	var occs []occ
	for i := alo; i < ahi; i++ {
		k, ok := seen[m.a[i]]
		if !ok {
			k = int32(len(occs))
			seen[m.a[i]] = k
			occs = append(occs, occ{})
		}
		occs[k].na++
		occs[k].ia = int32(i)
	}
	for j := blo; j < bhi; j++ {
		if k, ok := seen[m.b[j]]; ok {
			occs[k].nb++
			occs[k].ib = int32(j)
		}
	}
	// Anchor pairs in a order; keep a longest increasing run in b order.
	var pairs [][2]int32
	for i := alo; i < ahi; i++ {
		o := occs[seen[m.a[i]]]
		if o.na == 1 && o.nb == 1 {
			pairs = append(pairs, [2]int32{int32(i), o.ib})
		}
	}
	anchors := longestIncreasing(pairs)
	ai, bj := alo, blo
	for _, an := range anchors {
		m.gap(ai, int(an[0]), bj, int(an[1]))
		ai, bj = int(an[0])+1, int(an[1])+1
	}
	m.gap(ai, ahi, bj, bhi)
}

// gap handles the region between two anchors: equal lines at both ends are
// unchanged, the rest goes to the matcher.
func (m *marker) gap(alo, ahi, blo, bhi int) {
	for alo < ahi && blo < bhi && m.a[alo] == m.b[blo] {
		alo++
		blo++
	}
	for alo < ahi && blo < bhi && m.a[ahi-1] == m.b[bhi-1] {
		ahi--
		bhi--
	}
	m.window(alo, ahi, blo, bhi)
}

// window marks changes in a small region with go-difflib.
func (m *marker) window(alo, ahi, blo, bhi int) {
	switch {
	case alo == ahi && blo == bhi:
		return
	case alo == ahi || blo == bhi:
		for i := alo; i < ahi; i++ {
			m.ca[i+1] = true
		}
		for j := blo; j < bhi; j++ {
			m.cb[j+1] = true
		}
		return
	}
	sm := difflib.NewMatcher(m.a[alo:ahi], m.b[blo:bhi])
	for _, op := range sm.GetOpCodes() {
		if op.Tag == 'e' {
			continue
		}
		for i := op.I1; i < op.I2; i++ {
			m.ca[alo+i+1] = true
		}
		for j := op.J1; j < op.J2; j++ {
			m.cb[blo+j+1] = true
		}
	}
}

// longestIncreasing returns a longest subsequence of pairs (sorted by their
// first element) whose second elements increase (patience sorting).
func longestIncreasing(pairs [][2]int32) [][2]int32 {
	if len(pairs) == 0 {
		return nil
	}
	tails := []int{}                // index into pairs of the smallest tail of each length
	prev := make([]int, len(pairs)) // predecessor of each pair in its run
	for k, p := range pairs {
		lo, hi := 0, len(tails)
		for lo < hi {
			mid := (lo + hi) / 2
			if pairs[tails[mid]][1] < p[1] {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		if lo > 0 {
			prev[k] = tails[lo-1]
		} else {
			prev[k] = -1
		}
		if lo == len(tails) {
			tails = append(tails, k)
		} else {
			tails[lo] = k
		}
	}
	out := make([][2]int32, len(tails))
	for k, i := tails[len(tails)-1], len(tails)-1; i >= 0; k, i = prev[k], i-1 {
		out[i] = pairs[k]
	}
	return out
}

// shiftBoundaries is GNU diff's shift_boundaries (analyze.c) for one file:
// each run of changed lines in lines (flags c, line i at c[i+1]) is slid up
// while that merges it with an earlier run, then down as far as it goes,
// then back up to the last place where it faces a change in the other file
// (flags other). Sliding keeps the diff valid and minimal; this fixes which
// of the equivalent diffs is printed.
func shiftBoundaries(lines []string, c, other []bool) {
	ch := func(i int) *bool { return &c[i+1] }
	oc := func(j int) bool { return other[j+1] }
	iEnd := len(lines)
	i, j := 0, 0
	for {
		for i < iEnd && !*ch(i) {
			for oc(j) {
				j++
			}
			j++
			i++
		}
		if i == iEnd {
			return
		}
		start := i
		i++
		for *ch(i) {
			i++
		}
		for oc(j) {
			j++
		}
		var corresponding int
		for {
			runlength := i - start
			for start > 0 && lines[start-1] == lines[i-1] {
				start--
				*ch(start) = true
				i--
				*ch(i) = false
				for *ch(start - 1) {
					start--
				}
				j--
				for oc(j) {
					j--
				}
			}
			corresponding = iEnd
			if oc(j - 1) {
				corresponding = i
			}
			for i != iEnd && lines[start] == lines[i] {
				*ch(start) = false
				start++
				*ch(i) = true
				i++
				for *ch(i) {
					i++
				}
				j++
				for oc(j) {
					j++
					corresponding = i
				}
			}
			if runlength == i-start {
				break
			}
		}
		for corresponding < i {
			start--
			*ch(start) = true
			i--
			*ch(i) = false
			j--
			for oc(j) {
				j--
			}
		}
	}
}

// change is one run of deleted and inserted lines (GNU diff's struct change).
type change struct{ line0, line1, deleted, inserted int }

func buildScript(ca, cb []bool) []change {
	var out []change
	n0, n1 := len(ca)-2, len(cb)-2
	i0, i1 := 0, 0
	for i0 < n0 || i1 < n1 {
		if ca[i0+1] || cb[i1+1] {
			l0, l1 := i0, i1
			for ca[i0+1] {
				i0++
			}
			for cb[i1+1] {
				i1++
			}
			out = append(out, change{l0, l1, i0 - l0, i1 - l1})
		}
		i0++
		i1++
	}
	return out
}

func formatUnified(a, b []string, ca, cb []bool, fromName, toName string, color bool) string {
	script := buildScript(ca, cb)
	var w strings.Builder
	paint := func(c, s string) {
		if color && c != "" {
			w.WriteString(c + s + ansiReset)
		} else {
			w.WriteString(s)
		}
	}
	paint(ansiBold, "--- "+safetext.VisibleLine(fromName))
	w.WriteByte('\n')
	paint(ansiBold, "+++ "+safetext.VisibleLine(toName))
	w.WriteByte('\n')
	line := func(c string, prefix byte, s string) {
		text, nl := strings.CutSuffix(s, "\n")
		shown, more := cut(safetext.VisibleLine(text))
		if more > 0 {
			shown += fmt.Sprintf("… (%d more bytes)", more)
		}
		paint(c, string(prefix)+shown)
		w.WriteByte('\n')
		if !nl {
			w.WriteString("\\ No newline at end of file\n")
		}
	}
	for k := 0; k < len(script); {
		// A hunk: changes separated by fewer than 2*Context+1 unchanged lines.
		end := k
		for end+1 < len(script) && script[end+1].line0-(script[end].line0+script[end].deleted) < 2*Context+1 {
			end++
		}
		first, last := script[k], script[end]
		f0, f1 := max(first.line0-Context, 0), max(first.line1-Context, 0)
		l0 := min(last.line0+last.deleted-1+Context, len(a)-1)
		l1 := min(last.line1+last.inserted-1+Context, len(b)-1)
		paint(ansiCyan, "@@ -"+unifiedRange(f0, l0)+" +"+unifiedRange(f1, l1)+" @@")
		w.WriteByte('\n')
		i, j, next := f0, f1, k
		for i <= l0 || j <= l1 {
			if next > end || i < script[next].line0 {
				line("", ' ', a[i])
				i++
				j++
				continue
			}
			c := script[next]
			for n := 0; n < c.deleted; n++ {
				line(ansiRed, '-', a[i])
				i++
			}
			for n := 0; n < c.inserted; n++ {
				line(ansiGreen, '+', b[j])
				j++
			}
			next++
		}
		k = end + 1
	}
	return w.String()
}

// unifiedRange prints lines first..last (0-based, inclusive) as GNU diff
// does: "N" for one line, "N,0" (N the line before) for none.
func unifiedRange(first, last int) string {
	a, b := first+1, last+1
	switch {
	case b < a:
		return strconv.Itoa(b) + ",0"
	case b == a:
		return strconv.Itoa(b)
	}
	return strconv.Itoa(a) + "," + strconv.Itoa(b-a+1)
}
