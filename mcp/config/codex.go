package config

// parseCodex reads .codex/config.toml: [mcp_servers.NAME] tables with
// command, args, env, env_vars (names forwarded from the environment), cwd,
// or url (streamable HTTP only), bearer_token_env_var, http_headers and
// env_http_headers (header name -> environment variable name);
// "enabled = false" disables. Codex has no interpolation syntax.
func parseCodex(file string, root *node) (fileResult, error) {
	p := &parser{file: file, client: "codex", syn: SyntaxNone}
	servers, err := p.object(root.get("mcp_servers"), "mcp_servers")
	if err != nil {
		return fileResult{}, err
	}
	res := p.eachServer(servers, "a table (the server definition)", func(name string, at pos, e *node) (Server, string, entryErrs) {
		if why, errs := enabledFlag(p, e, name); why != "" || errs != nil {
			return Server{}, why, errs
		}
		s := Server{Name: name, Client: "codex", File: file, Line: at.line, Column: at.col, Syntax: SyntaxNone}
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
		case url != nil:
			s.Transport = StreamableHTTP
			s.URL = errs.str(p.str(url, name, "url"))
			if len(errs) == 0 && s.URL == "" {
				errs.add(p.errAt(url.pos, name, "url", "empty", ""))
			}
			s.Headers = errs.strMap(p.strMapAll(e.get("http_headers"), name, "http_headers", false))
			s.EnvHeaders = errs.strMap(p.strMapAll(e.get("env_http_headers"), name, "env_http_headers", false))
			s.BearerTokenEnvVar = errs.str(p.str(e.get("bearer_token_env_var"), name, "bearer_token_env_var"))
		default:
			errs.add(p.errAt(at, name, "", `needs "command" (local server) or "url" (remote server)`, ""))
		}
		return s, "", errs
	})
	return p.result(res)
}
