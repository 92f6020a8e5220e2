package config

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"

	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentgate/agentgate/mcp/config/syntax"
)

// Load finds and parses every client config under root and agentgate.toml.
// It reads every file and reports every error it finds in one run: the
// error is an Errors (each an *Error naming file:line:column, the field
// and a hint; a file's syntax errors, then each server entry's first
// error, in file order). For a file outside the repository (see
// ExtraFile) an error names only the position and the kind of error.
//
// Servers with the same name in several files are one server when their
// effective definitions are the same (see differ and docs/config.md); otherwise Load
// fails with an error naming both files. Disabled servers and servers
// excluded in agentgate.toml are listed in Project.Skipped.
func Load(root string) (*Project, error) {
	p, errs := load(root)
	if len(errs) > 0 {
		return nil, errs
	}
	return p, nil
}

// Inspect is Load for display (agentgate servers): it returns everything
// it could read even when there are errors, with the servers whose
// definitions conflict in Project.Conflicts and not in Servers, and the
// errors, if any, as an Errors. The Project is nil only when the root or
// agentgate.toml cannot be read.
func Inspect(root string) (*Project, error) {
	p, errs := load(root)
	if len(errs) > 0 {
		return p, errs
	}
	return p, nil
}

func load(root string) (*Project, Errors) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, Errors{{File: root, Msg: "cannot resolve path: " + err.Error()}}
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return nil, Errors{{File: root, Msg: "repository root is not a directory"}}
	}
	var errs Errors
	p := &Project{Root: abs, Settings: Settings{Lockfile: defaultLockfile, Hook: hookChanged}}
	data, err := os.ReadFile(filepath.Join(abs, SettingsFile))
	switch {
	case err == nil:
		if p.Settings, err = ParseSettings(SettingsFile, data); err != nil {
			return nil, Errors(errorsOf(err))
		}
		p.Settings.File = SettingsFile
	case !errors.Is(err, fs.ErrNotExist):
		return nil, Errors{{File: SettingsFile, Msg: "cannot read: " + errText(err)}}
	}
	sources, derrs := discover(abs, p.Settings)
	errs = append(errs, derrs...)
	var defs []Server
	var skipped []Skipped
	for _, s := range sources {
		res, err := readSource(s)
		for _, e := range errorsOf(err) {
			if s.outside {
				e = opaque(e)
			}
			errs = append(errs, e)
		}
		p.Files = append(p.Files, s.rel)
		defs = append(defs, res.servers...)
		skipped = append(skipped, res.skipped...)
	}
	if len(errs) == 0 {
		// Both checks name servers that a file with errors may define.
		var err *Error
		if defs, err = applyRenames(p.Settings, defs); err != nil {
			errs = append(errs, err)
		} else if err := p.checkServerSettings(defs, skipped); err != nil {
			errs = append(errs, err)
		} else {
			errs = append(errs, p.checkWrappers(defs)...)
		}
	}
	byName := map[string][]Server{}
	for _, d := range defs {
		byName[d.Name] = append(byName[d.Name], d)
	}
	for _, name := range slices.Sorted(maps.Keys(byName)) {
		group := byName[name]
		if ss := p.Settings.Servers[name]; ss.Exclude != "" {
			def := group[0]
			skipped = append(skipped, Skipped{Name: name, File: def.File, Line: def.Line, Excluded: true, Def: &def,
				Reason: "excluded in agentgate.toml: " + ss.Exclude})
			continue
		}
		first := group[0]
		ok := true
		for _, other := range group[1:] {
			if field := differ(first, other); field != "" {
				errs = append(errs, conflict(first, other, field))
				if ok {
					p.Conflicts = append(p.Conflicts, Conflict{Name: name, Field: field, Defs: group})
				}
				ok = false
				continue
			}
			first.AlsoIn = append(first.AlsoIn, fmt.Sprintf("%s:%d", other.File, other.Line))
			first.Notes = append(first.Notes, other.Notes...)
		}
		if ok {
			ss := p.Settings.Servers[name]
			first.Timeout, first.MaxListingBytes, first.MaxTools = ss.Timeout, ss.MaxListingBytes, ss.MaxTools
			first.CrossOriginRedirects = ss.CrossOriginRedirects
			first.LockResources = ss.Resources
			first.OAuth = ss.OAuth
			first.ClientCapabilities = p.Settings.ClientCapabilities
			if ss.ClientCapabilities != nil {
				first.ClientCapabilities = ss.ClientCapabilities
			} else if p.Settings.ClientCapabilities == nil {
				first.ClientCapabilities = groupCapabilities(group)
			}
			if len(first.ClientCapabilities) == 0 {
				first.ClientCapabilities = nil
			}
			p.Servers = append(p.Servers, first)
		}
	}
	slices.SortStableFunc(skipped, func(a, b Skipped) int {
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		return strings.Compare(a.File, b.File)
	})
	p.Skipped = skipped
	return p, errs
}

// groupCapabilities is the default client-capabilities of a server
// defined by group (one definition per file): the union of what the
// clients reading each of those files declare (declaredCapabilities).
func groupCapabilities(group []Server) []string {
	var caps []string
	for _, d := range group {
		caps = append(caps, declaredCapabilities(d.File, d.Client)...)
	}
	slices.Sort(caps)
	return slices.Compact(caps)
}

func applyRenames(st Settings, defs []Server) ([]Server, *Error) {
	for i, r := range st.Renames {
		hit := false
		for j := range defs {
			if defs[j].File == r.File && defs[j].Name == r.Server {
				defs[j].RenamedFrom = defs[j].Name
				defs[j].Name, hit = r.To, true
			}
		}
		if !hit {
			return nil, st.errAt(fmt.Sprintf("rename[%d]", i), fmt.Sprintf("no server %q in %s", r.Server, r.File),
				"check file and server (the file must be read and the server enabled), or remove this [[rename]]")
		}
	}
	return defs, nil
}

// checkServerSettings rejects [servers.NAME] tables naming no server.
func (p *Project) checkServerSettings(defs []Server, skipped []Skipped) *Error {
	known := map[string]bool{}
	for _, d := range defs {
		known[d.Name] = true
	}
	for _, s := range skipped {
		known[s.Name] = true
	}
	for _, name := range slices.Sorted(maps.Keys(p.Settings.Servers)) {
		if !known[name] {
			names := slices.Sorted(maps.Keys(known))
			return p.Settings.errAt("servers."+name, "no server of that name in any config file",
				"servers are: "+strings.Join(names, ", ")+"; fix the name or remove the table")
		}
	}
	return nil
}

// checkWrappers refuses every wrapper (Server.Guard) of defs whose options
// are not what agentgate wrap writes for this repository (Guard.Unlike),
// servers agentgate.toml excludes aside: guard's options decide what it
// checks in the client's session, and lock, the hook and ci check the
// server without them. It also refuses every wrapper while the root holds
// a file a Windows client would run for the bare name agentgate
// (plantedAgentgate).
func (p *Project) checkWrappers(defs []Server) Errors {
	lockfile := p.Settings.MovedLockfile()
	var errs Errors
	planted, looked := "", false
	for _, d := range defs {
		if d.Guard == nil || p.Settings.Servers[d.Name].Exclude != "" {
			continue
		}
		if !looked {
			planted, looked = p.plantedAgentgate(), true
		}
		if planted != "" {
			errs = append(errs, &Error{File: d.File, Line: d.Line, Column: d.Column, Server: d.Name, Field: "command",
				Msg:  fmt.Sprintf("the repository holds %s at its root: on Windows a client looks the bare command agentgate up in its working directory before PATH, and would run that file instead of agentgate", planted),
				Hint: fmt.Sprintf("remove or rename %s", planted)})
			continue
		}
		if flag, why := d.Guard.Unlike(d.Name, lockfile); flag != "" {
			errs = append(errs, &Error{File: d.File, Line: d.Line, Column: d.Column, Server: d.Name, Field: "args",
				Msg: fmt.Sprintf("guard's %s is not what agentgate wrap writes for this repository: %s", flag, why),
				Hint: fmt.Sprintf("remove it: agentgate wrap writes agentgate guard --server %s%s [--on-drift block] -- COMMAND ARGS... (docs/GUARD.md)",
					syntax.ShellQuote(d.Name), map[bool]string{true: " --lockfile " + syntax.ShellQuote(lockfile), false: ""}[lockfile != ""])})
		}
	}
	return errs
}

// agentgateNames are the files a client on Windows runs for the bare
// command agentgate when one is in its working directory: Node's spawn
// (libuv) searches the working directory before PATH, with .com and .exe,
// and cmd.exe with PATHEXT's .bat and .cmd.
var agentgateNames = []string{"agentgate", "agentgate.bat", "agentgate.cmd", "agentgate.com", "agentgate.exe"}

// plantedAgentgate returns the name of a file (or link) at p's root that
// is one of agentgateNames in any case, "" when there is none.
func (p *Project) plantedAgentgate() string {
	entries, err := os.ReadDir(p.Root)
	if err != nil {
		return ""
	}
	for _, e := range entries {
		if !e.IsDir() && slices.ContainsFunc(agentgateNames, func(n string) bool { return strings.EqualFold(n, e.Name()) }) {
			return e.Name()
		}
	}
	return ""
}

func conflict(a, b Server, field string) *Error {
	return &Error{File: b.File, Line: b.Line, Column: b.Column, Server: b.Name, Field: field,
		Msg: fmt.Sprintf("defined differently in %s:%d and %s:%d", a.File, a.Line, b.File, b.Line),
		Hint: fmt.Sprintf("make both definitions identical, or in agentgate.toml ignore one file (ignore = [%q]), "+
			"or lock one under another name ([[rename]] file = %q, server = %q, to = \"%s-%s\")", b.File, b.File, b.Name, b.Name, b.Client)}
}

// differ returns the first field in which two definitions differ, or "".
//
// Two definitions are the same when transport, command, args, env (Codex
// env_vars count as NAME = ${env:NAME}), envFile, cwd, url and headers
// (names compared case-insensitively; Codex bearer_token_env_var and
// env_http_headers count as headers from ${env:NAME}) are equal after each
// template is translated into one neutral syntax: a client's reference to
// environment variable X, in any syntax, equals any other client's
// reference to X; a literal never equals a reference, and the environment
// is never read. agentgate starts every stdio server in the repository
// root, so in command, args, envFile and cwd a leading ${workspaceFolder}/
// equals "./", and ${workspaceFolder} alone equals "."; in cwd and envFile,
// which are paths relative to the root, "x" also equals "./x" (a cwd of "",
// "." or ${workspaceFolder} is the root); in command and args a bare "x" is
// not "./x" (a command is looked up on PATH, an argument may name a
// package). SSE fallback is not
// compared: the first definition (in file order) decides it.
func differ(a, b Server) string {
	fa, fb := identity(a), identity(b)
	for i := range fa {
		if fa[i][1] != fb[i][1] {
			return fa[i][0]
		}
	}
	return ""
}

func identity(s Server) [][2]string {
	c := func(field, t string) string {
		segs, err := syntax.ParseTemplate(syntax.ForField(s.Syntax, field), t)
		if err != nil {
			return "\x00invalid:" + t
		}
		return syntax.Canonical(segs)
	}
	local := func(field, t string) string {
		v := c(field, t)
		if v == "${workspaceFolder}" || v == "./" {
			return "."
		}
		if rest, ok := strings.CutPrefix(v, "${workspaceFolder}/"); ok {
			return "./" + rest
		}
		return v
	}
	// cwd and envFile are paths relative to the root: "x" is "./x".
	dir := func(field, t string) string {
		v := strings.TrimPrefix(local(field, t), "./")
		if v == "." {
			return ""
		}
		return v
	}
	env := map[string]string{}
	for k, v := range s.Env {
		env[k] = c("env."+k, v)
	}
	for _, k := range s.EnvVars {
		if _, ok := env[k]; !ok {
			env[k] = "${env:" + k + "}"
		}
	}
	hdr := map[string]string{}
	for k, v := range s.Headers {
		hdr[syntax.CanonicalHeaderKey(k)] = c("headers."+k, v)
	}
	for k, v := range s.EnvHeaders {
		hdr[syntax.CanonicalHeaderKey(k)] = "${env:" + v + "}"
	}
	if s.BearerTokenEnvVar != "" {
		hdr["Authorization"] = "Bearer ${env:" + s.BearerTokenEnvVar + "}"
	}
	args := make([]string, len(s.Args))
	for i, a := range s.Args {
		args[i] = fmt.Sprintf("%q", local(fmt.Sprintf("args[%d]", i), a))
	}
	return [][2]string{
		{"transport", string(s.Transport)},
		{"command", local("command", s.Command)},
		{"args", strings.Join(args, " ")},
		{"env", kv(env)},
		{"envFile", dir("envFile", s.EnvFile)},
		{"cwd", dir("cwd", s.Cwd)},
		{"url", c("url", s.URL)},
		{"headers", kv(hdr)},
		{"http_headers_helper", s.HeadersHelper},
	}
}

func kv(m map[string]string) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(m)) {
		fmt.Fprintf(&b, "%q=%q;", k, m[k])
	}
	return b.String()
}
