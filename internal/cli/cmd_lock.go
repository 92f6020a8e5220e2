package cli

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/agentgate/agentgate/internal/atomicfile"
	"github.com/agentgate/agentgate/internal/check"
	"github.com/agentgate/agentgate/internal/safetext"
	"github.com/agentgate/agentgate/lock"
	"github.com/agentgate/agentgate/mcp/config"
	"github.com/agentgate/agentgate/mcp/wire"
	"github.com/agentgate/agentgate/render"
	"github.com/agentgate/agentgate/triage"
)

func init() {
	register(&command{
		name:    "lock",
		summary: "capture every configured server and write agentgate.lock",
		usage: `Usage: agentgate lock [--lockfile PATH] [--server NAME]... [--lockfile-version 1|2] [--force] [--format text|json] [--trusted-ref REV] [--timeout D] [--concurrency N]

Lock starts (or connects to) every server enabled in the repository's MCP
client configs, lists its tools, and writes agentgate.lock atomically. When
a server cannot be captured, every failure is reported, nothing is written
(the existing lockfile stays byte for byte as it was) and the exit code is 3.

--server NAME (repeatable) refreshes only the named servers and keeps the
others' entries as they are in the existing lockfile. Servers no longer
configured are dropped. Locking an unchanged surface rewrites nothing:
generatedAt and generatedBy are kept, so the bytes are identical.

A new lockfile is version 2: it pins whole tool definitions, server
instructions, prompts and resource templates, and the package or
in-repository script each stdio server runs (docs/spec/lockfile-v2.md).
Plain 'agentgate lock' keeps an existing file's version; a version 1 file
stays version 1 until --lockfile-version 2 upgrades it (reported once as a
format change). --lockfile-version 1 writes a new file as version 1; on a
version 2 file it needs --force (it drops pins).

An existing lockfile that does not parse is not overwritten unless --force
is given; one of a newer lockfileVersion is never overwritten (upgrade
agentgate instead). Outside a git repository, the working directory is the root.

On a terminal, stderr shows a line per server and state. On a terminal or
not (CI logs), a server that stays in one state for 5 s is named with what
it waits for, again at 10 s, 20 s, ...:
  agentgate: waiting for github: npx is downloading or starting the package (5 s)
diff, ci and hook do the same.

Where no client config exists and there is no lockfile yet, lock writes
nothing and exits 2, naming the directory and the files it looked for.

Exit codes: 0 written (or unchanged), 2 invalid flags, configs or existing
lockfile, or no client config at all, 3 a server could not be captured (or a variable is missing).

Examples:
  agentgate lock
  agentgate lock --server memory --timeout 60s
  agentgate lock --lockfile-version 2
  SOURCE_DATE_EPOCH=$(git log -1 --format=%ct) agentgate lock`,
		flags: func(fs *flag.FlagSet) {
			fs.String("lockfile", "", "lockfile `path` (default: agentgate.toml's lockfile, else agentgate.lock at the repository root)")
			fs.Var(&stringList{}, "server", "refresh only the server `NAME` (repeatable); the others keep their locked entries")
			fs.Bool("force", false, "replace an existing lockfile that does not parse, or downgrade a version 2 file with --lockfile-version 1 (never one of a newer lockfileVersion than this agentgate reads)")
			lockfileVersionFlag(fs)
			captureFlags(fs)
			jsonFormatFlag(fs)
		},
		run: runLock,
	})
}

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }
func (l *stringList) Get() any           { return []string(*l) }

func runLock(e *env, fs *flag.FlagSet, args []string) error {
	if err := checkTextOrJSON(fs); err != nil {
		return err
	}
	if len(args) > 0 {
		return invalid(fmt.Errorf("unexpected argument %q", args[0]), "run 'agentgate lock -h' for usage")
	}
	run, err := planLock(e, fs)
	if err != nil {
		return err
	}
	printSkipped(e, run.ws.Project)
	l, err := guardedCapture(e, fs, run.ws, run.selected, run.opts)
	if err != nil {
		return err
	}
	warnHidden(e, l, run.prev)
	if run.version == lock.Version2 {
		toV2(e, l, run.ws.Project)
	}
	if len(l.Failures) > 0 {
		return run.failed(e, l)
	}
	servers, rows := run.entries(l)
	printLockRows(e, rows)
	return run.write(e, l, servers)
}

// lockRun is what lock settled before it captures: where, what it had,
// which version it writes, which servers it refreshes, and how.
type lockRun struct {
	ws       *check.Workspace
	prev     *lock.Lockfile // the existing lockfile; nil: none, or replaced (--force)
	prevData []byte
	exists   bool // a lockfile exists (parsed or not)
	version  int  // the lockfile version lock writes
	selected []config.Server
	opts     wire.Options
	st       lock.Stamp
}

// planLock settles lock's run from its flags, the workspace and the
// existing lockfile: an existing file that does not parse is replaced
// only with --force (never one of a newer version), and a workspace
// without any client config and no lockfile is exit class 2.
func planLock(e *env, fs *flag.FlagSet) (*lockRun, error) {
	ws, err := openWorkspaceFor(e, false, true, flagValue[string](fs, "lockfile"), "lock", true)
	if err != nil {
		return nil, err
	}
	p := ws.Project
	e.rep.setLockfile(ws.LockRel)
	run := &lockRun{ws: ws}
	run.prev, run.prevData, run.exists, err = check.ReadLockfile(ws.LockPath, ws.LockRel)
	if err != nil {
		var ve *lock.VersionError
		if !flagValue[bool](fs, "force") || errors.As(err, &ve) && ve.Newer() {
			return nil, err // a newer format needs a newer agentgate, never --force
		}
		fmt.Fprintf(e.stderr, "agentgate: warning: %s does not parse; replacing it (--force)\n", ws.LockRel)
		run.prev = nil
	}
	if len(p.Files) == 0 && !run.exists {
		return nil, invalid(fmt.Errorf("no MCP client config found in %s (looked for %s); %s not written",
			safetext.VisibleLine(p.Root), strings.Join(config.ConfigGlobs(), ", "), ws.LockRel),
			"run 'agentgate lock' in the repository whose client configs it should pin, or list other config files as [[extra]] in agentgate.toml (docs/config.md)")
	}
	if run.version, err = settleVersion(fs, run.prev, ws.LockRel); err != nil {
		return nil, err
	}
	if run.selected, err = selectServers(p, flagValue[[]string](fs, "server")); err != nil {
		return nil, err
	}
	if run.opts, err = captureOptions(e, fs, p.Settings); err != nil {
		return nil, err
	}
	run.opts.Packages, run.opts.Root = run.version == lock.Version2, ws.Root
	if run.st, err = stampNow(e); err != nil {
		return nil, err
	}
	return run, nil
}

// failed is lock's error when servers of l could not be captured: nothing
// is written; the servers captured meanwhile are listed (partialHints).
func (run *lockRun) failed(e *env, l *check.Live) error {
	what := "left unchanged"
	if !run.exists {
		what = "not written"
	}
	names := make([]string, len(l.Failures))
	for i, f := range l.Failures {
		names[i] = safetext.VisibleLine(f.Server)
		e.rep.addServer(reportServer{Name: f.Server, Status: "failed", Detail: f.Msg})
	}
	return &ExitError{Code: failureCode(l.Failures),
		Err: fmt.Errorf("%s %s: %d of %s could not be captured: %s", run.ws.LockRel, what,
			len(l.Failures), plural(len(run.selected), "server"), strings.Join(names, ", ")),
		Hints: partialHints(e, l, run.selected)}
}

// lockRow is one line of lock's table.
type lockRow struct {
	verb, name, tools, took, status string
	n                               int // tools
}

// entries is the lockfile's servers after the capture l (the refreshed
// ones from l, the others kept from the existing file) and lock's table,
// sorted by server: locked, kept, skipped (not locked yet) or dropped (no
// longer configured).
func (run *lockRun) entries(l *check.Live) (map[string]lock.Server, []lockRow) {
	refresh := map[string]bool{}
	for _, s := range run.selected {
		refresh[s.Name] = true
	}
	prev, p := run.prev, run.ws.Project
	servers := map[string]lock.Server{}
	var rows []lockRow
	for _, s := range p.Servers {
		if refresh[s.Name] {
			srv := l.Servers[s.Name]
			servers[s.Name] = srv
			status := serverStatus(prev, s.Name, srv)
			if prev != nil && prev.LockfileVersion != run.version {
				status = upgradeStatus(prev, s.Name, srv)
			}
			rows = append(rows, lockRow{"locked", s.Name, plural(len(srv.Tools), "tool"),
				fmt.Sprintf("%.2fs", l.Elapsed[s.Name].Seconds()), status, len(srv.Tools)})
			continue
		}
		if old, ok := check.PrevServer(prev, s.Name); ok {
			servers[s.Name] = old
			rows = append(rows, lockRow{"kept", s.Name, plural(len(old.Tools), "tool"), "-", "not refreshed", len(old.Tools)})
		} else {
			rows = append(rows, lockRow{"skipped", s.Name, "-", "-", "not locked yet: run agentgate lock --server " + s.Name, 0})
		}
	}
	if prev != nil {
		for _, name := range slices.Sorted(maps.Keys(prev.Servers)) {
			if !slices.ContainsFunc(p.Servers, func(s config.Server) bool { return s.Name == name }) {
				rows = append(rows, lockRow{"dropped", name, plural(len(prev.Servers[name].Tools), "tool"), "-", "no longer configured", len(prev.Servers[name].Tools)})
			}
		}
	}
	slices.SortStableFunc(rows, func(a, b lockRow) int { return strings.Compare(a.name, b.name) })
	return servers, rows
}

// printLockRows prints lock's table on stdout and records each row in
// the JSON report.
func printLockRows(e *env, rows []lockRow) {
	tw := tabwriter.NewWriter(e.stdout, 0, 8, 2, ' ', 0)
	for _, r := range rows {
		// Server names come from the configs: shown with escapes visible.
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.verb, safetext.VisibleLine(r.name), r.tools, r.took, safetext.VisibleLine(r.status))
		e.rep.addServer(reportServer{Name: r.name, Status: r.verb, Detail: r.status, Tools: r.n})
	}
	tw.Flush()
}

// write writes the lockfile of servers (atomically; nothing when its
// bytes are those of the existing file), says so, names a change of
// version, and prints the high triage labels of every server pinned for
// the first time.
func (run *lockRun) write(e *env, l *check.Live, servers map[string]lock.Server) error {
	ws, prev := run.ws, run.prev
	lf := lock.New(run.version, servers, run.st, prev)
	data := lock.Format(lf)
	counts := fmt.Sprintf("%s, %s", plural(len(lf.Servers), "server"), plural(countTools(lf), "tool"))
	if run.exists && bytes.Equal(data, run.prevData) {
		fmt.Fprintf(e.stdout, "agentgate: %s is up to date (%s)\n", ws.LockRel, counts)
		return nil
	}
	if err := atomicfile.WriteFile(ws.LockPath, data, 0o644); err != nil {
		return writeFailed(ws, err)
	}
	e.rep.setWritten()
	fmt.Fprintf(e.stdout, "agentgate: wrote %s (%s)\n", ws.LockRel, counts)
	if msg := formatChange(prev, lf, ws.LockRel); msg != "" {
		fmt.Fprintln(e.stdout, msg)
	}
	// A server pinned for the first time (every server of a first lock)
	// is not blind trust: its high labels are printed.
	var added lock.Diff
	var names []string
	for _, sd := range lock.Compare(prev, lf).Servers {
		if sd.Change == lock.Added {
			added.Servers = append(added.Servers, sd)
			names = append(names, sd.Name)
		}
	}
	printFindings(e.stdout, labelDiff(ws.Project.Settings, added, prev, lf, l.Defs), names, triage.High,
		"agentgate: high triage labels on what this lock pins for the first time (docs/TRIAGE.md):")
	return nil
}

// partialHints prints, on stdout, one line per selected server that was
// captured although another failed (nothing is written either way), and
// returns the hints of such a run: fix and retry; lock only the servers
// that worked; or exclude each failing one in agentgate.toml.
func partialHints(e *env, l *check.Live, selected []config.Server) []string {
	hints := []string{"fix the servers above and run 'agentgate lock' again"}
	tw := tabwriter.NewWriter(e.stdout, 0, 8, 2, ' ', 0)
	var ok []string
	for _, s := range selected {
		if srv, captured := l.Servers[s.Name]; captured {
			ok = append(ok, "--server "+safetext.VisibleLine(s.Name))
			e.rep.addServer(reportServer{Name: s.Name, Status: "captured", Detail: "not written: another server failed", Tools: len(srv.Tools)})
			fmt.Fprintf(tw, "captured\t%s\t%s\t%.2fs\tnot written: another server failed\n",
				safetext.VisibleLine(s.Name), plural(len(srv.Tools), "tool"), l.Elapsed[s.Name].Seconds())
		}
	}
	tw.Flush()
	if len(ok) > 0 {
		hints = append(hints, "to write the servers that worked now: agentgate lock "+strings.Join(ok, " "))
	}
	for _, f := range l.Failures {
		hints = append(hints, fmt.Sprintf("to leave %s out of the lockfile: add [servers.%s] exclude = \"why\" to agentgate.toml (docs/config.md)",
			safetext.Quote(f.Server), config.TOMLKey(f.Server)))
	}
	return hints
}

// selectServers returns the enabled servers named (all when names is
// empty); an unknown or disabled name is exit class 2.
func selectServers(p *config.Project, names []string) ([]config.Server, error) {
	if len(names) == 0 {
		return p.Servers, nil
	}
	want := map[string]bool{}
	for _, n := range names {
		i := slices.IndexFunc(p.Servers, func(s config.Server) bool { return s.Name == n })
		if i >= 0 {
			want[n] = true
			continue
		}
		if j := slices.IndexFunc(p.Skipped, func(s config.Skipped) bool { return s.Name == n }); j >= 0 {
			sk := p.Skipped[j]
			return nil, invalid(fmt.Errorf("--server %s: the server is not enabled (%s: %s)", n, sk.File, sk.Reason),
				"enable it in "+sk.File+", or leave it out")
		}
		var known []string
		for _, s := range p.Servers {
			known = append(known, safetext.VisibleLine(s.Name))
		}
		hint := "no server is configured; add one to a client config such as .mcp.json"
		if len(known) > 0 {
			hint = "configured servers: " + strings.Join(known, ", ")
		}
		return nil, invalid(fmt.Errorf("--server %s: no enabled server has that name", n), hint)
	}
	var out []config.Server
	for _, s := range p.Servers {
		if want[s.Name] {
			out = append(out, s)
		}
	}
	return out, nil
}

// serverStatus says how srv compares with the previous lockfile.
func serverStatus(prev *lock.Lockfile, name string, srv lock.Server) string {
	old, ok := check.PrevServer(prev, name)
	switch {
	case !ok:
		return "new"
	case old.SurfaceHash == srv.SurfaceHash && (old.ToolsSetHash == "" || lock.SameServer(old, srv)):
		return "unchanged"
	}
	if samePkg := old; old.ToolsSetHash != "" && srv.ToolsSetHash != "" {
		samePkg.Package = srv.Package
		if lock.SameServer(samePkg, srv) { // only the package differs
			if d := lock.ComparePackages(old.Package, srv.Package); d != nil {
				return "changed (" + render.PackageLines(d)[0] + ")"
			}
			if srv.Package != nil && old.Package == nil {
				return "unchanged (package now pinned: " + srv.Package.Ecosystem + " " + srv.Package.String() + ")"
			}
		}
	}
	return "changed"
}

// failureCode is the exit class of a set of failures: 3 when any server
// could not be verified, else 2 (definitions that cannot be resolved).
func failureCode(fs []check.Failure) int {
	if slices.ContainsFunc(fs, func(f check.Failure) bool { return f.Class == check.Unverified }) {
		return ExitUnverified
	}
	return ExitInvalid
}

// writeFailed is the error for a lockfile that could not be written (a
// read-only directory, a full disk): exit class 3, because the surface was
// captured but the result could not be recorded; atomicfile.WriteFile has left
// the old file as it was.
func writeFailed(ws *check.Workspace, err error) error {
	return unverified(fmt.Errorf("could not write %s: %v; the existing file is unchanged", ws.LockRel, err),
		check.HintOf(err, "make the directory writable and free some disk space, then run the command again"))
}
