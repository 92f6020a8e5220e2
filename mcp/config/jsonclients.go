package config

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/agentgate/agentgate/mcp/config/syntax"
)

// jsonClient describes one client whose config is a JSON(C) object holding a
// map of servers, each with command/args/env or url/headers.
type jsonClient struct {
	syntax   syntax.Vars
	key      string   // member holding the servers
	urlKeys  []string // members naming the URL, first present wins
	disabled string   // member that disables an entry when true
	enabled  string   // member that disables an entry when false
	cwd      bool     // reads "cwd"
	// cwdNote: "cwd" is not read, but a server that has one carries a note
	// saying so (Cursor documents no "cwd"; some versions may honour it).
	cwdNote    bool
	envFile    bool // reads "envFile"
	envNumbers bool // env values may be numbers or null
	// bothOK: command and url together are not an error; the transport
	// decides which one is used and the other is ignored.
	bothOK bool
	// shared: the file holds other settings too (Gemini's settings.json),
	// so a missing servers member says nothing.
	shared bool
	// strictKey: a non-empty file without the servers member is refused,
	// as the client refuses it (Cursor, Continue, Claude Code, Roo Code).
	strictKey bool
	// singleFile: a file without the servers member that has "command" or
	// "url" is one server named after the file (Continue).
	singleFile bool
	// bare: a file without the servers member is itself the map of
	// servers when one of its members is an object with "command" or
	// "url" (Copilot CLI's "Claude-style" form, {"NAME": {...}}).
	bare bool
	// transport decides the transport from the "type" member (may be ""),
	// the URL member used ("" if none) and whether a command is present.
	// It returns a message and a hint on error.
	transport func(typ, urlKey string, hasCmd bool) (t Transport, fallback bool, msg, hint string)
}

func inferStdioOr(remote Transport, fallback bool) func(typ, urlKey string, hasCmd bool) (Transport, bool, string, string) {
	return func(typ, urlKey string, hasCmd bool) (Transport, bool, string, string) {
		if urlKey == "" || hasCmd {
			return Stdio, false, "", ""
		}
		return remote, fallback, "", ""
	}
}

// serverKeys are the members that hold servers in one client or another;
// finding another client's key where this client's is missing means the
// file was copied from another client and the servers would be ignored.
var serverKeys = []string{"mcpServers", "servers", "context_servers", "mcp", "mcp_servers"}

// ServersMember returns the member of client's JSON config file that
// holds its servers ("mcpServers", "servers", "context_servers", "mcp"),
// and bare: the client also reads a file without that member as the map
// of servers itself when one of its members is an object with "command"
// or "url" (Copilot CLI). key is "" for a client whose config is not
// JSON.
func ServersMember(client string) (key string, bare bool) {
	switch client {
	case "zed":
		return "context_servers", false
	case "opencode":
		return "mcp", false
	}
	c := jsonClients[client]
	return c.key, c.bare
}

var jsonClients = map[string]jsonClient{
	"claude-code": {syntax: syntax.Claude, key: "mcpServers", urlKeys: []string{"url"}, strictKey: true,
		transport: func(typ, urlKey string, hasCmd bool) (Transport, bool, string, string) {
			switch typ {
			case "", "stdio":
				if typ == "" && urlKey != "" && !hasCmd {
					return "", false, `"type" is required for a remote server`, `add "type": "http" (streamable HTTP) or "type": "sse"`
				}
				return Stdio, false, "", ""
			case "http", "streamable-http":
				return StreamableHTTP, false, "", ""
			case "sse":
				return SSE, false, "", ""
			case "ws":
				return "", false, `WebSocket servers ("type": "ws") are not supported by agentgate`,
					`exclude the server in agentgate.toml ([servers.NAME] exclude = "reason") and review it by hand`
			}
			return unknownType(typ, "stdio", "http", "streamable-http", "sse")
		}},
	"claude-desktop": {syntax: syntax.None, key: "mcpServers", urlKeys: []string{"url"},
		transport: func(typ, urlKey string, hasCmd bool) (Transport, bool, string, string) {
			if urlKey != "" && !hasCmd {
				return "", false, "Claude Desktop's config file supports stdio servers only", `use "command" and "args"`
			}
			return Stdio, false, "", ""
		}},
	"cursor":   {syntax: syntax.Cursor, key: "mcpServers", urlKeys: []string{"url"}, envFile: true, strictKey: true, cwdNote: true, transport: typed(true)},
	"vscode":   {syntax: syntax.VSCode, key: "servers", urlKeys: []string{"url"}, cwd: true, envFile: true, envNumbers: true, transport: typed(true)},
	"continue": continueJSON,
	"gemini": {syntax: syntax.Gemini, key: "mcpServers", urlKeys: []string{"httpUrl", "url"}, cwd: true, bothOK: true, shared: true,
		transport: func(typ, urlKey string, hasCmd bool) (Transport, bool, string, string) {
			switch {
			case urlKey == "httpUrl":
				return StreamableHTTP, false, "", ""
			case urlKey == "":
				return Stdio, false, "", ""
			case typ == "http":
				return StreamableHTTP, false, "", ""
			case typ == "sse":
				return SSE, false, "", ""
			case typ == "":
				return StreamableHTTP, true, "", ""
			}
			return unknownType(typ, "http", "sse")
		}},
	// Qwen Code (a fork of Gemini CLI) reads Gemini's format, but (Qwen
	// Code 0.15.10, observed with "qwen mcp list") a "url" is SSE whatever
	// its "type", "httpUrl" is streamable HTTP, mcp.excluded / mcp.allowed
	// (and the older keys) are not applied, and ${NAME:-default} is not
	// expanded.
	"qwen": {syntax: syntax.Qwen, key: "mcpServers", urlKeys: []string{"httpUrl", "url"}, cwd: true, bothOK: true, shared: true,
		transport: func(typ, urlKey string, hasCmd bool) (Transport, bool, string, string) {
			switch urlKey {
			case "httpUrl":
				return StreamableHTTP, false, "", ""
			case "url":
				return SSE, false, "", ""
			}
			return Stdio, false, "", ""
		}},
	// Copilot CLI's .github/mcp.json (Copilot CLI 1.0.102, observed): the
	// servers under "mcpServers" or at the top level; "type" "local" or
	// "stdio" needs "command", "http" or "sse" needs "url"; without
	// "type" a command wins over a url, and a bare url is streamable
	// HTTP. No per-entry disable flag.
	"copilot": {syntax: syntax.Copilot, key: "mcpServers", urlKeys: []string{"url"}, cwd: true, bothOK: true, strictKey: true, bare: true,
		transport: func(typ, urlKey string, hasCmd bool) (Transport, bool, string, string) {
			switch typ {
			case "":
				if hasCmd || urlKey == "" {
					return Stdio, false, "", ""
				}
				return StreamableHTTP, false, "", ""
			case "local", "stdio":
				return Stdio, false, "", ""
			case "http":
				return StreamableHTTP, false, "", ""
			case "sse":
				return SSE, false, "", ""
			}
			return unknownType(typ, "local", "stdio", "http", "sse")
		}},
	"roo": {syntax: syntax.Roo, key: "mcpServers", urlKeys: []string{"url"}, disabled: "disabled", cwd: true, strictKey: true,
		transport: func(typ, urlKey string, hasCmd bool) (Transport, bool, string, string) {
			switch typ {
			case "", "stdio":
				if urlKey != "" && !hasCmd {
					return "", false, `"type" is required with "url"`, `add "type": "streamable-http" or "type": "sse"`
				}
				return Stdio, false, "", ""
			case "streamable-http":
				return StreamableHTTP, false, "", ""
			case "sse":
				return SSE, false, "", ""
			}
			return unknownType(typ, "stdio", "streamable-http", "sse")
		}},
	"kiro":  {syntax: syntax.Kiro, key: "mcpServers", urlKeys: []string{"url"}, disabled: "disabled", transport: inferStdioOr(StreamableHTTP, true)},
	"junie": {syntax: syntax.None, key: "mcpServers", urlKeys: []string{"url"}, transport: inferStdioOr(StreamableHTTP, false)},
	// Amazon Q: "type" ("stdio", the default, or "http") alone decides the
	// transport; the other of command and url is ignored (the Q CLI writes
	// "url": "" into stdio entries).
	"amazonq": {syntax: syntax.AmazonQ, key: "mcpServers", urlKeys: []string{"url"}, disabled: "disabled", bothOK: true,
		transport: func(typ, urlKey string, hasCmd bool) (Transport, bool, string, string) {
			switch typ {
			case "", "stdio":
				if !hasCmd && urlKey != "" {
					return "", false, `has "url" but no "type": "http"; Amazon Q starts an entry without "type" as a stdio server, which fails without "command"`,
						`add "type": "http" for a remote server`
				}
				return Stdio, false, "", ""
			case "http":
				return StreamableHTTP, false, "", ""
			}
			return unknownType(typ, "stdio", "http")
		}},
	"windsurf": {syntax: syntax.Windsurf, key: "mcpServers", urlKeys: []string{"serverUrl", "url"}, disabled: "disabled",
		transport: inferStdioOr(StreamableHTTP, true)},
	"cline": {syntax: syntax.None, key: "mcpServers", urlKeys: []string{"url"}, disabled: "disabled",
		transport: func(typ, urlKey string, hasCmd bool) (Transport, bool, string, string) {
			switch typ {
			case "":
				if urlKey != "" && !hasCmd {
					return SSE, false, "", ""
				}
				return Stdio, false, "", ""
			case "stdio":
				return Stdio, false, "", ""
			case "sse":
				return SSE, false, "", ""
			case "streamableHttp":
				return StreamableHTTP, false, "", ""
			}
			return unknownType(typ, "stdio", "sse", "streamableHttp")
		}},
}

// continueJSON is a JSON file in .continue/mcpServers: Claude-style entries
// that Continue converts to its YAML form (convertJsonMcpConfigToYamlMcpConfig):
// "type" "stdio", "http" (streamable HTTP) or "sse"; without "type" an
// entry with a url is remote (the URL schema is tried first) and tries
// streamable HTTP, then SSE; ${NAME} in env values becomes
// ${{ secrets.NAME }}; cwd and envFile are dropped. A file may also hold a
// single server (command or url at the top level), named after the file
// (loadJsonMcpConfigs); the Claude Code ~/.claude.json shape with
// "projects" is not read.
var continueJSON = jsonClient{syntax: syntax.ContinueJSON, key: "mcpServers", urlKeys: []string{"url"}, bothOK: true, strictKey: true, singleFile: true,
	transport: func(typ, urlKey string, hasCmd bool) (Transport, bool, string, string) {
		switch typ {
		case "":
			if urlKey != "" {
				return StreamableHTTP, true, "", ""
			}
			return Stdio, false, "", ""
		case "stdio":
			return Stdio, false, "", ""
		case "http":
			return StreamableHTTP, false, "", ""
		case "sse":
			return SSE, false, "", ""
		}
		return unknownType(typ, "stdio", "http", "sse")
	}}

// continueYAML is one item of a Continue YAML block's mcpServers list:
// "type" "stdio", "sse" or "streamable-http" (Continue's schema has no
// "http"); without "type" the stdio schema is tried first, so a command
// wins over a url; a bare url tries streamable HTTP, then SSE.
var continueYAML = jsonClient{syntax: syntax.Continue, key: "mcpServers", urlKeys: []string{"url"}, cwd: true, bothOK: true,
	transport: func(typ, urlKey string, hasCmd bool) (Transport, bool, string, string) {
		switch typ {
		case "":
			if urlKey != "" && !hasCmd {
				return StreamableHTTP, true, "", ""
			}
			return Stdio, false, "", ""
		case "stdio":
			return Stdio, false, "", ""
		case "streamable-http":
			return StreamableHTTP, false, "", ""
		case "sse":
			return SSE, false, "", ""
		}
		return unknownType(typ, "stdio", "sse", "streamable-http")
	}}

// typed is the Cursor / VS Code / Continue rule: "type" is optional; a bare
// url is streamable HTTP with SSE fallback when fallback is set.
func typed(fallback bool) func(typ, urlKey string, hasCmd bool) (Transport, bool, string, string) {
	return func(typ, urlKey string, hasCmd bool) (Transport, bool, string, string) {
		switch typ {
		case "":
			if urlKey != "" && !hasCmd {
				return StreamableHTTP, fallback, "", ""
			}
			return Stdio, false, "", ""
		case "stdio":
			return Stdio, false, "", ""
		case "http", "streamable-http", "streamableHttp":
			return StreamableHTTP, fallback, "", ""
		case "sse":
			return SSE, false, "", ""
		}
		return unknownType(typ, "stdio", "http", "sse")
	}
}

func unknownType(typ string, allowed ...string) (Transport, bool, string, string) {
	return "", false, fmt.Sprintf("unknown transport type %q", typ), "use one of: " + joinQuoted(allowed)
}

func joinQuoted(s []string) string {
	out := ""
	for i, v := range quoteAll(s) {
		if i > 0 {
			out += ", "
		}
		out += v
	}
	return out
}

// parseJSONClient parses a file of the given client.
func parseJSONClient(client, file string, root *node) (fileResult, error) {
	c := jsonClients[client]
	p := &parser{file: file, client: client, syn: c.syntax}
	if err := p.topObject(root); err != nil {
		return fileResult{}, err
	}
	if c.singleFile && !root.has(c.key) && (root.has("command") || root.has("url")) {
		// A Continue JSON file may hold one server, named after the file.
		name := strings.TrimSuffix(path.Base(file), path.Ext(file))
		s, errs := c.server(p, name, root.pos, root)
		if len(errs) > 0 {
			return fileResult{}, Errors(errs)
		}
		return fileResult{servers: []Server{s}}, nil
	}
	serversNode, serversKey := root.get(c.key), c.key
	if c.bare && serversNode == nil && bareServers(root) {
		serversNode, serversKey = root, ""
	} else if err := c.checkKey(p, root); err != nil {
		return fileResult{}, err
	}
	servers, err := p.object(serversNode, serversKey)
	if err != nil {
		return fileResult{}, err
	}
	excluded, allowed, gerr := geminiFilters(p, client, root)
	if gerr != nil {
		return fileResult{}, gerr
	}
	res := p.eachServer(servers, "an object (the server definition)", func(name string, at pos, e *node) (Server, string, entryErrs) {
		for _, flag := range []struct {
			field string
			off   bool
		}{{c.disabled, true}, {c.enabled, false}} {
			if flag.field == "" {
				continue
			}
			why, err := p.disabledBy(e, name, flag.field, flag.off, fmt.Sprintf("%q: %v", flag.field, flag.off))
			if err != nil {
				return Server{}, "", entryErrs{err}
			}
			if why != "" {
				return Server{}, why, nil
			}
		}
		if excluded[name] {
			return Server{}, "excluded in " + p.file + " (mcp.excluded)", nil
		}
		if allowed != nil && !allowed[name] {
			return Server{}, "not listed in " + p.file + " mcp.allowed", nil
		}
		s, errs := c.server(p, name, at, e)
		return s, "", errs
	})
	return p.result(res)
}

// bareServers reports whether a file without its servers member holds
// the servers at the top level: one member is an object with "command" or
// "url".
func bareServers(root *node) bool {
	for _, k := range root.keys {
		if e := root.get(k); e != nil && e.kind == kObj && (e.has("command") || e.has("url")) {
			return true
		}
	}
	return false
}

// checkKey refuses a file whose servers are under another client's key,
// or (strictKey) a non-empty file without the servers member at all: the
// client would read no server (or refuse the file), and a lockfile that
// pins nothing would pass.
func (c jsonClient) checkKey(p *parser, root *node) *Error {
	if c.shared || root.has(c.key) {
		return nil
	}
	for i, k := range root.keys {
		if k != c.key && slices.Contains(serverKeys, k) {
			return p.errAt(root.keyPos[i], "", k, fmt.Sprintf("this client reads its servers from %q, not %q", c.key, k),
				fmt.Sprintf("rename %q to %q (the file looks copied from another client's config)", k, c.key))
		}
	}
	if c.strictKey && len(root.keys) > 0 {
		return p.errAt(root.pos, "", c.key, fmt.Sprintf("missing: the client requires %q (an object of servers)", c.key),
			fmt.Sprintf(`put the servers under %q; an empty file ({}) or "%s": {} is fine`, c.key, c.key))
	}
	return nil
}

// geminiFilters reads Gemini's mcp.excluded / mcp.allowed (and the older
// top-level excludeMCPServers / allowMCPServers).
func geminiFilters(p *parser, client string, root *node) (excluded, allowed map[string]bool, err *Error) {
	if client != "gemini" {
		return nil, nil, nil
	}
	read := func(n *node, field string) (map[string]bool, *Error) {
		if n == nil || n.kind == kNull {
			return nil, nil
		}
		list, err := p.strs(n, "", field)
		if err != nil {
			return nil, err
		}
		m := map[string]bool{}
		for _, s := range list {
			m[s] = true
		}
		return m, nil
	}
	mcp := root.get("mcp")
	if mcp != nil && mcp.kind != kObj && mcp.kind != kNull {
		return nil, nil, p.typeErr(mcp, "", "mcp", "an object")
	}
	ex, a := mcp.get("excluded"), mcp.get("allowed")
	exF, aF := "mcp.excluded", "mcp.allowed"
	if ex == nil {
		ex, exF = root.get("excludeMCPServers"), "excludeMCPServers"
	}
	if a == nil {
		a, aF = root.get("allowMCPServers"), "allowMCPServers"
	}
	if excluded, err = read(ex, exF); err != nil {
		return nil, nil, err
	}
	allowed, err = read(a, aF)
	return excluded, allowed, err
}

// server builds a Server from one entry. It reports every field's first
// error; when the transport cannot be decided, only that error.
func (c jsonClient) server(p *parser, name string, at pos, e *node) (Server, entryErrs) {
	s := Server{Name: name, Client: p.client, File: p.file, Line: at.line, Column: at.col, Syntax: c.syntax}
	var errs entryErrs
	typ := errs.str(p.plain(e.get("type"), name, "type"))
	urlKey := ""
	for _, k := range c.urlKeys {
		if n := e.get(k); present(n) {
			urlKey = k
			s.URL = errs.str(p.str(n, name, k))
			break
		}
	}
	cmd := e.get("command")
	hasCmd := present(cmd)
	if hasCmd && urlKey != "" && !c.bothOK {
		errs.add(p.errAt(at, name, "", fmt.Sprintf("has both \"command\" and %q", urlKey),
			"keep \"command\" for a local (stdio) server or \""+urlKey+"\" for a remote one"))
		return s, errs
	}
	t, fb, msg, hint := c.transport(typ, urlKey, hasCmd)
	if msg != "" {
		where := at
		if n := e.get("type"); n != nil {
			where = n.pos
		}
		errs.add(p.errAt(where, name, "type", msg, hint))
		return s, errs
	}
	s.Transport, s.FallbackSSE = t, fb
	if t != Stdio {
		if s.URL == "" && len(errs) == 0 {
			errs.add(p.errAt(at, name, "url", "missing: a remote server needs a URL", "add \"url\""))
		}
		s.Headers = errs.strMap(p.strMapAll(e.get("headers"), name, "headers", false))
		return s, errs
	}
	s.URL = ""
	s.Command = errs.str(p.str(cmd, name, "command"))
	if s.Command == "" && len(errs) == 0 {
		errs.add(p.errAt(at, name, "command", "missing: a stdio server needs a command",
			"add \"command\" (and \"args\"), or \"url\" for a remote server"))
	}
	s.Args = errs.strs(p.strsAll(e.get("args"), name, "args"))
	s.Env = errs.strMap(p.strMapAll(e.get("env"), name, "env", c.envNumbers))
	if c.cwd {
		s.Cwd = errs.str(p.str(e.get("cwd"), name, "cwd"))
	} else if n := e.get("cwd"); c.cwdNote && n != nil && n.kind == kStr && n.str != "" {
		s.Notes = append(s.Notes, fmt.Sprintf(`"cwd" %q is not read (Cursor documents no "cwd"): agentgate starts the server in the repository root; a Cursor version that honours "cwd" would start it there`, n.str))
	}
	if c.envFile {
		s.EnvFile = errs.str(p.str(e.get("envFile"), name, "envFile"))
	}
	return s, errs
}

// present reports whether n is set: not absent, null or the empty string.
func present(n *node) bool {
	return n != nil && n.kind != kNull && !(n.kind == kStr && n.str == "")
}
