package config

import (
	"os"
	"path/filepath"

	"github.com/agentgate/agentgate/mcp/config/syntax"
)

// parseCodex reads .codex/config.toml: [mcp_servers.NAME] tables with
// command, args, env, env_vars (names forwarded from the environment), cwd,
// or url (streamable HTTP only), bearer_token_env_var, http_headers and
// env_http_headers (header name -> environment variable name);
// "enabled = false" disables. Codex has no interpolation syntax.
//
// An entry with neither "command" nor "url" is read as Codex reads it:
// Codex merges the user's config (CODEX_HOME/config.toml, by default
// ~/.codex/config.toml) under the project's, so such an entry is valid
// only where the user's config defines the server (it then toggles or
// adjusts the user's server, which agentgate does not lock: skipped);
// anywhere else Codex refuses the whole file ("invalid transport") and
// starts none of its servers, and so does agentgate (an error).
//
// http_headers_helper (a command Codex runs to compute the headers when it
// connects) is kept in Server.HeadersHelper: Resolve refuses such a server
// rather than connect without the headers; on a stdio entry it is an
// error, as Codex refuses the file ("http_headers_helper is not supported
// for stdio").
func parseCodex(file string, root *node) (fileResult, error) {
	p := &parser{file: file, client: "codex", syn: syntax.None}
	servers, err := p.object(root.get("mcp_servers"), "mcp_servers")
	if err != nil {
		return fileResult{}, err
	}
	res := p.eachServer(servers, "a table (the server definition)", func(name string, at pos, e *node) (Server, string, entryErrs) {
		if e.get("command") == nil && e.get("url") == nil {
			return codexLayer(p, e, name, at)
		}
		if why, errs := enabledFlag(p, e, name); why != "" || errs != nil {
			return Server{}, why, errs
		}
		s := Server{Name: name, Client: "codex", File: file, Line: at.line, Column: at.col, Syntax: syntax.None}
		var errs entryErrs
		cmd, url := e.get("command"), e.get("url")
		switch {
		case cmd != nil && url != nil:
			errs.add(p.errAt(at, name, "", `has both "command" and "url"`, `keep "command" for a local (stdio) server or "url" for a remote one`))
		case cmd != nil:
			s.Transport = Stdio
			s.Command = errs.str(p.str(cmd, name, "command"))
			if len(errs) == 0 && s.Command == "" {
				errs.add(p.errAt(cmd.pos, name, "command", "empty", ""))
			}
			s.Args = errs.strs(p.strsAll(e.get("args"), name, "args"))
			s.Env = errs.strMap(p.strMapAll(e.get("env"), name, "env", false))
			s.EnvVars = errs.strs(p.strsAll(e.get("env_vars"), name, "env_vars"))
			s.Cwd = errs.str(p.str(e.get("cwd"), name, "cwd"))
			if h := e.get("http_headers_helper"); h != nil {
				errs.add(p.errAt(h.pos, name, "http_headers_helper", "is not supported on a stdio server: Codex refuses the whole file (\"http_headers_helper is not supported for stdio\") and starts none of its servers",
					`remove http_headers_helper (it is for a "url" server), or make the entry a "url" server`))
			}
		case url != nil:
			s.Transport = StreamableHTTP
			s.URL = errs.str(p.str(url, name, "url"))
			if len(errs) == 0 && s.URL == "" {
				errs.add(p.errAt(url.pos, name, "url", "empty", ""))
			}
			s.Headers = errs.strMap(p.strMapAll(e.get("http_headers"), name, "http_headers", false))
			s.EnvHeaders = errs.strMap(p.strMapAll(e.get("env_http_headers"), name, "env_http_headers", false))
			s.BearerTokenEnvVar = errs.str(p.str(e.get("bearer_token_env_var"), name, "bearer_token_env_var"))
			s.HeadersHelper = errs.str(p.str(e.get("http_headers_helper"), name, "http_headers_helper"))
		}
		return s, "", errs
	})
	return p.result(res)
}

// codexLayer reads an entry with neither "command" nor "url": a layer
// over the server of the same name in the user's Codex config, or an
// error where that config does not define it (see parseCodex).
func codexLayer(p *parser, e *node, name string, at pos) (Server, string, entryErrs) {
	var errs entryErrs
	_, _, err := p.boolean(e.get("enabled"), name, "enabled")
	if errs.add(err); len(errs) > 0 {
		return Server{}, "", errs
	}
	if codexUserDefines(name) {
		why := "adjusts the server of the same name in your own Codex config (" + codexUserConfigShown() + "), which agentgate does not lock"
		if reason, _ := p.disabledBy(e, name, "enabled", false, "enabled = false"); reason != "" {
			why = reason + "; it " + why
		}
		return Server{}, why, nil
	}
	errs.add(p.errAt(at, name, "", `has no transport ("command" or "url"): Codex refuses the whole file ("invalid transport in `+"`mcp_servers."+name+"`"+`") and starts none of its servers`,
		`add "command" (a local server) or "url" (a remote one), or remove the entry; an entry with only "enabled = false" is valid only where the user's own ~/.codex/config.toml defines the server`))
	return Server{}, "", errs
}

// codexUserConfig is the user's Codex config: CODEX_HOME/config.toml, or
// ~/.codex/config.toml; "" when there is no home directory.
func codexUserConfig() string {
	if h := os.Getenv("CODEX_HOME"); h != "" {
		return filepath.Join(h, "config.toml")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".codex", "config.toml")
}

// codexUserConfigShown names the user's Codex config in a message.
func codexUserConfigShown() string {
	if os.Getenv("CODEX_HOME") != "" {
		return "$CODEX_HOME/config.toml"
	}
	return "~/.codex/config.toml"
}

// codexUserDefines reports whether the user's Codex config defines server
// name with a transport ([mcp_servers.NAME] with "command" or "url"). A
// missing, unreadable or invalid file defines nothing (Codex would not
// start with an invalid one either); nothing of the file is ever quoted.
func codexUserDefines(name string) bool {
	f := codexUserConfig()
	if f == "" {
		return false
	}
	data, err := readLimited(f)
	if err != nil {
		return false
	}
	root, perr := parseTOML(f, data)
	if perr != nil {
		return false
	}
	e := root.get("mcp_servers").get(name)
	return e != nil && e.kind == kObj && (present(e.get("command")) || present(e.get("url")))
}
