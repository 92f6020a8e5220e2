package render

import (
	"fmt"
	"maps"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/lock"
)

// gnuDiff runs the real GNU diff -u with labels: the oracle.
func gnuDiff(t testing.TB, a, b, from, to string) string {
	t.Helper()
	if _, err := exec.LookPath("diff"); err != nil {
		t.Fatalf("GNU diff is required for this test: %v", err)
	}
	dir := t.TempDir()
	pa, pb := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	if err := os.WriteFile(pa, []byte(a), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pb, []byte(b), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("diff", "-u", "--label", from, "--label", to, pa, pb).Output()
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 1 {
		err = nil
	}
	if err != nil {
		t.Fatalf("diff -u: %v", err)
	}
	return string(out)
}

func numbered(n int, f func(i int) string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		b.WriteString(f(i))
	}
	return b.String()
}

func lines(n int) string {
	return numbered(n, func(i int) string { return fmt.Sprintf("line %d\n", i) })
}

func replaceLine(s string, n int, with string) string {
	ls := strings.SplitAfter(s, "\n")
	ls[n-1] = with
	return strings.Join(ls, "")
}

func TestUnifiedDiffMatchesGNUDiff(t *testing.T) {
	big := lines(5000)
	cases := []struct{ name, a, b string }{
		{"equal", "a\nb\n", "a\nb\n"},
		{"empty to text", "", "a\nb\n"},
		{"text to empty", "a\nb\n", ""},
		{"empty to no newline", "", "a"},
		{"no newline on old side", "a\nb", "a\nb\n"},
		{"no newline on new side", "a\nb\n", "a\nb"},
		{"no newline on both, last line changed", "a\nb", "a\nc"},
		{"no newline on both, earlier change", lines(10) + "end", replaceLine(lines(10), 2, "two\n") + "end"},
		{"single line file changed", "a\n", "b\n"},
		{"single line change", lines(10), replaceLine(lines(10), 5, "five\n")},
		{"change at start", lines(10), replaceLine(lines(10), 1, "first\n")},
		{"change at end", lines(10), replaceLine(lines(10), 10, "last\n")},
		{"insert at start", lines(10), "new\n" + lines(10)},
		{"append at end", lines(10), lines(10) + "new\n"},
		{"delete block", lines(20), strings.Replace(lines(20), "line 8\nline 9\nline 10\n", "", 1)},
		{"two changes 6 apart merge", lines(30), replaceLine(replaceLine(lines(30), 10, "x\n"), 17, "y\n")},
		{"two changes 7 apart split", lines(30), replaceLine(replaceLine(lines(30), 10, "x\n"), 18, "y\n")},
		{"several hunks", lines(100), replaceLine(replaceLine(replaceLine(lines(100), 3, "a\n"), 50, "b\n"), 98, "c\n")},
		{"repeated lines insertion", "x\n}\n{\ny\n}\n{\nz\n", "x\n}\n{\nnew\n}\n{\ny\n}\n{\nz\n"},
		{"large file, scattered changes", big, replaceLine(replaceLine(replaceLine(big, 7, "seven\n"), 2500, "mid\n"), 4999, "end\n")},
		{"large file, all different", lines(300), numbered(300, func(i int) string { return fmt.Sprintf("other %d\n", i) })},
		{"crlf lines", "a\r\nb\r\n", "a\r\nc\r\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want := gnuDiff(t, c.a, c.b, "a/agentgate.lock (HEAD)", "b/agentgate.lock (live)")
			got := UnifiedDiff([]byte(c.a), []byte(c.b), "a/agentgate.lock (HEAD)", "b/agentgate.lock (live)", false)
			if strings.Contains(c.a+c.b, "\r") {
				// VisibleLine shows \r; compare with GNU's output made visible.
				want = strings.ReplaceAll(want, "\r", `\r`)
			}
			if got != want {
				t.Errorf("UnifiedDiff differs from diff -u\n--- got\n%s\n--- want\n%s", got, want)
			}
		})
	}
}

// lockText renders a lockfile-shaped text with the given tools per server,
// in the canonical layout (2-space indent).
func lockText(servers map[string][]string, hash func(server, tool, field string) string) string {
	var b strings.Builder
	b.WriteString("{\n  \"lockfileVersion\": 1,\n  \"generatedBy\": \"agentgate@v0.0.0\",\n  \"generatedAt\": \"2026-01-01T00:00:00.000Z\",\n  \"servers\": {\n")
	names := slices.Sorted(maps.Keys(servers))
	for si, s := range names {
		fmt.Fprintf(&b, "    %q: {\n      \"surfaceHash\": %q,\n      \"tools\": [\n", s, hash(s, "", "surface"))
		for ti, tool := range servers[s] {
			fmt.Fprintf(&b, "        {\n          \"name\": %q,\n          \"nameHash\": %q,\n          \"descriptionHash\": %q,\n          \"inputSchemaHash\": %q\n        }", tool, hash(s, tool, "name"), hash(s, tool, "description"), hash(s, tool, "inputSchema"))
			if ti < len(servers[s])-1 {
				b.WriteString(",")
			}
			b.WriteString("\n")
		}
		b.WriteString("      ]\n    }")
		if si < len(names)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("  }\n}\n")
	return b.String()
}

func fakeHash(server, tool, field string) string {
	return fmt.Sprintf("%064x", uint64(len(server)*7919+len(tool)*31)^hashString(server+"/"+tool+"/"+field))
}

func hashString(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * 1099511628211
	}
	return h
}

func toolNames(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s_%05d", prefix, i)
	}
	return out
}

// Lockfile-shaped edits (tools added, removed, rehashed, servers added and
// removed), random but seeded: every one must equal diff -u.
func TestUnifiedDiffLockfileEditsMatchGNUDiff(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for round := 0; round < 40; round++ {
		old := map[string][]string{}
		for s := 0; s < 1+rng.Intn(4); s++ {
			old[fmt.Sprintf("srv%d", s)] = toolNames(fmt.Sprintf("t%d", s), 1+rng.Intn(60))
		}
		neu := map[string][]string{}
		for s, tools := range old {
			neu[s] = append([]string(nil), tools...)
		}
		changed := map[string]bool{}
		for e := 0; e < 1+rng.Intn(4); e++ {
			s := slices.Sorted(maps.Keys(neu))[rng.Intn(len(neu))]
			tools := neu[s]
			switch rng.Intn(5) {
			case 0: // add a tool
				k := rng.Intn(len(tools) + 1)
				tools = append(tools[:k], append([]string{fmt.Sprintf("%s_new%d", tools[0], e)}, tools[k:]...)...)
			case 1: // remove a tool
				if len(tools) > 1 {
					k := rng.Intn(len(tools))
					tools = append(tools[:k], tools[k+1:]...)
				}
			case 2, 3: // change a hash
				changed[s+"/"+tools[rng.Intn(len(tools))]] = true
			case 4: // add a server
				neu[fmt.Sprintf("added%d", e)] = toolNames("x", 1+rng.Intn(5))
			}
			if _, ok := neu[s]; ok {
				neu[s] = tools
			}
		}
		a := lockText(old, fakeHash)
		b := lockText(neu, func(s, tool, f string) string {
			if changed[s+"/"+tool] && f == "description" {
				return fakeHash(s, tool, "changed")
			}
			return fakeHash(s, tool, f)
		})
		want := gnuDiff(t, a, b, "a", "b")
		if got := UnifiedDiff([]byte(a), []byte(b), "a", "b", false); got != want {
			t.Fatalf("round %d: UnifiedDiff differs from diff -u\n--- got\n%s\n--- want\n%s", round, got, want)
		}
	}
}

// big10k returns two 10,000-tool lockfiles (about 1.9 MB) that differ in 3
// tools: one reworded, one removed, one added.
func big10k() (a, b []byte) {
	tools := toolNames("tool", 10000)
	old := map[string][]string{"everything": tools[:5000], "filesystem": tools[5000:]}
	neu := map[string][]string{
		"everything": append(append([]string{}, tools[:1234]...), tools[1235:5000]...),
		"filesystem": append(append(append([]string{}, tools[5000:8000]...), "tool_08000_new"), tools[8000:]...),
	}
	a = []byte(lockText(old, fakeHash))
	b = []byte(lockText(neu, func(s, tool, f string) string {
		if tool == "tool_04321" && f == "description" {
			return fakeHash(s, tool, "reworded")
		}
		return fakeHash(s, tool, f)
	}))
	return a, b
}

func TestUnifiedDiffLarge(t *testing.T) {
	a, b := big10k()
	want := gnuDiff(t, string(a), string(b), "a/agentgate.lock (HEAD)", "b/agentgate.lock (live)")
	if got := UnifiedDiff(a, b, "a/agentgate.lock (HEAD)", "b/agentgate.lock (live)", false); got != want {
		t.Fatalf("UnifiedDiff differs from diff -u on 10k-tool lockfiles\n--- got\n%s\n--- want\n%s", got, want)
	}
}

func TestUnifiedDiffColor(t *testing.T) {
	got := UnifiedDiff([]byte("a\nb\n"), []byte("a\nc\n"), "old", "new", true)
	want := "\x1b[1m--- old\x1b[0m\n\x1b[1m+++ new\x1b[0m\n\x1b[36m@@ -1,2 +1,2 @@\x1b[0m\n a\n\x1b[31m-b\x1b[0m\n\x1b[32m+c\x1b[0m\n"
	if got != want {
		t.Errorf("coloured diff = %q, want %q", got, want)
	}
}

func BenchmarkUnifiedDiff10k(b *testing.B) {
	x, y := big10k()
	b.SetBytes(int64(len(x) + len(y)))
	for b.Loop() {
		if UnifiedDiff(x, y, "a", "b", false) == "" {
			b.Fatal("no diff")
		}
	}
}

// BenchmarkGitDiffNoIndex10k is the yardstick for BenchmarkUnifiedDiff10k
// plus BenchmarkSummary10k: git diff --no-index on the same two files.
func BenchmarkGitDiffNoIndex10k(b *testing.B) {
	x, y := big10k()
	dir := b.TempDir()
	pa, pb := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	if err := os.WriteFile(pa, x, 0o644); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(pb, y, 0o644); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		cmd := exec.Command("git", "diff", "--no-index", "--no-color", pa, pb)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if err := cmd.Run(); err == nil {
			b.Fatal("git diff found no difference")
		}
	}
}

// BenchmarkDiffAndSummary10k is what agentgate diff renders for the two
// 10,000-tool lockfiles: the summary of the 3 changed tools and the diff.
func BenchmarkDiffAndSummary10k(b *testing.B) {
	x, y := big10k()
	d := lock.Diff{Servers: []lock.ServerDiff{
		{Name: "everything", Change: lock.Changed, Tools: []lock.ToolDiff{
			{Name: "tool_01234", Change: lock.Removed},
			{Name: "tool_04321", Change: lock.Changed, Fields: []string{"description"}},
		}},
		{Name: "filesystem", Change: lock.Changed, Tools: []lock.ToolDiff{{Name: "tool_08000_new", Change: lock.Added}}},
	}}
	desc := "Reworded description."
	live := map[string]map[string]lock.ToolDef{
		"everything": {"tool_04321": {Name: "tool_04321", Description: &desc, InputSchema: []byte(`{"type":"object"}`)}},
		"filesystem": {"tool_08000_new": {Name: "tool_08000_new", Description: &desc, InputSchema: []byte(`{"type":"object"}`)}},
	}
	for b.Loop() {
		if Summary(d, live, nil, false) == "" || UnifiedDiff(x, y, "a", "b", false) == "" {
			b.Fatal("empty output")
		}
	}
}
