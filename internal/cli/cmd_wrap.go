package cli

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentgate/agentgate/mcp/configedit"
	"github.com/agentgate/agentgate/mcp/guardargs"

	"github.com/agentgate/agentgate/internal/atomicfile"
	"github.com/agentgate/agentgate/internal/check"
	"github.com/agentgate/agentgate/internal/safetext"
	"github.com/agentgate/agentgate/mcp/config"
	"github.com/agentgate/agentgate/render"
)

func init() {
	register(&command{
		name:    "wrap",
		summary: "rewrite the client configs so every server runs under 'agentgate guard'",
		usage: `Usage: agentgate wrap [--dry-run] [--on-drift MODE] [--format text|json]

Wrap rewrites the repository's client configs so that each locked
server runs under 'agentgate guard', which checks every tool listing the
client receives against agentgate.lock (docs/GUARD.md). A stdio entry

  "command": "npx", "args": ["-y", "pkg"]

becomes

  "command": "agentgate", "args": ["guard", "--server", "NAME", "--", "npx", "-y", "pkg"]

and a remote entry

  "type": "http", "url": "https://host/mcp", "headers": {"Authorization": "Bearer ${T}"}

becomes a stdio entry running guard in front of it

  "type": "stdio", "command": "agentgate", "args": ["guard", "--server", "NAME",
  "--url", "https://host/mcp", "--header", "Authorization: Bearer ${T}",
  "--transport", "http"], "env": {"AGENTGATE_UNWRAP": "<the replaced members, base64>"}

with minimal edits: comments, trailing commas, key order, indentation,
quoting and line endings stay as they are, in every format agentgate reads
(JSON, JSONC, Codex TOML, Continue YAML). 'agentgate unwrap' restores
each file byte for byte; wrap checks that before it writes, and refuses a
server it could not restore exactly (docs/config.md lists the cases).
Servers already wrapped, servers excluded in agentgate.toml and disabled
servers are left alone; so is a remote server that guard cannot reach as
its client does (a Claude Code headersHelper, a Gemini authProviderType,
...), named on stderr with the reason. A config file outside the
repository, by its path or through a symbolic link, is never edited (by
wrap, unwrap or pin): each one the command would have changed is named on
stderr.

agentgate itself sees through the wrapper: a wrapped config locks,
verifies and pins exactly like the unwrapped one.

With --dry-run nothing is written and the edits are printed as a unified
diff. Nothing is written unless every file could be edited (a config
agentgate cannot edit safely is an error naming the file, the server and
the field); each file is then written atomically.

Exit codes: 0 done (or nothing to do), 2 invalid configs or an entry that
cannot be edited safely, 3 a file could not be written or git failed.

Examples:
  agentgate wrap --dry-run
  agentgate wrap
  agentgate wrap --on-drift block`,
		flags: func(fs *flag.FlagSet) {
			fs.Bool("dry-run", false, "print the edits as a unified diff, write nothing")
			jsonFormatFlag(fs)
			fs.String("on-drift", "", "write `MODE` (withhold or block) as guard's --on-drift; default: guard's own default (withhold)")
		},
		run: func(e *env, fs *flag.FlagSet, args []string) error { return runWrap(e, fs, args, false) },
	})
	register(&command{
		name:    "unwrap",
		summary: "undo 'agentgate wrap': restore every wrapped server's original entry",
		usage: `Usage: agentgate unwrap [--dry-run] [--format text|json]

Unwrap restores every server entry that runs under 'agentgate guard' to
the entry it was before 'agentgate wrap', removing exactly what wrap
inserted: after wrap and unwrap every config file is byte for byte what it
was. A remote server gets back the members wrap saved in its
AGENTGATE_UNWRAP variable; a wrapper edited since (another --url or
--header) is refused rather than undone. Stdio entries wrapped by hand in
the same form are unwrapped too.

With --dry-run nothing is written and the edits are printed as a unified
diff.

Exit codes: 0 done (or nothing to do), 2 invalid configs or a wrapper that
cannot be undone safely, 3 a file could not be written or git failed.

Examples:
  agentgate unwrap --dry-run
  agentgate unwrap`,
		flags: func(fs *flag.FlagSet) {
			fs.Bool("dry-run", false, "print the edits as a unified diff, write nothing")
			jsonFormatFlag(fs)
		},
		run: func(e *env, fs *flag.FlagSet, args []string) error { return runWrap(e, fs, args, true) },
	})
}

// fileEdit is one config file's new content.
type fileEdit struct {
	rel, abs  string
	old, new  []byte
	servers   []string
	unchanged bool
	// outside: the file is outside the repository (config.ConfigFile):
	// never written nor shown as a diff; when it would change, a warning
	// names it and its servers.
	outside config.ConfigFile
}

func runWrap(e *env, fs *flag.FlagSet, args []string, undo bool) error {
	name := "wrap"
	if undo {
		name = "unwrap"
	}
	if err := checkTextOrJSON(fs); err != nil {
		return err
	}
	if len(args) > 0 {
		return invalid(fmt.Errorf("unexpected argument %q", args[0]), "run 'agentgate "+name+" -h' for usage")
	}
	onDrift := flagValue[string](fs, "on-drift")
	switch {
	case onDrift == "warn":
		// A committed wrapper that only warns is refused (config's
		// Guard.Unlike): wrap does not write one.
		return invalid(errors.New("--on-drift warn: a wrapper that only warns protects nothing, and agentgate refuses it in a client config"),
			"use --on-drift withhold or block; to try guard out, run agentgate guard --on-drift warn -- COMMAND ARGS... yourself")
	case onDrift != "" && !slices.Contains(guardargs.OnDriftModes, onDrift):
		return invalid(fmt.Errorf("--on-drift %q: use withhold or block", onDrift))
	}
	ws, err := openWorkspace(e, false, true, "", name)
	if err != nil {
		return err
	}
	p := ws.Project
	opt := configedit.WrapOptions{OnDrift: onDrift, Lockfile: p.Settings.MovedLockfile()}
	// Excluded entries are not wrapped: guard would find no lockfile
	// entry for them.
	opt.Select = lockNames(p)
	var left []*configedit.Unwrappable
	edits, err := editConfigs(ws, func(client, rel string, data []byte, outside bool) ([]byte, []string, error) {
		if undo {
			return configedit.UnwrapFile(client, rel, data)
		}
		out, names, l, err := configedit.WrapFile(client, rel, data, opt)
		if !outside { // not edited: editConfigs names it
			left = append(left, l...)
		}
		return out, names, err
	})
	if err != nil {
		return err
	}
	// Remote servers guard cannot reach as their client does stay as they
	// are: said on stderr, so nobody believes them guarded.
	for _, u := range left {
		fmt.Fprintf(e.stderr, "agentgate wrap: warning: %s:%d:%d: server %s: %s: not wrapped: %s\n",
			safetext.VisibleLine(u.File), u.Line, u.Column, safetext.Quote(u.Server), safetext.VisibleLine(u.Field), safetext.VisibleLine(u.Reason))
	}
	verb := "wrapped"
	if undo {
		verb = "unwrapped"
	}
	if err := writeEdits(e, fs, edits, verb); err != nil {
		return err
	}
	if !flagValue[bool](fs, "dry-run") && slices.ContainsFunc(edits, func(f fileEdit) bool { return !f.unchanged && !f.outside.Outside }) {
		printWrapNext(e, undo)
	}
	return nil
}

// printWrapNext says what comes after wrap or unwrap wrote files: check,
// commit, and (wrap) that everyone using the configs now needs agentgate.
func printWrapNext(e *env, undo bool) {
	if undo {
		fmt.Fprintln(e.stdout, "agentgate: next: review the change (git diff) and commit the configs; the servers run unguarded again")
		return
	}
	fmt.Fprintln(e.stdout, "agentgate: next: restart your MCP client and check that the wrapped servers start, review the change (git diff), then commit the configs")
	fmt.Fprintln(e.stdout, "agentgate: note: committed, the wrapped configs start 'agentgate guard': every teammate and CI job that uses them needs agentgate and agentgate-mcp of one version on PATH (docs/config.md#agentgate-wrap-and-unwrap); 'agentgate unwrap' undoes it")
}

// lockNames is the lockfile name of each server entry of p's config files
// (a [[rename]] locks an entry under another name), and false for an
// entry agentgate.toml excludes from the lockfile: what wrap writes as
// --server, and which package pin looks up.
func lockNames(p *config.Project) func(file, server string) (string, bool) {
	return func(file, server string) (string, bool) {
		for _, s := range p.Skipped {
			if s.Excluded && s.Name == server && s.File == file {
				return "", false
			}
		}
		for _, s := range p.Servers {
			if s.RenamedFrom == server && s.File == file {
				return s.Name, true
			}
		}
		return server, true
	}
}

// editConfigs runs edit on every config file of the project, and returns
// the files it changed, in path order. Every file's errors are collected;
// on any error nothing is returned, so nothing is written. A file outside
// the repository, by its path or through a symbolic link
// (Project.ConfigFile), is the user's own, not the repository's: it is
// returned with outside set, for writeEdits to name and leave alone, and
// its errors are not the command's. edit is told whether the file is
// outside, so that it reports nothing of its own about such a file.
func editConfigs(ws *check.Workspace, edit func(client, rel string, data []byte, outside bool) ([]byte, []string, error)) ([]fileEdit, error) {
	var out []fileEdit
	var errs config.Errors
	var other []error
	byReal := map[string]int{} // a file read under two names (a link) is edited once
	for _, rel := range ws.Project.Files {
		cf := ws.Project.ConfigFile(rel)
		client := ws.Project.Settings.ClientOf(rel)
		if cf.Outside {
			data, err := os.ReadFile(cf.Abs)
			if err != nil {
				continue
			}
			nd, servers, err := edit(client, rel, data, true)
			if err == nil && string(nd) != string(data) {
				out = append(out, fileEdit{rel: rel, abs: cf.Abs, servers: servers, outside: cf})
			}
			continue
		}
		abs := cf.Abs
		data, err := os.ReadFile(abs)
		if err != nil {
			other = append(other, fmt.Errorf("cannot read %s: %w", rel, err))
			continue
		}
		real, rerr := filepath.EvalSymlinks(abs)
		if rerr != nil {
			real = abs
		}
		if i, seen := byReal[real]; seen {
			// The same file under another name (and maybe another
			// client's format): what the first name's edit wrote must
			// need no further edit under this one.
			if _, more, err := edit(client, rel, out[i].new, false); err != nil || len(more) > 0 {
				other = append(other, fmt.Errorf("%s and %s are the same file read as two clients' configs; edit it by hand", out[i].rel, rel))
			}
			continue
		}
		nd, servers, err := edit(client, rel, data, false)
		if err != nil {
			var ce config.Errors
			var one *config.Error
			switch {
			case errors.As(err, &ce):
				errs = append(errs, ce...)
			case errors.As(err, &one):
				errs = append(errs, one)
			default:
				other = append(other, err)
			}
			continue
		}
		byReal[real] = len(out)
		out = append(out, fileEdit{rel: rel, abs: abs, old: data, new: nd, servers: servers, unchanged: string(nd) == string(data)})
	}
	if len(other) > 0 {
		return nil, invalid(errors.Join(other...))
	}
	if len(errs) > 0 {
		return nil, classify(ExitInvalid, errs)
	}
	return out, nil
}

// writeEdits prints the edits as a unified diff (--dry-run) or writes the
// changed files, all or nothing (atomicfile.WriteFiles: each atomically, none
// replaced before every one could be prepared, those replaced put back
// when a later one fails), then says what changed.
func writeEdits(e *env, fs *flag.FlagSet, edits []fileEdit, verb string) error {
	dry := flagValue[bool](fs, "dry-run")
	color := e.useColor(e.stdout)
	warnOutside(e, strings.TrimPrefix(fs.Name(), "agentgate "), edits, verb)
	n := 0
	for _, f := range edits {
		if f.unchanged || f.outside.Outside {
			continue
		}
		n++
		e.rep.addEdit(reportEdit{File: f.rel, Servers: f.servers, Diff: render.UnifiedDiff(f.old, f.new, "a/"+f.rel, "b/"+f.rel, false)})
		if dry {
			fmt.Fprint(e.stdout, render.UnifiedDiff(f.old, f.new, "a/"+f.rel, "b/"+f.rel, color))
		}
	}
	if dry {
		if n == 0 {
			fmt.Fprintf(e.stderr, "agentgate: nothing to change\n")
		}
		return nil
	}
	written, err := writeAll(e, edits)
	if err != nil {
		return err
	}
	for _, f := range written {
		var names []string
		for _, s := range f.servers {
			names = append(names, safetext.Quote(s))
		}
		fmt.Fprintf(e.stdout, "agentgate: %s: %s %s\n", safetext.VisibleLine(f.rel), verb, strings.Join(names, ", "))
	}
	if n == 0 {
		fmt.Fprintf(e.stdout, "agentgate: nothing to change\n")
	}
	return nil
}

// warnOutside warns, on stderr, about each edit of a file outside the
// repository (or reached through a symbolic link that leads out of it),
// which is never made, and hints once what to do instead.
func warnOutside(e *env, cmd string, edits []fileEdit, verb string) {
	outside := 0
	for _, f := range edits {
		if !f.outside.Outside {
			continue
		}
		where := "outside the repository"
		if f.outside.Link {
			where = "a symbolic link (or under one) that leads outside the repository"
		}
		names := make([]string, len(f.servers))
		for i, s := range f.servers {
			names[i] = safetext.Quote(s)
		}
		fmt.Fprintf(e.stderr, "agentgate %s: warning: %s: %s: not edited: %s would be %s\n",
			cmd, safetext.VisibleLine(f.rel), where, strings.Join(names, ", "), verb)
		outside++
	}
	if outside > 0 {
		printHints(e.stderr, []string{"agentgate edits only the repository's own config files: edit a file outside it yourself, or commit the file in place of the link"})
	}
}

// writeAll writes every changed edit inside the repository, all or
// nothing: every file is prepared before any is replaced, and a failed
// replace puts back the files replaced before it (exit class 3 either
// way). It returns the edits written.
func writeAll(e *env, edits []fileEdit) ([]fileEdit, error) {
	var writes []atomicfile.FileWrite
	var written []fileEdit
	for _, f := range edits {
		if !f.unchanged && !f.outside.Outside {
			writes = append(writes, atomicfile.FileWrite{Path: f.abs, Data: f.new, Old: f.old, Perm: 0o644})
			written = append(written, f)
		}
	}
	if i, err, restore := atomicfile.WriteFiles(writes); err != nil {
		if restore != nil {
			var names []string
			for _, f := range written[:i] {
				names = append(names, f.rel)
			}
			e.rep.setWritten() // some may be left written
			return nil, unverified(fmt.Errorf("could not write %s: %v; and putting back %s failed: %v", written[i].rel, err, strings.Join(names, ", "), restore),
				"check those files with git diff, restore them (git checkout -- FILE), make the file writable, then run the command again")
		}
		return nil, unverified(fmt.Errorf("could not write %s: %v; no file was changed", written[i].rel, err),
			"make the file writable, then run the command again")
	}
	if len(written) > 0 {
		e.rep.setWritten()
	}
	return written, nil
}
