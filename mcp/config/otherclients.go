package config

import (
	"fmt"
	"strings"

	"github.com/agentgate/agentgate/mcp/config/syntax"
)

// parseZed reads .zed/settings.json: "context_servers", each with command
// (a string, or the legacy {path, args, env} object), args, env, or url and
// headers; "enabled": false disables. Entries without command or url are
// provided by Zed extensions and are skipped.
func parseZed(file string, root *node) (fileResult, error) {
	p := &parser{file: file, client: "zed", syn: syntax.None}
	if err := p.topObject(root); err != nil {
		return fileResult{}, err
	}
	servers, err := p.object(root.get("context_servers"), "context_servers")
	if err != nil {
		return fileResult{}, err
	}
	res := p.eachServer(servers, "an object (the server definition)", func(name string, at pos, e *node) (Server, string, entryErrs) {
		if why, errs := enabledFlag(p, e, name); why != "" || errs != nil {
			return Server{}, why, errs
		}
		s := Server{Name: name, Client: "zed", File: file, Line: at.line, Column: at.col, Syntax: syntax.None}
		var errs entryErrs
		cmd, url := e.get("command"), e.get("url")
		switch {
		case present(cmd) && present(url):
			errs.add(p.errAt(at, name, "", `has both "command" and "url"`, `keep one of them`))
			return s, "", errs
		case cmd != nil && cmd.kind == kObj: // legacy {"command": {"path", "args", "env"}}
			s.Transport = Stdio
			s.Command = errs.str(p.str(cmd.get("path"), name, "command.path"))
			s.Args = errs.strs(p.strsAll(cmd.get("args"), name, "command.args"))
			s.Env = errs.strMap(p.strMapAll(cmd.get("env"), name, "command.env", false))
		case present(cmd):
			s.Transport = Stdio
			s.Command = errs.str(p.str(cmd, name, "command"))
			s.Args = errs.strs(p.strsAll(e.get("args"), name, "args"))
			s.Env = errs.strMap(p.strMapAll(e.get("env"), name, "env", false))
		case present(url):
			s.Transport = StreamableHTTP
			s.URL = errs.str(p.str(url, name, "url"))
			s.Headers = errs.strMap(p.strMapAll(e.get("headers"), name, "headers", false))
		default:
			return s, "provided by a Zed extension (no command or url): agentgate cannot start it", nil
		}
		if len(errs) == 0 && s.Transport == Stdio && s.Command == "" {
			errs.add(p.errAt(at, name, "command", "empty command", `set "command" to the program to run`))
		}
		return s, "", errs
	})
	return p.result(res)
}

// parseOpencode reads opencode.json(c) as opencode reads it: servers are
// the members of "mcp" (its V1 shape), and, when "mcp.servers" is an object
// of servers rather than a server named "servers", also its members (the V2
// envelope; a name defined both ways is taken from "mcp.NAME", as opencode
// does). Each is "type": "local" (command as one argv array, environment,
// cwd) or "remote" (url, headers; streamable HTTP with SSE fallback).
// "enabled": false disables, and so does V2's "disabled": true when
// "enabled" is absent ("enabled" wins). An entry without "type" that has a
// boolean "enabled" only toggles a server defined in another opencode
// config (the user's), so it is skipped; a V2 global "mcp.timeout" table is
// not a server. Sources: anomalyco/opencode packages/core/src/v1/config
// (ConfigMCPV1) and packages/opencode/src/config/v2-compat.ts.
func parseOpencode(file string, root *node) (fileResult, error) {
	p := &parser{file: file, client: "opencode", syn: syntax.Opencode}
	if err := p.topObject(root); err != nil {
		return fileResult{}, err
	}
	mcp, err := p.object(root.get("mcp"), "mcp")
	if err != nil {
		return fileResult{}, err
	}
	flat, envelope := opencodeServers(mcp)
	res := p.eachServer(flat, "an object (the server definition)", func(name string, at pos, e *node) (Server, string, entryErrs) {
		return opencodeEntry(p, name, at, e)
	})
	if envelope != nil {
		inner := p.eachServer(envelope, "an object (the server definition)", func(name string, at pos, e *node) (Server, string, entryErrs) {
			if flat.has(name) {
				return Server{}, fmt.Sprintf("also defined as mcp.%s, which opencode uses instead of mcp.servers.%s", name, name), nil
			}
			return opencodeEntry(p, name, at, e)
		})
		res.servers = append(res.servers, inner.servers...)
		res.skipped = append(res.skipped, inner.skipped...)
	}
	return p.result(res)
}

// opencodeServers splits opencode's "mcp" object into the servers written
// as its members and, when "mcp.servers" is V2's envelope, the servers in
// it. As opencode's lowering (isDirectServer) decides, "servers" is an
// envelope unless it has a "type" or "enabled" member that is not an
// object (then it is a server named "servers"); "mcp.timeout" is V2's
// global timeout table, not a server, when it is an object that is not a
// server and is empty or has "startup", "catalog" or "execution".
func opencodeServers(mcp *node) (flat, envelope *node) {
	if mcp == nil {
		return nil, nil
	}
	direct := func(n *node) bool {
		for _, k := range []string{"type", "enabled"} {
			if v := n.get(k); v != nil && v.kind != kObj {
				return true
			}
		}
		return false
	}
	flat = &node{kind: kObj, pos: mcp.pos}
	for i, k := range mcp.keys {
		v := mcp.vals[i]
		switch {
		case k == "servers" && v.kind == kObj && !direct(v):
			envelope = v
			continue
		case k == "timeout" && v.kind == kObj && !direct(v) &&
			(len(v.keys) == 0 || v.has("startup") || v.has("catalog") || v.has("execution")):
			continue
		}
		flat.keys, flat.keyPos, flat.vals = append(flat.keys, k), append(flat.keyPos, mcp.keyPos[i]), append(flat.vals, v)
	}
	return flat, envelope
}

// opencodeEntry reads one opencode server entry.
func opencodeEntry(p *parser, name string, at pos, e *node) (Server, string, entryErrs) {
	var errs entryErrs
	enabled, hasEnabled, err := p.boolean(e.get("enabled"), name, "enabled")
	errs.add(err)
	disabled, hasDisabled, err := p.boolean(e.get("disabled"), name, "disabled")
	errs.add(err)
	if len(errs) > 0 {
		return Server{}, "", errs
	}
	typ := e.get("type")
	switch {
	case typ == nil && hasEnabled && !enabled:
		return Server{}, `disabled ("enabled": false)`, nil
	case typ == nil && hasEnabled:
		return Server{}, `only "enabled": true, no "type": it switches on a server defined in another opencode config (the user's), which agentgate does not read`, nil
	case hasEnabled && !enabled:
		return Server{}, `disabled ("enabled": false)`, nil
	case !hasEnabled && hasDisabled && disabled:
		if t := e.get("timeout"); t != nil && t.kind == kNum {
			// "disabled" is a V2 member; V2's timeout is a table. With a
			// number timeout the entry is V1, where "disabled" does not
			// exist: whether opencode honours it is not certain.
			errs.add(p.errAt(e.get("disabled").pos, name, "disabled", `"disabled" is opencode's V2 form, whose "timeout" is a table; with a number "timeout" opencode reads the entry as V1, which has no "disabled"`,
				`write "enabled": false instead`))
			return Server{}, "", errs
		}
		return Server{}, `disabled ("disabled": true)`, nil
	}
	s := Server{Name: name, Client: "opencode", File: p.file, Line: at.line, Column: at.col, Syntax: syntax.Opencode}
	switch t := errs.str(p.plain(typ, name, "type")); {
	case len(errs) > 0:
	case t == "local":
		s.Transport = Stdio
		cmd := e.get("command")
		if cmd != nil && cmd.kind == kStr {
			errs.add(p.errAt(cmd.pos, name, "command", "expected an array of strings, found a string",
				`write it as one argv array: "command": ["npx", "-y", "pkg"]`))
		} else {
			argv := errs.strs(p.strsAll(cmd, name, "command"))
			if len(errs) == 0 && (len(argv) == 0 || argv[0] == "") {
				errs.add(p.errAt(at, name, "command", "missing: a local server needs a command array",
					`write it as one argv array: "command": ["npx", "-y", "pkg"]`))
			}
			if len(argv) > 0 {
				s.Command, s.Args = argv[0], argv[1:]
			}
		}
		s.Env = errs.strMap(p.strMapAll(e.get("environment"), name, "environment", false))
		s.Cwd = errs.str(p.str(e.get("cwd"), name, "cwd"))
	case t == "remote":
		s.Transport, s.FallbackSSE = StreamableHTTP, true
		s.URL = errs.str(p.str(e.get("url"), name, "url"))
		if len(errs) == 0 && s.URL == "" {
			errs.add(p.errAt(at, name, "url", "missing: a remote server needs a URL", `add "url"`))
		}
		s.Headers = errs.strMap(p.strMapAll(e.get("headers"), name, "headers", false))
	default:
		where := at
		if typ != nil {
			where = typ.pos
		}
		msg := "missing"
		if t != "" {
			msg = fmt.Sprintf("unknown value %q", t)
		}
		errs.add(p.errAt(where, name, "type", msg, `use "type": "local" (command array) or "type": "remote" (url)`))
	}
	return s, "", errs
}

// parseContinue reads one .continue/mcpServers/*.yaml block: "mcpServers"
// is a list of items with "name", "type" (stdio, sse, streamable-http;
// optional), command, args, env, cwd, url and requestOptions.headers. A bare
// url is streamable HTTP with SSE fallback. Items that only say "uses:" (hub
// references) cannot be resolved offline and are skipped.
func parseContinue(file string, root *node) (fileResult, error) {
	p := &parser{file: file, client: "continue", syn: syntax.Continue}
	var res fileResult
	if root.kind == kNull {
		return res, nil
	}
	if err := p.topObject(root); err != nil {
		return res, err
	}
	list := root.get("mcpServers")
	if list == nil || list.kind == kNull {
		return res, nil
	}
	if list.kind != kArr {
		return res, p.typeErr(list, "", "mcpServers", "a list of servers (each with a name)")
	}
	seen := map[string]int{}
	for i, e := range list.items {
		field := fmt.Sprintf("mcpServers[%d]", i)
		if e.kind != kObj {
			p.add(p.typeErr(e, "", field, "a mapping (the server definition)"))
			continue
		}
		if uses := e.get("uses"); uses != nil && !e.has("name") {
			ref, _ := p.plain(uses, "", field+".uses")
			res.skipped = append(res.skipped, Skipped{Name: ref, File: file,
				Reason: "hub reference (uses: " + ref + ") cannot be resolved offline; define the server inline to lock it"})
			continue
		}
		name, err := p.plain(e.get("name"), "", field+".name")
		if err != nil {
			p.add(err)
			continue
		}
		if name == "" {
			p.add(p.errAt(e.pos, "", field+".name", "missing", "give every server a name"))
			continue
		}
		at := e.pos
		if n := e.get("name"); n != nil {
			at = n.pos
		}
		if first, dup := seen[name]; dup {
			p.add(p.errAt(at, name, "name", fmt.Sprintf("server defined twice in this file (lines %d and %d)", first, at.line), "remove or rename one of them"))
			continue
		}
		seen[name] = at.line
		entry := &node{kind: kObj, pos: e.pos}
		for j, k := range e.keys {
			if k == "requestOptions" {
				continue
			}
			entry.keys, entry.keyPos, entry.vals = append(entry.keys, k), append(entry.keyPos, e.keyPos[j]), append(entry.vals, e.vals[j])
		}
		if ro := e.get("requestOptions"); ro != nil && ro.kind != kNull {
			if ro.kind != kObj {
				p.add(p.typeErr(ro, name, "requestOptions", "a mapping"))
				continue
			}
			if h := ro.get("headers"); h != nil {
				entry.keys, entry.keyPos, entry.vals = append(entry.keys, "headers"), append(entry.keyPos, h.pos), append(entry.vals, h)
			}
		}
		s, errs := continueYAML.server(p, name, at, entry)
		for _, err := range errs {
			if err.Field == "headers" || strings.HasPrefix(err.Field, "headers.") {
				err.Field = "requestOptions." + err.Field
			}
			p.add(err)
		}
		if len(errs) == 0 {
			res.servers = append(res.servers, s)
		}
	}
	return p.result(res)
}

// enabledFlag reads the "enabled" member of Zed, opencode and Codex entries:
// false disables the entry.
func enabledFlag(p *parser, e *node, name string) (skip string, errs entryErrs) {
	reason := `"enabled": false`
	if p.client == "codex" {
		reason = "enabled = false"
	}
	why, err := p.disabledBy(e, name, "enabled", false, reason)
	errs.add(err)
	return why, errs
}
