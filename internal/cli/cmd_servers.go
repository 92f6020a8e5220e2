package cli

import (
	"flag"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/agentgate/agentgate/internal/check"
	"github.com/agentgate/agentgate/internal/safetext"
	"github.com/agentgate/agentgate/lock"
	"github.com/agentgate/agentgate/mcp/config"
	"github.com/agentgate/agentgate/render"
)

func init() {
	register(&command{
		name:    "servers",
		summary: "show every MCP server agentgate reads from the client configs, offline",
		usage: `Usage: agentgate servers [--format text|json]

Servers lists what agentgate reads from the repository's client configs, so
that you can check it against what each client shows: every server with
its name, the file and line that define it, the client, the transport, the
command and arguments (or the URL, without userinfo and query), the working
directory, the names of env variables and headers (a value only when it is
a variable reference or too short to be a secret, as in every other output),
and whether it is locked (pinned in agentgate.lock), unlocked (enabled but
not in the lockfile, or no lockfile yet), disabled by its client, or
excluded in agentgate.toml, and why. A note says when another client reading the same
file would start the server differently (VS Code reads .mcp.json too). Servers defined in several files, renamed by a
[[rename]], or defined differently (a conflict) are shown as such.

No server is started and no variable is expanded. Every config error is
printed, after what could be read.

Exit codes: 0 the configs are valid, 2 they are not (what was read is still
shown).

Examples:
  agentgate servers
  agentgate servers --format json | jq '.servers[] | select(.status == "locked") | .name'`,
		flags: func(fs *flag.FlagSet) {
			fs.String("format", "text", "output `format`: text or json")
		},
		run: runServers,
	})
}

// serversReport is the --format json output (docs/config.md#agentgate-servers).
type serversReport struct {
	ReportVersion int              `json:"reportVersion"` // ServersReportVersion
	Files         []string         `json:"files"`
	Servers       []serverEntry    `json:"servers"`
	Errors        []render.Problem `json:"errors"`
}

type serverEntry struct {
	Name        string      `json:"name"`
	Status      string      `json:"status"` // locked, unlocked, disabled, excluded, conflict
	Reason      string      `json:"reason,omitempty"`
	Client      string      `json:"client"`
	File        string      `json:"file"`
	Line        int         `json:"line"`
	Transport   string      `json:"transport,omitempty"`
	FallbackSSE bool        `json:"fallbackSSE,omitempty"`
	Command     string      `json:"command,omitempty"`
	Args        []string    `json:"args,omitempty"`
	Cwd         string      `json:"cwd,omitempty"`
	URL         string      `json:"url,omitempty"`
	Env         []namedItem `json:"env,omitempty"`
	Headers     []namedItem `json:"headers,omitempty"`
	AlsoIn      []string    `json:"alsoIn,omitempty"`
	RenamedFrom string      `json:"renamedFrom,omitempty"`
	Notes       []string    `json:"notes,omitempty"`
	// ClientCapabilities: what capture declares to the server in
	// initialize (config.Server.ClientCapabilities).
	ClientCapabilities []string `json:"clientCapabilities,omitempty"`
	// Guard is set when the entry runs the server under agentgate guard
	// (agentgate wrap); the fields above are then the wrapped server's.
	Guard *config.Guard `json:"guard,omitempty"`
}

// namedItem is an env variable or header: its name, and its value only when
// it can be shown (see config.Server.ShownValue).
type namedItem struct {
	Name  string  `json:"name"`
	Value *string `json:"value,omitempty"`
}

func runServers(e *env, fs *flag.FlagSet, args []string) error {
	format := flagValue[string](fs, "format")
	if format != "text" && format != "json" {
		return invalid(fmt.Errorf("--format %q: want text or json", format))
	}
	if len(args) > 0 {
		return invalid(fmt.Errorf("unexpected argument %q", args[0]), "run 'agentgate servers -h' for usage")
	}
	_, root, err := openRepo(e, false, "servers")
	if err != nil {
		return err
	}
	p, loadErr := config.Inspect(root)
	rep := serversReport{ReportVersion: ServersReportVersion, Files: []string{}, Servers: []serverEntry{}, Errors: []render.Problem{}}
	if p != nil {
		rep.Files = append(rep.Files, p.Files...)
		rep.Servers = serverEntries(p)
		ws := check.NewWorkspace(e.dir, nil, root, p, "")
		lf, _, exists, err := check.ReadLockfile(ws.LockPath, ws.LockRel)
		markUnlocked(rep.Servers, lf, exists, err, ws.LockRel)
	}
	var cerrs config.Errors
	if loadErr != nil {
		cerrs, _ = loadErr.(config.Errors)
		for _, ce := range cerrs {
			rep.Errors = append(rep.Errors, render.Problem{Message: ce.Error(), Hints: nonNil(ce.Hints())})
		}
	}
	if format == "json" {
		e.stdout.Write(render.JSON(rep))
		if loadErr != nil {
			return classify(ExitInvalid, loadErr)
		}
		return nil
	}
	printServers(e.stdout, p, rep)
	if loadErr != nil {
		return classify(ExitInvalid, loadErr)
	}
	return nil
}

// serverEntries lists locked, conflicting and skipped servers, by name then file.
func serverEntries(p *config.Project) []serverEntry {
	var out []serverEntry
	for _, s := range p.Servers {
		out = append(out, entryOf(s, "locked", ""))
	}
	for _, c := range p.Conflicts {
		for _, s := range c.Defs {
			out = append(out, entryOf(s, "conflict", "defined differently in another file ("+c.Field+")"))
		}
	}
	for _, s := range p.Skipped {
		if s.Def != nil { // excluded in agentgate.toml: its definition was read
			out = append(out, entryOf(*s.Def, "excluded", s.Reason))
			continue
		}
		out = append(out, serverEntry{Name: s.Name, Status: "disabled", Reason: s.Reason, File: s.File, Line: s.Line, Client: clientOf(p, s.File)})
	}
	slices.SortStableFunc(out, func(a, b serverEntry) int {
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		return strings.Compare(a.File, b.File)
	})
	return out
}

// markUnlocked turns each enabled ("locked") entry that the lockfile
// lockRel does not pin into "unlocked", with why: there is no lockfile
// yet (exists false), it could not be read (readErr), or it lacks the
// server. servers reads the lockfile only for this; it checks nothing
// else in it (that is verify's job).
func markUnlocked(entries []serverEntry, lf *lock.Lockfile, exists bool, readErr error, lockRel string) {
	for i, en := range entries {
		if en.Status != "locked" {
			continue
		}
		reason := ""
		switch {
		case readErr != nil:
			reason = lockRel + " cannot be read; run 'agentgate verify'"
		case !exists:
			reason = "no " + lockRel + " yet; run 'agentgate lock'"
		default:
			if _, ok := lf.Servers[en.Name]; !ok {
				reason = "not in " + lockRel + "; run 'agentgate lock --server " + en.Name + "'"
			}
		}
		if reason != "" {
			entries[i].Status, entries[i].Reason = "unlocked", reason
		}
	}
}

// clientOf names the client of a file that defined a skipped server.
func clientOf(p *config.Project, file string) string {
	for _, s := range p.Servers {
		if s.File == file {
			return s.Client
		}
	}
	return config.ClientOf(file, p.Settings)
}

func entryOf(s config.Server, status, reason string) serverEntry {
	en := serverEntry{Name: s.Name, Status: status, Reason: reason, Client: s.Client, File: s.File, Line: s.Line,
		Transport: string(s.Transport), FallbackSSE: s.FallbackSSE, Command: s.Command, Args: s.Args, Cwd: s.Cwd,
		URL: config.StripURL(s.URL), AlsoIn: s.AlsoIn, RenamedFrom: s.RenamedFrom, Notes: s.Notes, Guard: s.Guard,
		ClientCapabilities: s.ClientCapabilities}
	for _, k := range slices.Sorted(maps.Keys(s.Env)) {
		en.Env = append(en.Env, shown(s, "env."+k, k, s.Env[k]))
	}
	if s.EnvFile != "" {
		v := s.EnvFile
		en.Env = append(en.Env, namedItem{Name: "envFile", Value: &v})
	}
	for _, k := range s.EnvVars {
		v := "(forwarded from the environment)"
		en.Env = append(en.Env, namedItem{Name: k, Value: &v})
	}
	for _, k := range slices.Sorted(maps.Keys(s.Headers)) {
		en.Headers = append(en.Headers, shown(s, "headers."+k, k, s.Headers[k]))
	}
	for _, k := range slices.Sorted(maps.Keys(s.EnvHeaders)) {
		v := "(from environment variable " + s.EnvHeaders[k] + ")"
		en.Headers = append(en.Headers, namedItem{Name: k, Value: &v})
	}
	if s.BearerTokenEnvVar != "" {
		v := "Bearer (from environment variable " + s.BearerTokenEnvVar + ")"
		en.Headers = append(en.Headers, namedItem{Name: "Authorization", Value: &v})
	}
	return en
}

func shown(s config.Server, field, name, v string) namedItem {
	if t, ok := s.ShownValue(field, v); ok {
		return namedItem{Name: name, Value: &t}
	}
	return namedItem{Name: name}
}

func printServers(w io.Writer, p *config.Project, rep serversReport) {
	if p != nil && len(p.Files) == 0 {
		fmt.Fprintf(w, "no MCP client config found (looked for %s)\n", strings.Join(config.ConfigGlobs(), ", "))
	}
	for i, s := range rep.Servers {
		if i > 0 {
			fmt.Fprintln(w)
		}
		v := safetext.VisibleLine
		fmt.Fprintf(w, "%s: %s\n", v(s.Name), s.Status)
		fmt.Fprintf(w, "  from: %s:%d (%s)\n", v(s.File), s.Line, s.Client)
		if s.Reason != "" {
			fmt.Fprintf(w, "  why: %s\n", v(s.Reason))
		}
		if s.RenamedFrom != "" {
			fmt.Fprintf(w, "  renamed: from %q by agentgate.toml [[rename]]\n", v(s.RenamedFrom))
		}
		if s.Transport != "" {
			t := s.Transport
			if s.FallbackSSE {
				t += " (SSE fallback)"
			}
			fmt.Fprintf(w, "  transport: %s\n", t)
		}
		if s.Guard != nil {
			fmt.Fprintf(w, "  guard: runs under agentgate guard --server %s (agentgate wrap)\n", v(config.ShellQuote(s.Guard.Server)))
		}
		if s.Command != "" {
			words := []string{config.ShellQuote(s.Command)}
			for _, a := range s.Args {
				words = append(words, config.ShellQuote(a))
			}
			fmt.Fprintf(w, "  command: %s\n", v(strings.Join(words, " ")))
		}
		if s.Cwd != "" {
			fmt.Fprintf(w, "  cwd: %s\n", v(s.Cwd))
		}
		if s.URL != "" {
			fmt.Fprintf(w, "  url: %s\n", v(s.URL))
		}
		for _, kv := range []struct {
			label string
			items []namedItem
		}{{"env", s.Env}, {"headers", s.Headers}} {
			if len(kv.items) == 0 {
				continue
			}
			parts := make([]string, len(kv.items))
			for j, it := range kv.items {
				parts[j] = it.Name
				if it.Value != nil {
					parts[j] += "=" + *it.Value
				}
			}
			fmt.Fprintf(w, "  %s: %s\n", kv.label, v(strings.Join(parts, ", ")))
		}
		if len(s.AlsoIn) > 0 {
			fmt.Fprintf(w, "  also in: %s\n", v(strings.Join(s.AlsoIn, ", ")))
		}
		for _, n := range s.Notes {
			fmt.Fprintf(w, "  note: %s\n", v(n))
		}
	}
}
