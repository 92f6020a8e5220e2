package config

import (
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentgate/agentgate/triage"

	"github.com/agentgate/agentgate/mcp/config/syntax"
	"github.com/agentgate/agentgate/mcp/guardargs"
)

// SettingsFile is the name of agentgate's own config file at the root.
const SettingsFile = "agentgate.toml"

// The values of agentgate.toml's hook key: which servers the commit hook
// starts when a commit stages a config or lockfile change.
const (
	hookChanged = "changed" // only the servers the commit changes (the default)
	HookAll     = "all"     // every server
)

// defaultLockfile is the lockfile path when agentgate.toml does not set one.
const defaultLockfile = "agentgate.lock"

// MovedLockfile is agentgate.toml's lockfile when it moves the lockfile
// from defaultLockfile, else "": what agentgate wrap writes as guard's
// --lockfile.
func (s Settings) MovedLockfile() string {
	if s.Lockfile == defaultLockfile || s.Lockfile == "" {
		return ""
	}
	return s.Lockfile
}

// Formats lists the client names an [[extra]] file may declare.
func Formats() []string {
	f := []string{"codex", "continue", "opencode", "zed"}
	for c := range jsonClients {
		f = append(f, c)
	}
	slices.Sort(f)
	return slices.Compact(f)
}

// ParseSettings parses agentgate.toml. Unknown keys and bad values are
// errors naming the key and its position; the error is an Errors with the
// first error of each top-level key.
func ParseSettings(file string, data []byte) (Settings, error) {
	st := Settings{File: file, Lockfile: defaultLockfile, Hook: hookChanged, pos: map[string]pos{}}
	root, err := parseTOML(file, data)
	if err != nil {
		return st, Errors(errorsOf(err))
	}
	p := &parser{file: file, client: "agentgate", syn: syntax.None}
	p.add(p.known(root, "", "lockfile", "timeout", "concurrency", "max-listing-bytes", "max-tools", "hook", "ignore", "extra", "servers", "inputs", "rename", "definitions", "require-pinned-packages", "allow-unpinned-package", "client-capabilities"))
	if n := root.get("lockfile"); n != nil {
		lf, perr := p.plain(n, "", "lockfile")
		switch {
		case perr != nil:
			p.add(perr)
		case lf == "" || path.IsAbs(lf) || filepath.IsAbs(lf) || strings.HasPrefix(path.Clean(lf), "../") || path.Clean(lf) == "..":
			p.add(p.errAt(n.pos, "", "lockfile", "must be a path inside the repository, relative to its root", `for example: lockfile = "agentgate.lock"`))
		default:
			st.Lockfile = path.Clean(lf)
		}
	}
	var perr *Error
	st.Timeout, perr = p.duration(root.get("timeout"), "timeout")
	p.add(perr)
	if n := root.get("concurrency"); n != nil {
		c, cerr := strconv.Atoi(n.str)
		if n.kind != kNum || cerr != nil || c < 1 || c > 256 {
			p.add(p.errAt(n.pos, "", "concurrency", "must be an integer from 1 to 256", "for example: concurrency = 4"))
		} else {
			st.Concurrency = c
		}
	}
	st.MaxListingBytes, st.MaxTools, perr = p.limits(root, "")
	p.add(perr)
	st.ClientCapabilities, perr = p.clientCapabilities(root.get("client-capabilities"), "client-capabilities")
	p.add(perr)
	if n := root.get("hook"); n != nil {
		h, herr := p.plain(n, "", "hook")
		switch {
		case herr != nil:
			p.add(herr)
		case h != hookChanged && h != HookAll:
			p.add(p.errAt(n.pos, "", "hook", fmt.Sprintf("unknown value %q", h),
				`use hook = "changed" (start only the servers the commit changes) or hook = "all"`))
		default:
			st.Hook = h
		}
	}
	if n := root.get("ignore"); n != nil {
		ig, ierrs := p.strsAll(n, "", "ignore")
		p.errs = append(p.errs, ierrs...)
		for i, g := range ig {
			if _, merr := path.Match(g, ""); merr != nil || g == "" {
				p.add(p.errAt(n.items[i].pos, "", fmt.Sprintf("ignore[%d]", i), fmt.Sprintf("bad pattern %q", g),
					`use a slash path or path.Match pattern relative to the root, e.g. ".cursor/mcp.json"`))
			}
		}
		if len(ierrs) == 0 {
			st.Ignore = ig
		}
	}
	if n := root.get("definitions"); n != nil {
		v, _, perr := p.boolean(n, "", "definitions")
		if perr != nil {
			p.add(perr)
		} else {
			st.NoDefinitions = !v
		}
	}
	st.RequirePinnedPackages, _, perr = p.boolean(root.get("require-pinned-packages"), "", "require-pinned-packages")
	p.add(perr)
	st.AllowUnpinnedPackage, _, perr = p.boolean(root.get("allow-unpinned-package"), "", "allow-unpinned-package")
	p.add(perr)
	p.add(p.extras(root.get("extra"), &st))
	p.add(p.serverSettings(root.get("servers"), &st))
	p.add(p.inputs(root.get("inputs"), &st))
	p.add(p.renames(root.get("rename"), &st))
	if len(p.errs) > 0 {
		return st, p.errs
	}
	return st, nil
}

// errAt returns an error at the position of a settings table ("servers.x",
// "extra[0]", "rename[0]"), or without a line if unknown.
func (st Settings) errAt(field, msg, hint string) *Error {
	p := st.pos[field]
	for _, suffix := range []string{".path", ".format"} {
		if q, ok := st.pos[strings.TrimSuffix(field, suffix)]; ok && p.line == 0 {
			p = q
		}
	}
	return &Error{File: st.File, Line: p.line, Column: p.col, Field: field, Msg: msg, Hint: hint}
}

// known reports the first member of obj not in keys.
func (p *parser) known(obj *node, prefix string, keys ...string) *Error {
	for i, k := range obj.keys {
		if !slices.Contains(keys, k) {
			return p.errAt(obj.keyPos[i], "", prefix+k, "unknown key",
				"known keys here: "+strings.Join(keys, ", ")+" (see docs/config.md)")
		}
	}
	return nil
}

func (p *parser) duration(n *node, field string) (time.Duration, *Error) {
	if n == nil {
		return 0, nil
	}
	d, err := time.ParseDuration(n.str)
	if n.kind != kStr || err != nil || d <= 0 || d > time.Hour {
		return 0, p.errAt(n.pos, "", field, "must be a duration string from 1ms to 1h", `for example: `+field[strings.LastIndex(field, ".")+1:]+` = "45s"`)
	}
	return d, nil
}

func (p *parser) table(n *node, field string) (*node, *Error) {
	if n.kind != kObj {
		return nil, p.typeErr(n, "", field, "a table")
	}
	return n, nil
}

func (p *parser) extras(n *node, st *Settings) *Error {
	if n == nil {
		return nil
	}
	if n.kind != kArr {
		return p.typeErr(n, "", "extra", "an array of tables ([[extra]])")
	}
	for i, e := range n.items {
		f := fmt.Sprintf("extra[%d]", i)
		if _, err := p.table(e, f); err != nil {
			return err
		}
		if err := p.known(e, f+".", "path", "format", "optional"); err != nil {
			return err
		}
		var x ExtraFile
		var err *Error
		if x.Path, err = p.plain(e.get("path"), "", f+".path"); err != nil {
			return err
		}
		if x.Format, err = p.plain(e.get("format"), "", f+".format"); err != nil {
			return err
		}
		if x.Optional, _, err = p.boolean(e.get("optional"), "", f+".optional"); err != nil {
			return err
		}
		if x.Path == "" {
			return p.errAt(e.pos, "", f+".path", "missing", `add path = "relative/to/root.json" or "~/..."`)
		}
		if !slices.Contains(Formats(), x.Format) {
			return p.errAt(e.pos, "", f+".format", fmt.Sprintf("unknown format %q", x.Format), "use one of: "+strings.Join(Formats(), ", "))
		}
		st.pos[f] = e.pos
		st.Extra = append(st.Extra, x)
	}
	return nil
}

func (p *parser) serverSettings(n *node, st *Settings) *Error {
	if n == nil {
		return nil
	}
	if _, err := p.table(n, "servers"); err != nil {
		return err
	}
	st.Servers = map[string]ServerSettings{}
	for i, name := range n.keys {
		e, f := n.vals[i], "servers."+name
		if _, err := p.table(e, f); err != nil {
			return err
		}
		if err := p.known(e, f+".", "exclude", "timeout", "max-listing-bytes", "max-tools", "cross-origin-redirects", "allow-unpinned-package", "resources", "ignore-members", "oauth", "client-capabilities", "labels"); err != nil {
			return err
		}
		var ss ServerSettings
		var err *Error
		if ex := e.get("exclude"); ex != nil {
			if ss.Exclude, err = p.plain(ex, "", f+".exclude"); err != nil {
				return err
			}
			if strings.TrimSpace(ss.Exclude) == "" {
				return p.errAt(ex.pos, "", f+".exclude", "needs a reason", `for example: exclude = "needs a personal token; reviewed manually"`)
			}
		}
		if ss.Timeout, err = p.duration(e.get("timeout"), f+".timeout"); err != nil {
			return err
		}
		if ss.MaxListingBytes, ss.MaxTools, err = p.limits(e, f+"."); err != nil {
			return err
		}
		if v := e.get("cross-origin-redirects"); v != nil {
			if ss.CrossOriginRedirects, _, err = p.boolean(v, "", f+".cross-origin-redirects"); err != nil {
				return err
			}
		}
		if v := e.get("allow-unpinned-package"); v != nil {
			if ss.AllowUnpinnedPackage, _, err = p.boolean(v, "", f+".allow-unpinned-package"); err != nil {
				return err
			}
		}
		if r := e.get("resources"); r != nil {
			if ss.Resources, _, err = p.boolean(r, "", f+".resources"); err != nil {
				return err
			}
		}
		if im := e.get("ignore-members"); im != nil {
			if ss.IgnoreMembers, err = p.strs(im, "", f+".ignore-members"); err != nil {
				return err
			}
			for j, m := range ss.IgnoreMembers {
				if !guardargs.ValidMemberPath(m) {
					return p.errAt(im.items[j].pos, "", fmt.Sprintf("%s.ignore-members[%d]", f, j), fmt.Sprintf("bad member path %q", m),
						`name members of a definition as agentgate diff shows them, e.g. ignore-members = ["_meta", "icons", "annotations.title"] ("name" cannot be ignored)`)
				}
			}
		}
		if ss.Labels, err = p.labels(e.get("labels"), f+".labels"); err != nil {
			return err
		}
		if ss.OAuth, err = p.oauth(e.get("oauth"), f+".oauth"); err != nil {
			return err
		}
		if ss.ClientCapabilities, err = p.clientCapabilities(e.get("client-capabilities"), f+".client-capabilities"); err != nil {
			return err
		}
		st.pos[f] = n.keyPos[i]
		st.Servers[name] = ss
	}
	return nil
}

// The client capabilities agentgate.toml's client-capabilities may name:
// what capture then declares in initialize (see docs/config.md).
const (
	CapRoots       = "roots"
	CapSampling    = "sampling"
	CapElicitation = "elicitation"
)

// ClientCapabilityNames lists the names client-capabilities accepts, sorted.
func ClientCapabilityNames() []string { return []string{CapElicitation, CapRoots, CapSampling} }

// clientCapabilities reads client-capabilities (an array of
// ClientCapabilityNames) at field: nil when absent, else the names sorted
// without repeats (an empty array is an empty, non-nil slice: none, which
// overrides a global list for one server).
func (p *parser) clientCapabilities(n *node, field string) ([]string, *Error) {
	if n == nil {
		return nil, nil
	}
	hint := `for example: client-capabilities = ["roots", "sampling", "elicitation"] (valid names: ` + strings.Join(ClientCapabilityNames(), ", ") + ")"
	if n.kind != kArr {
		e := p.typeErr(n, "", field, "an array of strings")
		e.Hint = hint
		return nil, e
	}
	caps := make([]string, 0, len(n.items))
	for i, it := range n.items {
		f := fmt.Sprintf("%s[%d]", field, i)
		if it.kind != kStr {
			e := p.typeErr(it, "", f, "a string")
			e.Hint = hint
			return nil, e
		}
		if !slices.Contains(ClientCapabilityNames(), it.str) {
			return nil, p.errAt(it.pos, "", f, fmt.Sprintf("unknown client capability %q", it.str), hint)
		}
		caps = append(caps, it.str)
	}
	slices.Sort(caps)
	return slices.Compact(caps), nil
}

// limits reads max-listing-bytes (an integer number of bytes, or a string
// such as "256MiB", "512KiB", "1GiB") and max-tools (a positive integer)
// from table n; prefix names the table in errors ("" or "servers.NAME.").
func (p *parser) limits(n *node, prefix string) (int64, int, *Error) {
	var bytes int64
	var tools int
	if v := n.get("max-listing-bytes"); v != nil {
		b, ok := parseSize(v)
		if !ok {
			return 0, 0, p.errAt(v.pos, "", prefix+"max-listing-bytes", "must be a positive number of bytes (an integer, or a string with KiB, MiB or GiB)",
				`for example: max-listing-bytes = "256MiB"`)
		}
		bytes = b
	}
	if v := n.get("max-tools"); v != nil {
		t, err := strconv.Atoi(v.str)
		if v.kind != kNum || err != nil || t < 1 {
			return 0, 0, p.errAt(v.pos, "", prefix+"max-tools", "must be a positive integer", "for example: max-tools = 50000")
		}
		tools = t
	}
	return bytes, tools, nil
}

// parseSize reads a byte count: a TOML integer, or a string of digits
// with an optional KiB, MiB or GiB suffix.
func parseSize(v *node) (int64, bool) {
	s, mult := v.str, int64(1)
	if v.kind != kNum {
		if v.kind != kStr {
			return 0, false
		}
		for _, u := range []struct {
			suffix string
			n      int64
		}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}} {
			if rest, ok := strings.CutSuffix(s, u.suffix); ok {
				s, mult = rest, u.n
				break
			}
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 1 || n > (1<<62)/mult {
		return 0, false
	}
	return n * mult, true
}

func (p *parser) inputs(n *node, st *Settings) *Error {
	if n == nil {
		return nil
	}
	if _, err := p.table(n, "inputs"); err != nil {
		return err
	}
	st.Inputs = map[string]Input{}
	for i, id := range n.keys {
		e, f := n.vals[i], "inputs."+id
		if _, err := p.table(e, f); err != nil {
			e.pos = n.keyPos[i]
			return p.errAt(e.pos, "", f, "expected a table", `for example: `+id+` = { env = "MY_VARIABLE" }`)
		}
		if err := p.known(e, f+".", "env", "value"); err != nil {
			return err
		}
		var in Input
		var err *Error
		if in.Env, err = p.plain(e.get("env"), "", f+".env"); err != nil {
			return err
		}
		if in.Value, err = p.plain(e.get("value"), "", f+".value"); err != nil {
			return err
		}
		if e.has("env") == e.has("value") || (e.has("env") && !syntax.IsEnvName(in.Env)) {
			return p.errAt(e.pos, "", f, "needs exactly one of env (an environment variable name) or value",
				`for example: `+id+` = { env = "MY_VARIABLE" }`)
		}
		st.Inputs[id] = in
	}
	return nil
}

func (p *parser) renames(n *node, st *Settings) *Error {
	if n == nil {
		return nil
	}
	if n.kind != kArr {
		return p.typeErr(n, "", "rename", "an array of tables ([[rename]])")
	}
	for i, e := range n.items {
		f := fmt.Sprintf("rename[%d]", i)
		if _, err := p.table(e, f); err != nil {
			return err
		}
		if err := p.known(e, f+".", "file", "server", "to"); err != nil {
			return err
		}
		var r Rename
		for _, kv := range []struct {
			k string
			v *string
		}{{"file", &r.File}, {"server", &r.Server}, {"to", &r.To}} {
			s, err := p.plain(e.get(kv.k), "", f+"."+kv.k)
			if err != nil {
				return err
			}
			if s == "" {
				return p.errAt(e.pos, "", f+"."+kv.k, "missing", `for example: file = ".cursor/mcp.json", server = "github", to = "github-cursor"`)
			}
			*kv.v = s
		}
		st.pos[f] = e.pos
		st.Renames = append(st.Renames, r)
	}
	return nil
}

// oauth parses [servers.NAME.oauth].
func (p *parser) oauth(n *node, f string) (*OAuth, *Error) {
	if n == nil {
		return nil, nil
	}
	if _, err := p.table(n, f); err != nil {
		return nil, err
	}
	if err := p.known(n, f+".", "client-id", "client-secret-env", "grant", "scopes"); err != nil {
		return nil, err
	}
	o := &OAuth{}
	var err *Error
	if o.ClientID, err = p.plain(n.get("client-id"), "", f+".client-id"); err != nil {
		return nil, err
	}
	if o.ClientSecretEnv, err = p.plain(n.get("client-secret-env"), "", f+".client-secret-env"); err != nil {
		return nil, err
	}
	if o.Grant, err = p.plain(n.get("grant"), "", f+".grant"); err != nil {
		return nil, err
	}
	if s := n.get("scopes"); s != nil {
		if o.Scopes, err = p.strs(s, "", f+".scopes"); err != nil {
			return nil, err
		}
		for i, sc := range o.Scopes {
			if sc == "" || strings.ContainsAny(sc, " \t\n\"\\") {
				return nil, p.errAt(s.items[i].pos, "", fmt.Sprintf("%s.scopes[%d]", f, i), fmt.Sprintf("bad scope %q", sc), `one scope per string, for example: scopes = ["read", "write"]`)
			}
		}
	}
	if n.has("client-secret-env") && !syntax.IsEnvName(o.ClientSecretEnv) {
		return nil, p.errAt(n.pos, "", f+".client-secret-env", fmt.Sprintf("%q is not an environment variable name", o.ClientSecretEnv),
			`name the variable that holds the secret, for example: client-secret-env = "NOTES_CLIENT_SECRET" (the secret itself never goes in this file)`)
	}
	switch o.Grant {
	case "":
	case "authorization_code", "client_credentials":
	default:
		return nil, p.errAt(n.pos, "", f+".grant", fmt.Sprintf("unknown grant %q", o.Grant), `use grant = "authorization_code" (the default: a browser login) or grant = "client_credentials" (CI, with client-id and client-secret-env)`)
	}
	if o.Grant == "client_credentials" && (o.ClientID == "" || o.ClientSecretEnv == "") {
		return nil, p.errAt(n.pos, "", f+".grant", "client_credentials needs client-id and client-secret-env", `add client-id = "..." and client-secret-env = "VARIABLE" to this table`)
	}
	if o.ClientSecretEnv != "" && o.ClientID == "" {
		return nil, p.errAt(n.pos, "", f+".client-id", "client-secret-env needs client-id", `add the pre-registered client's id: client-id = "..."`)
	}
	return o, nil
}

// labels reads [servers.NAME.labels]: label id = "high" | "medium" |
// "low" | "off" for every item of the server, and under
// [servers.NAME.labels.tools.ITEM] the same for one tool, prompt or
// resource template. nil when absent.
func (p *parser) labels(n *node, field string) ([]triage.Override, *Error) {
	if n == nil {
		return nil, nil
	}
	if _, err := p.table(n, field); err != nil {
		return nil, err
	}
	if err := p.known(n, field+".", append([]string{"tools"}, triage.IDs...)...); err != nil {
		return nil, err
	}
	var out []triage.Override
	one := func(item string, k string, at pos, v *node, f string) *Error {
		if !slices.Contains(triage.IDs, k) {
			return p.errAt(at, "", f, fmt.Sprintf("unknown label %q", k), "labels are: "+strings.Join(triage.IDs, ", ")+" (see docs/TRIAGE.md)")
		}
		hint := `for example: ` + k + ` = "low" (or "high", "medium", "off" to silence it)`
		if v.kind != kStr {
			e := p.typeErr(v, "", f, "a string")
			e.Hint = hint
			return e
		}
		o := triage.Override{Item: item, Label: k}
		if v.str != "off" {
			sev, ok := triage.ParseSeverity(v.str)
			if !ok {
				return p.errAt(v.pos, "", f, fmt.Sprintf("unknown severity %q", v.str), hint)
			}
			o.Severity = sev
		}
		out = append(out, o)
		return nil
	}
	for i, k := range n.keys {
		v, f := n.vals[i], field+"."+k
		if k != "tools" {
			if err := one("", k, n.keyPos[i], v, f); err != nil {
				return nil, err
			}
			continue
		}
		if _, err := p.table(v, f); err != nil {
			return nil, err
		}
		for j, item := range v.keys {
			t, tf := v.vals[j], f+"."+item
			if _, err := p.table(t, tf); err != nil {
				return nil, err
			}
			for l, lk := range t.keys {
				if err := one(item, lk, t.keyPos[l], t.vals[l], tf+"."+lk); err != nil {
					return nil, err
				}
			}
		}
	}
	return out, nil
}
