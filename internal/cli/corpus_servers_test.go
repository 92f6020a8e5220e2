package cli

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/agentgate/agentgate/mcp/config"
	"github.com/agentgate/agentgate/render"
)

// TestCorpusServers replays every real-world config of the config corpus
// (mcp/config/testdata/corpus: files copied from public repositories, each
// with the reading its client gives it, written by hand) through
// `agentgate servers --format json`, as a user checking agentgate against
// their client would run it. What the command shows must be that reading:
// the same servers (name, client, transport, command and arguments or URL,
// env and header names with the values it may show, cwd, notes; from a file
// with errors, the servers of its "expect-partial" section, which the
// command still shows), the same skipped entries, one error per expected error naming the same file, line
// and message, and exit 0 without errors, 2 with them.
func TestCorpusServers(t *testing.T) {
	files, _ := filepath.Glob("../../mcp/config/testdata/corpus/*.txtar")
	if len(files) < 45 {
		t.Fatalf("corpus has %d files, want at least 45", len(files))
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			r := newRepo(t, true, nil)
			var want []string
			for _, f := range ar.Files {
				if f.Name == "expect" || f.Name == "expect-partial" {
					want = append(want, blocks(string(f.Data))...)
					continue
				}
				r.write(f.Name, string(f.Data))
			}
			code, stdout, stderr := r.agentgate("servers", "--format", "json")
			var rep serversReport
			if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
				t.Fatalf("servers --format json: %v\n%s\n%s", err, stdout, stderr)
			}
			var got, wantErrs []string
			for _, en := range rep.Servers {
				got = append(got, entryView(en))
			}
			for _, w := range want {
				if strings.HasPrefix(w, "error ") {
					wantErrs = append(wantErrs, w)
				}
			}
			want = slices.DeleteFunc(want, func(w string) bool { return strings.HasPrefix(w, "error ") })
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("servers shows\n%s\nwant (the corpus reading)\n%s", strings.Join(got, ""), strings.Join(want, ""))
			}
			if len(rep.Errors) != len(wantErrs) {
				t.Errorf("servers reports %d errors, want %d:\n%+v", len(rep.Errors), len(wantErrs), rep.Errors)
			}
			for _, w := range wantErrs {
				// "error FILE:LINE: MSG" must be one reported error: the
				// message names FILE:LINE: (then a column) and ends in MSG.
				at, msg, _ := strings.Cut(strings.TrimSuffix(strings.TrimPrefix(w, "error "), "\n"), ": ")
				if !slices.ContainsFunc(rep.Errors, func(e render.Problem) bool {
					return strings.HasPrefix(e.Message, at+":") && strings.HasSuffix(e.Message, msg)
				}) {
					t.Errorf("no reported error at %s ending %q:\n%+v", at, msg, rep.Errors)
				}
			}
			wantCode := ExitOK
			if len(wantErrs) > 0 {
				wantCode = ExitInvalid
			}
			if code != wantCode {
				t.Errorf("exit %d, want %d\n%s", code, wantCode, stderr)
			}
		})
	}
}

// blocks splits a corpus reading into one block per server, skipped entry
// or error (a line and the indented lines under it).
func blocks(s string) []string {
	var out []string
	for _, line := range strings.SplitAfter(s, "\n") {
		switch {
		case line == "":
		case strings.HasPrefix(line, "  ") && len(out) > 0:
			out[len(out)-1] += line
		default:
			out = append(out, line)
		}
	}
	return out
}

// entryView renders one entry of `servers --format json` in the corpus
// reading's form (see mcp/config/corpus_test.go).
func entryView(en serverEntry) string {
	if en.Status == "disabled" {
		return fmt.Sprintf("skipped %s: %s\n", en.Name, en.Reason)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "server %s (%s) %s", en.Name, en.Client, en.Transport)
	if en.FallbackSSE {
		b.WriteString("+sse")
	}
	if en.Transport == string(config.Stdio) {
		words := []string{config.ShellQuote(en.Command)}
		for _, a := range en.Args {
			words = append(words, config.ShellQuote(a))
		}
		fmt.Fprintf(&b, ": %s\n", strings.Join(words, " "))
	} else {
		fmt.Fprintf(&b, ": %s\n", en.URL)
	}
	named := func(label string, items []namedItem) {
		if len(items) == 0 {
			return
		}
		var parts []string
		for _, it := range items {
			if it.Value != nil {
				parts = append(parts, it.Name+"="+*it.Value)
			} else {
				parts = append(parts, it.Name)
			}
		}
		fmt.Fprintf(&b, "  %s: %s\n", label, strings.Join(parts, ", "))
	}
	named("env", en.Env)
	if en.Cwd != "" {
		fmt.Fprintf(&b, "  cwd: %s\n", en.Cwd)
	}
	named("headers", en.Headers)
	for _, n := range en.Notes {
		fmt.Fprintf(&b, "  note: %s\n", n)
	}
	return b.String()
}
