package config

import (
	"fmt"
	"github.com/agentgate/agentgate/internal/testing/archive"
	"github.com/agentgate/agentgate/mcp/config/syntax"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Each testdata/corpus/*.txtar is one real config file from a public
// repository (its comment names the repository, path, commit and licence),
// and under "expect" the reading its client gives it, written by hand from
// the client's documented rules (docs/config.md), in corpusView's form:
//
//	server NAME (CLIENT) TRANSPORT: COMMAND ARGS...   or   ...: URL
//	  env: NAME[=VALUE], ...   (a value only when it cannot be a secret)
//	  cwd: DIR
//	  headers: NAME[=VALUE], ...
//	  note: HOW ANOTHER CLIENT READING THE FILE DIFFERS
//	skipped NAME: REASON
//	error FILE:LINE: MESSAGE
//
// TestCorpus replays every file through Load and compares. An optional
// "expect-partial" section lists, in the same form, the servers that
// `agentgate servers` still shows from a file with errors (it prints what
// could be read, then the errors; Load returns no project then):
// internal/cli's TestCorpusServers checks it.
func TestCorpus(t *testing.T) {
	files, _ := filepath.Glob("testdata/corpus/*.txtar")
	if len(files) < 45 {
		t.Fatalf("corpus has %d files, want at least 45", len(files))
	}
	clients := map[string]bool{}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			ar, err := archive.Read(file)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(string(ar.Comment), "SOURCE: https://github.com/") || !strings.Contains(string(ar.Comment), "\nlicence: ") {
				t.Fatalf("%s: comment must start with SOURCE and name the licence", file)
			}
			root := t.TempDir()
			want := ""
			for _, f := range ar.Files {
				if f.Name == "expect" {
					want = string(f.Data)
					continue
				}
				if f.Name == "expect-partial" {
					continue
				}
				clients[Settings{}.ClientOf(f.Name)] = true
				write(t, root, f.Name, string(f.Data))
			}
			p, err := Load(root)
			if got := corpusView(p, err); got != want {
				t.Errorf("reading differs\n--- got\n%s--- want (by hand, from the client's rules)\n%s", got, want)
			}
		})
	}
	var cs []string
	for c := range clients {
		cs = append(cs, c)
	}
	slices.Sort(cs)
	t.Logf("%d files, clients: %s", len(files), strings.Join(cs, " "))
	// Every project format agentgate discovers has real files (Continue's
	// YAML and JSON files are both "continue").
	want := []string{"amazonq", "claude-code", "codex", "continue", "cursor", "gemini", "junie", "kiro", "opencode", "roo", "vscode", "zed"}
	if !slices.Equal(cs, want) {
		t.Errorf("corpus clients %v, want %v", cs, want)
	}
}

// corpusView renders what Load read in the form of the corpus "expect"
// sections.
func corpusView(p *Project, err error) string {
	var b strings.Builder
	for _, e := range errorsOf(err) {
		fmt.Fprintf(&b, "error %s:%d: %s\n", e.File, e.Line, e.Msg)
	}
	if p == nil {
		return b.String()
	}
	for _, s := range p.Servers {
		fmt.Fprintf(&b, "server %s (%s) %s", s.Name, s.Client, s.Transport)
		if s.FallbackSSE {
			b.WriteString("+sse")
		}
		if s.Transport == Stdio {
			words := []string{syntax.ShellQuote(s.Command)}
			for _, a := range s.Args {
				words = append(words, syntax.ShellQuote(a))
			}
			fmt.Fprintf(&b, ": %s\n", strings.Join(words, " "))
		} else {
			fmt.Fprintf(&b, ": %s\n", StripURL(s.URL))
		}
		named := func(label, prefix string, m map[string]string) {
			if len(m) == 0 {
				return
			}
			var parts []string
			for _, k := range slices.Sorted(maps.Keys(m)) {
				if v, ok := s.ShownValue(prefix+k, m[k]); ok {
					parts = append(parts, k+"="+v)
				} else {
					parts = append(parts, k)
				}
			}
			fmt.Fprintf(&b, "  %s: %s\n", label, strings.Join(parts, ", "))
		}
		named("env", "env.", s.Env)
		if s.Cwd != "" {
			fmt.Fprintf(&b, "  cwd: %s\n", s.Cwd)
		}
		named("headers", "headers.", s.Headers)
		for _, n := range s.Notes {
			fmt.Fprintf(&b, "  note: %s\n", n)
		}
	}
	for _, s := range p.Skipped {
		fmt.Fprintf(&b, "skipped %s: %s\n", s.Name, s.Reason)
	}
	return b.String()
}

// corpusSeeds returns the config files of the corpus read with client
// (for the fuzzers' seed corpus).
func corpusSeeds(f *testing.F, keep func(client string) bool) {
	files, _ := filepath.Glob("testdata/corpus/*.txtar")
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		for _, af := range archive.Parse(data).Files {
			if !strings.HasPrefix(af.Name, "expect") && keep(Settings{}.ClientOf(af.Name)) {
				f.Add(af.Data)
			}
		}
	}
}

// FuzzCorpusLoad mutates each real-world file of the corpus at its own path
// (so discovery picks its client's reader) and loads the directory. Load
// must not panic; every error must name that file and a line; every server
// and skipped entry must come from that file (a server with a line); a
// stdio server must have a command and no URL, a remote one a URL and no
// command; two loads of the same bytes must read the same; and every server
// must survive Describe and Resolve. The seeds are the corpus files themselves,
// so the fuzzer starts from what real repositories commit, in every format.
func FuzzCorpusLoad(f *testing.F) {
	files, _ := filepath.Glob("testdata/corpus/*.txtar")
	var paths []string
	type seed struct {
		path string
		data []byte
	}
	var seeds []seed
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		for _, af := range archive.Parse(data).Files {
			if strings.HasPrefix(af.Name, "expect") {
				continue
			}
			if !slices.Contains(paths, af.Name) {
				paths = append(paths, af.Name)
			}
			seeds = append(seeds, seed{af.Name, af.Data})
		}
	}
	slices.Sort(paths)
	if len(paths) < 13 {
		f.Fatalf("corpus has %d distinct config paths, want one per format at least", len(paths))
	}
	for _, s := range seeds {
		f.Add(uint8(slices.Index(paths, s.path)), s.data)
	}
	lookup := func(k string) (string, bool) { return "value-of-" + k, len(k)%2 == 0 }
	// One directory per fuzzing process, emptied before each input: a
	// fresh t.TempDir per input costs more than the load itself.
	root := f.TempDir()
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		path := paths[int(which)%len(paths)]
		if err := os.RemoveAll(root); err != nil {
			t.Fatal(err)
		}
		write(t, root, path, string(data))
		p, err := Load(root)
		again, err2 := Load(root)
		if v1, v2 := corpusView(p, err), corpusView(again, err2); v1 != v2 {
			t.Fatalf("%s: two loads of the same bytes differ:\n%s---\n%s", path, v1, v2)
		}
		for _, e := range errorsOf(err) {
			if e.File != path || e.Line < 1 {
				t.Fatalf("%s: error without the file and a line: %#v", path, e)
			}
		}
		if p == nil {
			return
		}
		for _, s := range p.Servers {
			if s.File != path || s.Line < 1 {
				t.Fatalf("%s: server %q from %q line %d", path, s.Name, s.File, s.Line)
			}
			// A locked server is runnable, one way only: a stdio server has
			// a command and no URL, a remote one a URL and no command.
			if stdio := s.Transport == Stdio; stdio != (s.Command != "") || stdio == (s.URL != "") {
				t.Fatalf("%s: server %q: transport %q with command %q and URL %q", path, s.Name, s.Transport, s.Command, s.URL)
			}
			_ = s.Describe()
			if r, err := p.Resolve(s, lookup); err == nil {
				_ = r.Describe()
			}
		}
		for _, s := range p.Skipped {
			if s.File != path {
				t.Fatalf("%s: skipped %q from %q", path, s.Name, s.File)
			}
		}
	})
}
