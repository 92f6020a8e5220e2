package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/agentgate/agentgate/internal/testing/archive"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/internal/testing/testenv"
)

// Each testdata/load/*.txtar archive is one repository. Its files are
// written to a temporary root, except these sections:
//
//	want      the Project Load returns, rendered by dumpProject
//	error     Load's errors (errorText)
//	env       KEY=VALUE lines: the environment Resolve sees
//	resolved  each server's Resolve result (rendered by dumpResolved) or error
//
// Every value in env of MinSecretLen bytes or more is a secret: the test
// fails if it appears in any error text or Describe output.
func TestLoadFixtures(t *testing.T) {
	files, _ := filepath.Glob("testdata/load/*.txtar")
	if len(files) == 0 {
		t.Fatal("no fixtures")
	}
	// No user Codex config (codexUserDefines): the fixtures do not depend
	// on the machine's ~/.codex/config.toml.
	t.Setenv("CODEX_HOME", t.TempDir())
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			ar, err := archive.Read(file)
			if err != nil {
				t.Fatal(err)
			}
			sections := map[string]string{}
			root := t.TempDir()
			for _, f := range ar.Files {
				switch f.Name {
				case "want", "error", "env", "resolved":
					sections[f.Name] = string(f.Data)
					continue
				}
				p := filepath.Join(root, filepath.FromSlash(f.Name))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, f.Data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			env := parseEnvSection(sections["env"])
			// The fixtures' HOME is a unix path; on Windows a home is on a
			// drive (a rooted path without one is relative to the current
			// drive, not absolute), so it becomes C:\home\..., written back
			// as the fixture's in the output (underRoot).
			home := pathMap{}
			if h := env["HOME"]; runtime.GOOS == "windows" && strings.HasPrefix(h, "/") {
				home = pathMap{os: `C:` + filepath.FromSlash(h), fixture: h}
				env["HOME"] = home.os
			}
			var secrets []string
			for k, v := range env {
				if len(v) >= MinSecretLen && k != "HOME" {
					secrets = append(secrets, v)
				}
			}
			noSecret := func(what, text string) {
				t.Helper()
				for _, s := range secrets {
					if strings.Contains(text, s) {
						t.Errorf("%s contains secret %q:\n%s", what, s, text)
					}
				}
			}
			got := map[string]string{}
			p, err := Load(root)
			if err != nil {
				var ce *Error
				if !errors.As(err, &ce) {
					t.Fatalf("Load error is %T, not *Error: %v", err, err)
				}
				noSecret("Load error", errorText(err))
				got["error"] = errorText(err) + "\n"
			} else {
				got["want"] = dumpProject(p)
				if _, ok := sections["env"]; ok {
					got["resolved"] = resolveAll(t, p, env, home, noSecret)
				}
			}
			check(t, file, ar, sections, got)
		})
	}
}

// errorText renders err (an *Error or Errors) for a fixture: each
// error's Error(), then a "hint: " line for each of its Hints.
func errorText(err error) string {
	var lines []string
	for _, e := range errorsOf(err) {
		lines = append(lines, e.Error())
		for _, h := range e.Hints() {
			lines = append(lines, "hint: "+h)
		}
	}
	return strings.Join(lines, "\n")
}

func parseEnvSection(s string) map[string]string {
	env := map[string]string{}
	for _, line := range strings.Split(s, "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			env[k] = v
		}
	}
	return env
}

func resolveAll(t *testing.T, p *Project, env map[string]string, home pathMap, noSecret func(string, string)) string {
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	var b strings.Builder
	for _, s := range p.Servers {
		r, err := p.Resolve(s, lookup)
		if err != nil {
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("Resolve error is %T: %v", err, err)
			}
			noSecret("Resolve error", errorText(err))
			fmt.Fprintf(&b, "%s: error (unverifiable=%v): %s\n", s.Name, ce.Unverifiable, errorText(err))
			continue
		}
		noSecret("Describe", r.Describe())
		for _, sec := range r.Secrets {
			if len(sec) >= MinSecretLen && strings.Contains(r.Describe(), sec) {
				t.Errorf("Describe of %s shows secret %q", s.Name, sec)
			}
		}
		b.WriteString(strings.ReplaceAll(dumpResolved(underRoot(r, pathMap{os: p.Root, fixture: rootMark}, home)), rootMark, "$ROOT"))
	}
	return b.String()
}

// rootMark stands for the fixture's root in underRoot's paths: a word
// Describe does not quote (as it does not quote a unix temporary
// directory); resolveAll then writes it as "$ROOT".
const rootMark = "AGENTGATEFIXTUREROOT"

// pathMap is a directory as the OS has it and as the fixture writes it.
type pathMap struct{ os, fixture string }

// underRoot returns r with every path at or below one of dirs (the
// command, the arguments, the working directory, the environment's values,
// the secrets and the files read) written as the fixture writes the directory,
// followed by the rest in slashes: the fixtures' form on every OS. A
// client's ${workspaceFolder}/x is text, so on Windows the rest may hold
// either separator. Only the directory and the separators change; a path
// that is neither a directory of dirs nor below one is left as it is, so
// the comparison is as strict on Windows (C:\...\001\bin\server) as on
// unix.
func underRoot(r Resolved, dirs ...pathMap) Resolved {
	rel := func(s string) string {
		for _, d := range dirs {
			if d.os == "" {
				continue
			}
			if s == d.os {
				return d.fixture
			}
			if rest, ok := strings.CutPrefix(s, d.os); ok && (rest[0] == '/' || rest[0] == filepath.Separator) {
				return d.fixture + "/" + filepath.ToSlash(rest[1:])
			}
		}
		return s
	}
	r.Command = rel(r.Command)
	r.Cwd = rel(r.Cwd)
	r.EnvFile = rel(r.EnvFile)
	if r.Args != nil {
		r.Args = slices.Clone(r.Args)
		for i, a := range r.Args {
			r.Args[i] = rel(a)
		}
	}
	if r.Env != nil {
		env := make(map[string]string, len(r.Env))
		for k, v := range r.Env {
			env[k] = rel(v)
		}
		r.Env = env
	}
	if r.Secrets != nil {
		r.Secrets = slices.Clone(r.Secrets)
		for i, s := range r.Secrets {
			r.Secrets[i] = rel(s)
		}
	}
	if r.Files != nil {
		r.Files = slices.Clone(r.Files)
		for i, f := range r.Files {
			r.Files[i] = rel(f)
		}
	}
	return r
}

func check(t *testing.T, file string, ar *archive.Archive, want, got map[string]string) {
	t.Helper()
	if testenv.UpdateGolden() {
		var files []archive.File
		for _, f := range ar.Files {
			if _, special := want[f.Name]; !special {
				files = append(files, f)
			}
		}
		for _, name := range []string{"env", "error", "want", "resolved"} {
			v, ok := got[name]
			if name == "env" {
				v, ok = want["env"]
			}
			if ok {
				files = append(files, archive.File{Name: name, Data: []byte(v)})
			}
		}
		ar.Files = files
		if err := os.WriteFile(file, ar.Format(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	for _, name := range []string{"error", "want", "resolved"} {
		g, gok := got[name]
		w, wok := want[name]
		if gok != wok {
			t.Errorf("section %s: got present=%v, fixture has it=%v\n%s", name, gok, wok, g)
			continue
		}
		if g != w {
			t.Errorf("section %s differs\n--- got\n%s--- want\n%s", name, g, w)
		}
	}
}

func js(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func dumpServer(b *strings.Builder, s Server) {
	fmt.Fprintf(b, "server %s\n", s.Name)
	line := func(k string, v any, empty bool) {
		if !empty {
			fmt.Fprintf(b, "  %s: %s\n", k, js(v))
		}
	}
	fmt.Fprintf(b, "  at: %s %s:%d:%d\n", s.Client, s.File, s.Line, s.Column)
	t := string(s.Transport)
	if s.FallbackSSE {
		t += " (SSE fallback)"
	}
	fmt.Fprintf(b, "  transport: %s syntax: %s\n", t, s.Syntax)
	line("command", s.Command, s.Command == "")
	line("args", s.Args, s.Args == nil)
	line("env", s.Env, s.Env == nil)
	line("envVars", s.EnvVars, s.EnvVars == nil)
	line("envFile", s.EnvFile, s.EnvFile == "")
	line("cwd", s.Cwd, s.Cwd == "")
	line("url", s.URL, s.URL == "")
	line("headers", s.Headers, s.Headers == nil)
	line("envHeaders", s.EnvHeaders, s.EnvHeaders == nil)
	line("bearerTokenEnvVar", s.BearerTokenEnvVar, s.BearerTokenEnvVar == "")
	line("timeout", s.Timeout.String(), s.Timeout == 0)
	line("alsoIn", s.AlsoIn, s.AlsoIn == nil)
	for _, n := range s.Notes {
		fmt.Fprintf(b, "  note: %s\n", n)
	}
	if s.CrossOriginRedirects {
		fmt.Fprintf(b, "  cross-origin-redirects: true\n")
	}
	if s.MaxListingBytes != 0 || s.MaxTools != 0 {
		fmt.Fprintf(b, "  limits: max-listing-bytes=%d max-tools=%d\n", s.MaxListingBytes, s.MaxTools)
	}
	line("client-capabilities", s.ClientCapabilities, s.ClientCapabilities == nil)
	fmt.Fprintf(b, "  describe: %s\n", s.Describe())
}

func dumpProject(p *Project) string {
	var b strings.Builder
	fmt.Fprintf(&b, "files: %s\n", strings.Join(p.Files, " "))
	st := p.Settings
	if st.File != "" {
		fmt.Fprintf(&b, "settings: lockfile=%s timeout=%s concurrency=%d ignore=%s extra=%s inputs=%s renames=%s\n",
			st.Lockfile, st.Timeout, st.Concurrency, js(st.Ignore), js(st.Extra), js(st.Inputs), js(st.Renames))
	}
	if st.Hook != hookChanged {
		fmt.Fprintf(&b, "settings: hook=%s\n", st.Hook)
	}
	if st.MaxListingBytes != 0 || st.MaxTools != 0 {
		fmt.Fprintf(&b, "settings: max-listing-bytes=%d max-tools=%d\n", st.MaxListingBytes, st.MaxTools)
	}
	if st.ClientCapabilities != nil {
		fmt.Fprintf(&b, "settings: client-capabilities=%s\n", js(st.ClientCapabilities))
	}
	for _, s := range p.Servers {
		dumpServer(&b, s)
	}
	for _, s := range p.Skipped {
		fmt.Fprintf(&b, "skipped %s (%s): %s\n", s.Name, s.File, s.Reason)
	}
	return b.String()
}

func dumpResolved(r Resolved) string {
	var b strings.Builder
	dumpServer(&b, r.Server)
	secrets := slices.Clone(r.Secrets)
	fmt.Fprintf(&b, "  secrets: %s\n  redacted describe: %s\n", js(secrets), r.Describe())
	return b.String()
}

// TestCodexLayerOverUserServer: issue #25 finding 3, the other half. An
// entry with only "enabled = false" is valid for Codex 0.171.0 where the
// user's own Codex config (CODEX_HOME/config.toml) defines the server: it
// disables the user's server (codex mcp list shows it disabled) and is
// skipped, with that reason; a user config that does not define it, or
// that Codex cannot read, leaves the entry refused.
func TestCodexLayerOverUserServer(t *testing.T) {
	root := t.TempDir()
	write(t, root, ".codex/config.toml", "[mcp_servers.node_repl]\nenabled = false\n\n[mcp_servers.lab]\nenabled = true\n")
	home := t.TempDir()
	t.Setenv("CODEX_HOME", home)
	for _, tc := range []struct {
		user string
		want string // "" = refused
	}{
		{"", ""},
		{"[mcp_servers.other]\ncommand = \"x\"\n", ""},
		{"[mcp_servers.node_repl]\nenabled = true\n", ""}, // no transport there either
		{"[mcp_servers.node_repl\ncommand = \"x\"\n", ""}, // invalid TOML: Codex would not start
		{"[mcp_servers.node_repl]\ncommand = \"node\"\n\n[mcp_servers.lab]\nurl = \"http://127.0.0.1:9/mcp\"\n",
			"lab: adjusts the server of the same name in your own Codex config ($CODEX_HOME/config.toml), which agentgate does not lock; " +
				"node_repl: disabled (enabled = false); it adjusts the server of the same name in your own Codex config ($CODEX_HOME/config.toml), which agentgate does not lock"},
	} {
		write(t, home, "config.toml", tc.user)
		p, err := Load(root)
		if tc.want == "" {
			if err == nil || !strings.Contains(err.Error(), "Codex refuses the whole file") {
				t.Errorf("user config %q: Load = %v, want the refusal", tc.user, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("user config %q: %v", tc.user, err)
		}
		var got []string
		for _, s := range p.Skipped {
			got = append(got, s.Name+": "+s.Reason)
		}
		if g := strings.Join(got, "; "); g != tc.want || len(p.Servers) != 0 {
			t.Errorf("user config %q: skipped %q, servers %d; want %q, none", tc.user, g, len(p.Servers), tc.want)
		}
	}
}
