package configedit

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/agentgate/agentgate/mcp/config"
	"github.com/agentgate/agentgate/mcp/config/syntax"
	"github.com/agentgate/agentgate/mcp/guardargs"
)

// guardCall is a parsed wrapper.
type guardCall struct {
	guardargs.GuardArgs
	cmdAt int // stdio: the index in the entry's args of COMMAND
}

// parseGuard reads the stdio entry s as the guard wrapper
// (guardargs.Wrapper).
func parseGuard(s config.Server) (g guardCall, ok bool, err error) {
	g.GuardArgs, ok, err = guardargs.Wrapper(s.Command, s.Args, slices.Collect(maps.Keys(s.Env)))
	if ok && err == nil {
		g.cmdAt = len(s.Args) - len(g.Command)
	}
	return g, ok, err
}

// WrapOptions are the guard flags `agentgate wrap` writes into every
// wrapper besides --server.
type WrapOptions struct {
	Lockfile string // --lockfile, "" for none
	OnDrift  string // --on-drift, "" for none
	// Select returns the name to write as --server for the entry server
	// of file (its lockfile name), and false for an entry not to wrap;
	// nil wraps every entry under its own name.
	Select func(file, server string) (string, bool)
}

// WrapFile rewrites every enabled server of data (a config file of
// client, named file relative to the root) to run under agentgate guard,
// in the form Guard describes, and returns the new content and the
// servers it wrapped, in file order. A stdio server's command moves into
// guard's args after "--"; a remote server becomes a stdio entry running
// guard --url, its remote members saved in the entry (see
// wrap_remote.go). Servers already wrapped are left alone. Each wrap is
// checked to come undone exactly: UnwrapFile on the result restores data
// byte for byte, and the wrapped entry reads through the wrapper as the
// same server, or WrapFile refuses with an *Error naming the server. A
// remote server guard cannot reach as its client does is left alone and
// returned in left.
func WrapFile(client, file string, data []byte, opt WrapOptions) (out []byte, wrapped []string, left []*Unwrappable, err error) {
	d, err := locate(client, file, data)
	if err != nil {
		return nil, nil, nil, err
	}
	raw := d.servers
	var edits []Edit
	want := map[string][]string{}
	lockNames := map[string]string{}
	var remote []string
	for _, e := range d.entries {
		s, ok := raw[e.name]
		if !ok {
			continue
		}
		if _, already, _ := parseGuard(s); already {
			continue
		}
		lockName := e.name
		if opt.Select != nil {
			if lockName, ok = opt.Select(file, e.name); !ok {
				continue
			}
		}
		es, argv, err := d.wrapEntry(e, s, lockName, opt)
		var u *Unwrappable
		if errors.As(err, &u) {
			left = append(left, u)
			continue
		}
		if err != nil {
			return nil, nil, nil, err
		}
		if s.Transport != config.Stdio {
			remote = append(remote, e.name)
		}
		lockNames[e.name] = lockName
		edits, want[e.name] = append(edits, es...), argv
		wrapped = append(wrapped, e.name)
	}
	if len(edits) == 0 {
		return data, nil, left, nil
	}
	out, err = applyEdits(data, edits)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := d.verifyEdit(out, want); err != nil {
		return nil, nil, nil, err
	}
	if err := d.sameThrough(out, remote); err != nil {
		return nil, nil, nil, err
	}
	// Every wrap must come undone exactly. When the whole file does not,
	// find the entry that does not, one by one.
	if back, _, err := UnwrapFile(client, file, out); err != nil || string(back) != string(data) {
		for _, name := range wrapped {
			e := d.entry(name)
			es, _, _ := d.wrapEntry(e, raw[name], lockNames[name], opt)
			one, _ := applyEdits(data, es)
			if back, _, err := UnwrapFile(client, file, one, name); err != nil || string(back) != string(data) {
				if slices.Contains(remote, name) {
					return nil, nil, nil, d.errAt(d.entryOffset(e), name, "", "'agentgate unwrap' could not restore this remote entry byte for byte after wrapping it",
						"wrap this server by hand as docs/GUARD.md shows")
				}
				return nil, nil, nil, d.errAt(e.cmdAt, name, e.argsField, "'agentgate unwrap' could not restore this entry byte for byte after wrapping it",
					`write "args" with at least one argument, or without "args" at all, then run agentgate wrap again; or wrap this server by hand as docs/GUARD.md shows`)
			}
		}
		return nil, nil, nil, &config.Error{File: file, Msg: "cannot edit: 'agentgate unwrap' could not restore the file byte for byte after wrapping it",
			Hint: "wrap its servers by hand as docs/GUARD.md shows"}
	}
	return out, wrapped, left, nil
}

// wrapEntry is wrapEdits for a stdio server, wrapRemoteEdit for a remote
// one.
func (d *doc) wrapEntry(e *entry, s config.Server, lockName string, opt WrapOptions) ([]Edit, []string, error) {
	// The entry's env becomes guard's: what agentgate would refuse in the
	// wrapper (or not see through) is refused before it is written.
	for _, k := range slices.Sorted(maps.Keys(s.Env)) {
		if guardargs.OwnVariable(k) || strings.EqualFold(k, "PATH") {
			msg, hint := guardargs.OwnVariableProblem(s.Name, k)
			err := &config.Error{File: d.file, Line: s.Line, Column: s.Column, Server: s.Name, Field: "env." + k, Msg: "cannot wrap: " + msg, Hint: hint}
			if strings.EqualFold(k, "PATH") {
				err.Msg = "cannot wrap: the entry's env sets PATH, where the client would look agentgate up: the wrapper would not run the real agentgate"
				err.Hint = "set PATH for the server after \"--\" by hand (agentgate guard --server " + syntax.ShellQuote(lockName) + " -- env PATH=... COMMAND ARGS...), or leave this server unwrapped"
			}
			return nil, nil, err
		}
	}
	if s.Transport == config.Stdio {
		return d.wrapEdits(e, s, lockName, opt)
	}
	ed, argv, err := d.wrapRemoteEdit(e, s, lockName, opt)
	if err != nil {
		return nil, nil, err
	}
	return []Edit{ed}, argv, nil
}

// sameThrough checks that each server of names reads through the guard
// wrapper from after (the edited d) as it reads from d: the same
// transport, URL, headers (their variables too) and fallback, so
// agentgate locks, verifies and pins it alike.
func (d *doc) sameThrough(after []byte, names []string) error {
	if len(names) == 0 {
		return nil
	}
	client, file := d.client, d.file
	a, err := byName(d.seeThrough())
	if err != nil {
		return err
	}
	b, err := byName(readThrough(client, file, after))
	if err != nil {
		return fmt.Errorf("internal error: the edited %s does not parse: %w", file, err)
	}
	for _, n := range names {
		x, y := a[n], b[n]
		what := config.DefinitionDiff(x, y)
		if what == "transport" && x.Transport == y.Transport {
			what = "transport (SSE fallback)" // DefinitionDiff says "transport" for the fallback too
		}
		if what != "" {
			return &config.Error{File: file, Server: n, Field: what, Msg: fmt.Sprintf("cannot edit: through the guard wrapper the server's %s would read differently", what),
				Hint: "an entry wrapped by agentgate wrap and edited since is restored by hand (docs/GUARD.md shows the wrapped form)"}
		}
	}
	return nil
}

// wrapEdits are the edits that wrap entry e (server s, locked as
// lockName), and the argv the entry runs after them.
func (d *doc) wrapEdits(e *entry, s config.Server, lockName string, opt WrapOptions) ([]Edit, []string, error) {
	if e == nil {
		return nil, nil, &config.Error{File: d.file, Server: s.Name, Msg: "cannot edit: the entry was not found where the parser read it"}
	}
	if err := d.check(e, s); err != nil {
		return nil, nil, err
	}
	prefix := append(guardFlags(lockName, opt), "--")
	raws := d.strs(prefix)
	var edits []Edit
	switch {
	case e.argv:
		edits = append(edits, d.insertItems(e.args, append([]string{d.syn.str(guardargs.Program)}, raws...)))
	default:
		edits = append(edits, Edit{e.cmd.start, e.cmd.end, d.syn.str(guardargs.Program)})
		cmdRaw := d.raw(*e.cmd)
		flow := e.args == nil || !e.args.block
		if d.syn.kind == "yaml" && flow && !strings.ContainsAny(cmdRaw[:1], `"'`) && !yamlPlainRE().MatchString(cmdRaw) {
			cmdRaw = yamlString(e.cmd.val)
		}
		raws = append(raws, cmdRaw)
		switch {
		case e.args != nil:
			edits = append(edits, d.insertItems(e.args, raws))
		case e.lineEnd >= 0:
			edits = append(edits, Edit{e.lineEnd, e.lineEnd, d.syn.member(e, d.nl(e.lineEnd), raws)})
		default:
			return nil, nil, d.errAt(e.cmd.start, e.name, e.argsField, "there is no args array and no safe place to add one after the command",
				`write the server as a [mcp_servers.NAME] table (TOML) or a block mapping (YAML) with "command" on its own line, then run agentgate wrap again`)
		}
	}
	return edits, slices.Concat([]string{guardargs.Program}, prefix, []string{s.Command}, s.Args), nil
}

// guardFlags are the wrapper's arguments before "--" or --url: guard
// --server lockName [--lockfile PATH] [--on-drift MODE].
func guardFlags(lockName string, opt WrapOptions) []string {
	g := guardargs.GuardArgs{Guard: guardargs.Guard{Server: lockName, Lockfile: opt.Lockfile, OnDrift: opt.OnDrift}}
	return append([]string{"guard"}, g.Argv()...)
}

// strs encodes each of vs as a new string value (syntax.str).
func (d *doc) strs(vs []string) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = d.syn.str(v)
	}
	return out
}

// UnwrapFile restores every server of data that runs under the guard
// wrapper (only those named, when names are given) to the entry it was
// before `agentgate wrap`, and returns the new content and the servers it
// unwrapped. It removes exactly what WrapFile inserted; a remote
// server's entry gets back the members WrapFile saved, and must read as
// the server the wrapper runs (an edited wrapper is refused).
func UnwrapFile(client, file string, data []byte, names ...string) ([]byte, []string, error) {
	d, err := locate(client, file, data)
	if err != nil {
		return nil, nil, err
	}
	raw := d.servers
	var edits []Edit
	var done, remote []string
	want := map[string][]string{}
	for _, e := range d.entries {
		s, ok := raw[e.name]
		if !ok || len(names) > 0 && !slices.Contains(names, e.name) {
			continue
		}
		g, wrapped, gerr := parseGuard(s)
		if !wrapped {
			continue
		}
		if gerr != nil {
			return nil, nil, &config.Error{File: file, Line: e.line, Server: e.name, Field: e.argsField, Msg: "cannot unwrap: " + gerr.Error(),
				Hint: "fix the wrapper by hand: the original command follows \"--\""}
		}
		if g.Command == nil {
			ed, err := d.unwrapRemoteEdit(e, s)
			if err != nil {
				return nil, nil, err
			}
			edits = append(edits, ed)
			want[e.name] = nil
			remote = append(remote, e.name)
			done = append(done, e.name)
			continue
		}
		if err := d.check(e, s); err != nil {
			return nil, nil, err
		}
		items := e.args.items
		orig := g.cmdAt // index in s.Args of the original command
		if e.argv {
			edits = append(edits, Edit{e.args.at(0), e.args.at(orig + 1), ""})
		} else {
			back := d.raw(items[orig])
			edits = append(edits, Edit{e.cmd.start, e.cmd.end, back})
			switch {
			case orig+1 < len(items):
				edits = append(edits, Edit{e.args.at(0), e.args.at(orig + 1), ""})
			case e.argsMember[1] > 0:
				edits = append(edits, Edit{e.argsMember[0], e.argsMember[1], ""})
			case !e.args.block:
				edits = append(edits, Edit{e.args.at(0), items[orig].end, ""})
			default:
				return nil, nil, d.errAt(e.args.at(0), e.name, e.argsField, "the wrapped args hold no argument of the original command",
					"restore the entry by hand: the original command follows \"--\"")
			}
		}
		want[e.name] = g.Command
		done = append(done, e.name)
	}
	if len(edits) == 0 {
		return data, nil, nil
	}
	out, err := applyEdits(data, edits)
	if err != nil {
		return nil, nil, err
	}
	if _, err := rawServers(client, file, out); err != nil {
		return nil, nil, &config.Error{File: file, Server: strings.Join(remote, ", "), Msg: "cannot unwrap: the entry agentgate wrap saved does not read back: " + err.Error(),
			Hint: "restore the remote entry by hand (docs/GUARD.md shows the wrapped form)"}
	}
	if err := d.verifyEdit(out, want); err != nil {
		return nil, nil, err
	}
	if err := d.sameThrough(out, remote); err != nil {
		return nil, nil, err
	}
	return out, done, nil
}
