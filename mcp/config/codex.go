package config

// parseCodex reads .codex/config.toml: [mcp_servers.NAME] tables with
// command, args, env, env_vars (names forwarded from the environment), cwd,
// or url (streamable HTTP only), bearer_token_env_var, http_headers and
// env_http_headers (header name -> environment variable name);
// "enabled = false" disables. Codex has no interpolation syntax.
func parseCodex(file string, root *node) (fileResult, error) {
	p := &parser{file: file, client: "codex", syn: SyntaxNone}
	var res fileResult
	servers, err := p.object(root.get("mcp_servers"), "mcp_servers")
	if err != nil || servers == nil {
		return res, errOrNil(err)
	}
	for i, name := range servers.keys {
		e, at := servers.vals[i], servers.keyPos[i]
		if e.kind != kObj {
			return res, p.typeErr(e, name, "", "a table (the server definition)")
		}
		en, ok, err := p.boolean(e.get("enabled"), name, "enabled")
		if err != nil {
			return res, err
		}
		if ok && !en {
			res.skipped = append(res.skipped, Skipped{Name: name, File: file, Reason: "disabled (enabled = false)"})
			continue
		}
		s := Server{Name: name, Client: "codex", File: file, Line: at.line, Column: at.col, Syntax: SyntaxNone}
		cmd, url := e.get("command"), e.get("url")
		switch {
		case cmd != nil && url != nil:
			return res, p.errAt(at, name, "", `has both "command" and "url"`, `keep "command" for a local (stdio) server or "url" for a remote one`)
		case cmd != nil:
			s.Transport = Stdio
			if s.Command, err = p.str(cmd, name, "command"); err != nil {
				return res, err
			}
			if s.Command == "" {
				return res, p.errAt(cmd.pos, name, "command", "empty", "")
			}
			if s.Args, err = p.strs(e.get("args"), name, "args"); err != nil {
				return res, err
			}
			if s.Env, err = p.strMap(e.get("env"), name, "env", false); err != nil {
				return res, err
			}
			if s.EnvVars, err = p.strs(e.get("env_vars"), name, "env_vars"); err != nil {
				return res, err
			}
			if s.Cwd, err = p.str(e.get("cwd"), name, "cwd"); err != nil {
				return res, err
			}
		case url != nil:
			s.Transport = StreamableHTTP
			if s.URL, err = p.str(url, name, "url"); err != nil {
				return res, err
			}
			if s.URL == "" {
				return res, p.errAt(url.pos, name, "url", "empty", "")
			}
			if s.Headers, err = p.strMap(e.get("http_headers"), name, "http_headers", false); err != nil {
				return res, err
			}
			if s.EnvHeaders, err = p.strMap(e.get("env_http_headers"), name, "env_http_headers", false); err != nil {
				return res, err
			}
			if s.BearerTokenEnvVar, err = p.str(e.get("bearer_token_env_var"), name, "bearer_token_env_var"); err != nil {
				return res, err
			}
		default:
			return res, p.errAt(at, name, "", `needs "command" (local server) or "url" (remote server)`, "")
		}
		res.servers = append(res.servers, s)
	}
	return res, nil
}
