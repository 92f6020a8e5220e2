package configedit

import (
	"encoding/base64"
	"fmt"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/agentgate/agentgate/mcp/config"
	"github.com/agentgate/agentgate/mcp/config/syntax"
	"github.com/agentgate/agentgate/mcp/guardargs"
)

// wrap_remote.go turns a remote server's entry into a stdio entry that
// runs `agentgate guard --url`, and back.
//
// A remote entry's members that make it remote (its URL, transport type,
// headers, and each client's own spellings) are one run of members in
// the file. Wrap replaces that run, and only it, by the members of a
// stdio entry: ["type": "stdio" | "local",] "command": "agentgate",
// "args": ["guard", "--server", NAME, "--url", URL, "--header", "K: V",
// ..., "--transport", T], "env": {"AGENTGATE_UNWRAP": BASE64} (Codex also
// "env_vars"), where BASE64 is the replaced run's exact bytes. Every
// other member (timeouts, tool filters, disabled flags, comments) stays
// where it is. Unwrap puts the saved bytes back in place of the stdio
// members, so the file is byte for byte what it was.
//
// The saved bytes cannot stay in the entry as they were: clients refuse
// or prefer them over the command (Codex refuses "url" next to
// "command", opencode refuses any member a local server does not have,
// Gemini uses "url" before "command", Amazon Q starts what "type" names,
// and the other clients refuse both or let a remote "type" decide: at
// worst the client would reach the server without guard). An
// environment variable is the one member every client accepts in a stdio
// entry and passes on unchanged; base64 keeps the client from expanding
// variables in it (its alphabet has no "$", "{" or "}").

// unwrapEnv names the environment variable holding a wrapped remote
// entry's original members.
const unwrapEnv = "AGENTGATE_UNWRAP"

// remoteShape is how one client writes a remote entry, and the stdio
// entry wrap writes in its place.
type remoteShape struct {
	// members are the members that make the entry remote, moved into
	// the saved bytes.
	members []string
	// refuse are members whose meaning guard cannot carry, and why.
	refuse map[string]string
	// stdioType is the "type" written when the entry had a "type" (""
	// writes none; opencode's "local" is always written).
	stdioType string
	envKey    string // the stdio entry's environment member
}

var (
	jsonRemote   = []string{"type", "url", "headers"}
	claudeHelper = map[string]string{"headersHelper": "Claude Code runs headersHelper to compute the headers when it connects; guard is given fixed --header values and cannot run it"}
	remoteShapes = map[string]remoteShape{
		"claude-code": {members: append(jsonRemote, "oauth"), refuse: claudeHelper, stdioType: "stdio", envKey: "env"},
		"cursor":      {members: jsonRemote, stdioType: "stdio", envKey: "env"},
		"vscode":      {members: jsonRemote, stdioType: "stdio", envKey: "env"},
		"continue":    {members: jsonRemote, stdioType: "stdio", envKey: "env"},
		"gemini": {members: []string{"type", "url", "httpUrl", "headers", "oauth"}, envKey: "env",
			refuse: map[string]string{"authProviderType": "Gemini CLI obtains the credentials of authProviderType itself when it connects; guard cannot"}},
		"qwen": {members: []string{"type", "url", "httpUrl", "headers", "oauth"}, envKey: "env",
			refuse: map[string]string{"authProviderType": "Qwen Code obtains the credentials of authProviderType itself when it connects; guard cannot"}},
		"copilot":  {members: jsonRemote, stdioType: "stdio", envKey: "env"},
		"roo":      {members: jsonRemote, stdioType: "stdio", envKey: "env"},
		"kiro":     {members: jsonRemote, envKey: "env"},
		"junie":    {members: jsonRemote, envKey: "env"},
		"amazonq":  {members: jsonRemote, stdioType: "stdio", envKey: "env"},
		"windsurf": {members: []string{"type", "serverUrl", "url", "headers"}, envKey: "env"},
		"cline":    {members: jsonRemote, stdioType: "stdio", envKey: "env"},
		"zed":      {members: jsonRemote, envKey: "env"},
		"opencode": {members: append(jsonRemote, "oauth"), stdioType: "local", envKey: "environment"},
		"codex": {members: []string{"url", "bearer_token_env_var", "http_headers", "env_http_headers"}, envKey: "env",
			refuse: map[string]string{
				"bearer_token":   "a literal bearer_token is not read by agentgate (write it in an environment variable and name it in bearer_token_env_var)",
				"oauth_resource": "Codex asks for the OAuth resource itself; guard uses the token of 'agentgate auth login'",
				// Left beside the new "command", it makes Codex refuse the
				// whole file ("http_headers_helper is not supported for
				// stdio"; issue #25).
				"http_headers_helper": "Codex runs http_headers_helper to compute the headers when it connects; guard is given fixed --header values and cannot run it",
			}},
		"continue-yaml": {members: []string{"type", "url", "requestOptions"}, stdioType: "stdio", envKey: "env"},
	}
)

func (d *doc) shapeKey() string {
	if d.client == "continue" && path.Ext(d.file) != ".json" {
		return "continue-yaml"
	}
	return d.client
}

// wrapRemoteEdit is the edit that wraps remote entry e (server s as the
// client's parser reads it, locked as lockName), and the argv the entry
// runs after it.
func (d *doc) wrapRemoteEdit(e *entry, s config.Server, lockName string, opt WrapOptions) (Edit, []string, error) {
	if e == nil {
		return Edit{}, nil, &config.Error{File: d.file, Server: s.Name, Msg: "cannot edit: the entry was not found where the parser read it"}
	}
	refuse := func(off int, field, msg, hint string) (Edit, []string, error) {
		return Edit{}, nil, d.errAt(off, e.name, field, "cannot wrap this remote server: "+msg, hint)
	}
	// unreachable: guard cannot reach the server as the client does; the
	// entry is left alone, not an error (see Unwrappable).
	unreachable := func(off int, field, why string) (Edit, []string, error) {
		line, col := syntax.OffsetPos(d.data, off)
		return Edit{}, nil, &Unwrappable{File: d.file, Line: line, Column: col, Server: e.name, Field: field, Reason: why}
	}
	at := d.entryOffset(e)
	shape, ok := remoteShapes[d.shapeKey()]
	if !ok {
		return unreachable(at, "", "agentgate does not know how this client writes a stdio entry")
	}
	if e.inline {
		return refuse(at, "", "the entry is written inline (a TOML inline table or dotted keys, a YAML flow mapping), whose members wrap cannot move",
			"write the server as a [mcp_servers.NAME] table (TOML) or a block mapping (YAML), then run agentgate wrap again")
	}
	var run []int
	for i, m := range e.members {
		if why, bad := shape.refuse[m.name]; bad {
			return unreachable(m.start, m.name, why)
		}
		own := slices.Contains(shape.members, m.name)
		stdio := m.name == "command" || m.name == "args" || m.name == shape.envKey || m.name == "env_vars"
		switch {
		case own && m.sub && m.name == "requestOptions":
			return unreachable(m.start, m.name, "requestOptions holds settings besides headers (timeouts, TLS, proxy) that guard cannot apply")
		case own, stdio && m.empty:
			if m.sub {
				return refuse(m.start, m.name, "written as a sub-table or dotted keys (TOML), or as a block scalar, alias or anchor (YAML), which wrap cannot move",
					"write it on the entry's own lines as one value (TOML: an inline table, http_headers = { ... }), then run agentgate wrap again")
			}
			run = append(run, i)
		case stdio:
			return refuse(m.start, m.name, fmt.Sprintf("the entry already has %q, which the wrapper would write", m.name), fmt.Sprintf("remove %q (a remote server does not use it), then run agentgate wrap again", m.name))
		}
	}
	if len(run) == 0 {
		return refuse(at, "", "its remote members were not found where the parser read them", "wrap it by hand as docs/GUARD.md shows")
	}
	for i := run[0]; i <= run[len(run)-1]; i++ {
		if !slices.Contains(run, i) {
			m := e.members[i]
			return refuse(m.start, m.name, fmt.Sprintf("%q stands between the remote members (%s), which wrap replaces as one run", m.name, d.names(e, run)),
				fmt.Sprintf("move %q before or after them, then run agentgate wrap again", m.name))
		}
	}
	args, envVars, aerr := guardRemoteArgs(s, lockName, opt)
	if aerr != nil {
		off := at
		top, _, _ := strings.Cut(aerr.field, ".")
		for _, m := range e.members {
			if m.name == top || top == "headers" && m.name == "requestOptions" {
				off = m.start
			}
		}
		return unreachable(off, aerr.field, aerr.msg)
	}
	first, last := e.members[run[0]], e.members[run[len(run)-1]]
	saved := base64.StdEncoding.EncodeToString(d.data[first.start:last.end])
	typ := ""
	if shape.stdioType != "" && (shape.stdioType == "local" || slices.ContainsFunc(run, func(i int) bool { return e.members[i].name == "type" })) {
		typ = shape.stdioType
	}
	items := d.strs(args)
	var text string
	switch d.syn.kind {
	case "json":
		sep := ", "
		if len(run) > 1 {
			if between := string(d.data[first.end:e.members[run[1]].start]); strings.Trim(between, " \t\r\n") == "," {
				sep = between
			}
		}
		kv := ": "
		if strings.Trim(first.kv, " \t") == ":" {
			kv = first.kv
		}
		comma := ", "
		if kv == ":" {
			comma = ","
		}
		var ms []string
		if typ != "" {
			ms = append(ms, `"type"`+kv+jsonString(typ))
		}
		if d.client == "opencode" { // the command is one argv array
			ms = append(ms, `"command"`+kv+"["+jsonString(guardargs.Program)+comma+strings.Join(items, comma)+"]")
		} else {
			ms = append(ms, `"command"`+kv+jsonString(guardargs.Program), `"args"`+kv+"["+strings.Join(items, comma)+"]")
		}
		ms = append(ms, jsonString(shape.envKey)+kv+"{"+jsonString(unwrapEnv)+kv+jsonString(saved)+"}")
		text = strings.Join(ms, sep)
	case "toml":
		ls := strings.LastIndexByte(string(d.data[:first.start]), '\n') + 1
		sep := d.nl(first.start) + string(d.data[ls:first.start])
		ms := []string{"command = " + jsonString(guardargs.Program), "args = [" + strings.Join(items, ", ") + "]",
			"env = { " + unwrapEnv + " = " + jsonString(saved) + " }"}
		if len(envVars) > 0 {
			ms = append(ms, "env_vars = ["+strings.Join(d.strs(envVars), ", ")+"]")
		}
		text = strings.Join(ms, sep)
	case "yaml":
		ls := strings.LastIndexByte(string(d.data[:first.start]), '\n') + 1
		sep := d.nl(first.start) + strings.Repeat(" ", first.start-ls)
		var ms []string
		if typ != "" {
			ms = append(ms, "type: "+typ)
		}
		ms = append(ms, "command: "+yamlString(guardargs.Program), "args: ["+strings.Join(items, ", ")+"]",
			"env: {"+unwrapEnv+": "+jsonString(saved)+"}")
		text = strings.Join(ms, sep)
	}
	return Edit{first.start, last.end, text}, append([]string{guardargs.Program}, args...), nil
}

// names lists the names of e's members at indices run.
func (d *doc) names(e *entry, run []int) string {
	var ns []string
	for _, i := range run {
		ns = append(ns, strconv.Quote(e.members[i].name))
	}
	return strings.Join(ns, ", ")
}

// entryOffset is where errors about entry e point: its first member.
func (d *doc) entryOffset(e *entry) int {
	if len(e.members) > 0 {
		return e.members[0].start
	}
	return e.cmdAt
}

// unwrapRemoteEdit is the edit that restores remote entry e, wrapped by
// wrapRemoteEdit (s is the wrapped entry as the client's parser reads
// it).
func (d *doc) unwrapRemoteEdit(e *entry, s config.Server) (Edit, error) {
	refuse := func(msg string) (Edit, error) {
		return Edit{}, &config.Error{File: d.file, Line: e.line, Server: e.name, Msg: "cannot unwrap: " + msg,
			Hint: "restore the remote entry by hand (docs/GUARD.md shows the wrapped form)"}
	}
	shape, ok := remoteShapes[d.shapeKey()]
	saved, has := s.Env[unwrapEnv]
	if !ok || !has || len(s.Env) != 1 {
		return refuse(fmt.Sprintf("the wrapper of a remote server (--url) has no %s=... in %q saying what the entry was (it was not written by agentgate wrap)", unwrapEnv, shape.envKey))
	}
	orig, err := base64.StdEncoding.DecodeString(saved)
	if err != nil {
		return refuse(fmt.Sprintf("%s is not the base64 agentgate wrap writes", unwrapEnv))
	}
	own := []string{"type", "command", "args", shape.envKey}
	if d.syn.kind == "toml" {
		own = append(own, "env_vars")
	}
	var run []int
	for i, m := range e.members {
		if slices.Contains(own, m.name) && !m.sub {
			if len(run) > 0 && run[len(run)-1] != i-1 {
				return refuse(fmt.Sprintf("%q stands between the members agentgate wrap wrote (%s)", e.members[i-1].name, d.names(e, run)))
			}
			run = append(run, i)
		}
	}
	if len(run) == 0 {
		return refuse("the wrapper's members were not found where the parser read them")
	}
	return Edit{e.members[run[0]].start, e.members[run[len(run)-1]].end, string(orig)}, nil
}

// argErr is a reason guardRemoteArgs cannot write a server's wrapper.
type argErr struct{ field, msg string }

// Unwrappable is a remote server that WrapFile leaves alone because guard
// cannot reach it as its client does (the client computes headers or
// credentials itself, or sends a value guard would expand): wrapping it
// would change the server. It is not an error; WrapFile returns it with
// the servers it wrapped, and `agentgate wrap` names it on stderr.
type Unwrappable struct {
	File         string
	Line, Column int
	Server       string
	Field        string // the member that decides it; "" for the entry
	Reason       string
}

func (u *Unwrappable) Error() string {
	return fmt.Sprintf("%s:%d:%d: server %q: %s: not wrapped: %s", u.File, u.Line, u.Column, u.Server, u.Field, u.Reason)
}

// guardRemoteArgs are the guard arguments that reach remote server s as
// the client does: guard --server NAME [--lockfile P] [--on-drift M]
// --url URL [--header "K: V" ...] [--transport http|sse], the headers
// sorted by name; envVars are the environment variables the stdio entry
// must pass on to guard (Codex's env_vars: a Codex stdio server gets only
// the variables named there).
//
// Templates stay as the client wrote them when the client expands
// variables in args as it does in the URL and headers: it expands them
// before it starts guard. Otherwise (Amazon Q expands headers but not
// args; Codex names variables in env_http_headers and
// bearer_token_env_var; Zed, Junie and Cline expand nothing) they are
// rewritten into guard's own ${VAR} syntax, which guard expands from the
// environment the client gives it, and a literal value that guard would
// read as a variable is refused.
func guardRemoteArgs(s config.Server, lockName string, opt WrapOptions) (args, envVars []string, err *argErr) {
	args = guardFlags(lockName, opt)
	u, err := guardValue(s, "url", s.URL)
	if err != nil {
		return nil, nil, err
	}
	args = append(args, "--url", u)
	hdr := map[string]string{}
	seen := map[string]string{}
	add := func(k, v, field string) *argErr {
		ck := syntax.CanonicalHeaderKey(k)
		if prev, dup := seen[ck]; dup {
			return &argErr{field, fmt.Sprintf("header %q is given twice (also as %s)", k, prev)}
		}
		if strings.TrimSpace(v) != v || strings.TrimSpace(k) != k || strings.ContainsAny(k, ":") {
			return &argErr{field, fmt.Sprintf("header %q has a name with ':' or blanks around its name or value, which guard's --header 'Name: value' cannot carry", k)}
		}
		if !guardargs.ValidHeaderName(k) {
			return &argErr{field, fmt.Sprintf("header %q is not an HTTP header name (RFC 9110 token), which guard's --header refuses", k)}
		}
		seen[ck], hdr[k] = field, v
		return nil
	}
	for _, k := range slices.Sorted(maps.Keys(s.Headers)) {
		v, err := guardValue(s, "headers."+k, s.Headers[k])
		if err != nil {
			return nil, nil, err
		}
		if err := add(k, v, "headers."+k); err != nil {
			return nil, nil, err
		}
	}
	for _, k := range slices.Sorted(maps.Keys(s.EnvHeaders)) {
		if err := add(k, "${"+s.EnvHeaders[k]+"}", "env_http_headers."+k); err != nil {
			return nil, nil, err
		}
		envVars = append(envVars, s.EnvHeaders[k])
	}
	if s.BearerTokenEnvVar != "" {
		if err := add("Authorization", "Bearer ${"+s.BearerTokenEnvVar+"}", "bearer_token_env_var"); err != nil {
			return nil, nil, err
		}
		envVars = append(envVars, s.BearerTokenEnvVar)
	}
	for _, k := range slices.Sorted(maps.Keys(hdr)) {
		args = append(args, "--header", k+": "+hdr[k])
	}
	switch {
	case s.Transport == config.SSE:
		args = append(args, "--transport", "sse")
	case s.Transport == config.StreamableHTTP && !s.FallbackSSE:
		args = append(args, "--transport", "http")
	}
	slices.Sort(envVars)
	return args, slices.Compact(envVars), nil
}

// guardValue is template t of field of remote server s as guard must be
// given it in its args (see guardRemoteArgs).
func guardValue(s config.Server, field, t string) (string, *argErr) {
	fs := syntax.ForField(s.Syntax, field)
	segs, perr := syntax.ParseTemplate(fs, t)
	if perr != nil {
		return "", &argErr{field, perr.Msg}
	}
	if syntax.ExpandsArgs(s.Syntax) && syntax.ForField(s.Syntax, "args[0]") == fs {
		// The client expands it; what it leaves as text reaches guard,
		// which must not read a variable in it.
		for _, g := range segs {
			if g.Kind == syntax.SegLit && guardReadsOtherwise(g.Text, []syntax.Seg{g}) {
				return "", &argErr{field, guardReadsVariable}
			}
		}
		return t, nil
	}
	var b strings.Builder
	for _, g := range segs {
		switch g.Kind {
		case syntax.SegLit:
			b.WriteString(g.Text)
		case syntax.SegEnv:
			b.WriteString("${" + g.Text)
			if g.HasDef {
				b.WriteString(":-" + g.Def)
			}
			b.WriteString("}")
		default:
			return "", &argErr{field, fmt.Sprintf("uses %s, which guard cannot expand", g.Raw)}
		}
	}
	out := b.String()
	if guardReadsOtherwise(out, segs) {
		return "", &argErr{field, guardReadsVariable}
	}
	return out, nil
}

const guardReadsVariable = "holds text that guard would read as a variable (${...}), which this client sends as written"

// guardReadsOtherwise is whether guard, reading text as a template, would
// not read it as segs.
func guardReadsOtherwise(text string, segs []syntax.Seg) bool {
	back, perr := syntax.ParseTemplate(syntax.Claude, text)
	return perr != nil || syntax.Canonical(back) != syntax.Canonical(segs)
}
