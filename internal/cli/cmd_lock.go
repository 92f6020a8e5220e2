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

	"github.com/agentgate/agentgate/mcp/config/syntax"

	"github.com/agentgate/agentgate/internal/atomicfile"
	"github.com/agentgate/agentgate/internal/safetext"
	"github.com/agentgate/agentgate/lock"
	"github.com/agentgate/agentgate/mcp/config"
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
	ws, err := openWorkspaceFor(e, false, true, flagValue[string](fs, "lockfile"), "lock", true)
	if err != nil {
		return err
	}
	p := ws.project
	e.rep.setLockfile(ws.lockRel)
	prev, prevData, exists, err := readLockfile(ws.lockPath, ws.lockRel)
	if err != nil {
		var ve *lock.VersionError
		if !flagValue[bool](fs, "force") || errors.As(err, &ve) && ve.Newer() {
			return err // a newer format needs a newer agentgate, never --force
		}
		fmt.Fprintf(e.stderr, "agentgate: warning: %s does not parse; replacing it (--force)\n", ws.lockRel)
		prev = nil
	}
	if len(p.Files) == 0 && !exists {
		return invalid(fmt.Errorf("no MCP client config found in %s (looked for %s); %s not written",
			safetext.VisibleLine(p.Root), strings.Join(config.ConfigGlobs(), ", "), ws.lockRel),
			"run 'agentgate lock' in the repository whose client configs it should pin, or list other config files as [[extra]] in agentgate.toml (docs/config.md)")
	}
	version, err := settleVersion(fs, prev, ws.lockRel)
	if err != nil {
		return err
	}
	selected, err := selectServers(p, flagValue[[]string](fs, "server"))
	if err != nil {
		return err
	}
	opts, err := captureOptions(e, fs, p.Settings)
	if err != nil {
		return err
	}
	opts.Packages, opts.Root = version == lock.VersionV2, ws.root
	st, err := stampNow(e)
	if err != nil {
		return err
	}
	printSkipped(e, p)
	l, err := guardedCapture(e, fs, ws, selected, opts)
	if err != nil {
		return err
	}
	l.warnHidden(e, prev)
	if version == lock.VersionV2 {
		l.toV2(e, p)
	}
	if len(l.failures) > 0 {
		what := "left unchanged"
		if !exists {
			what = "not written"
		}
		names := make([]string, len(l.failures))
		for i, f := range l.failures {
			names[i] = safetext.VisibleLine(f.server)
			e.rep.addServer(reportServer{Name: f.server, Status: "failed", Detail: f.msg})
		}
		return &ExitError{Code: failureCode(l.failures),
			Err: fmt.Errorf("%s %s: %d of %s could not be captured: %s", ws.lockRel, what,
				len(l.failures), plural(len(selected), "server"), strings.Join(names, ", ")),
			Hints: partialHints(e, l, selected)}
	}

	refresh := map[string]bool{}
	for _, s := range selected {
		refresh[s.Name] = true
	}
	servers := map[string]lock.Server{}
	type row struct {
		verb, name, tools, took, status string
		n                               int // tools
	}
	var rows []row
	for _, s := range p.Servers {
		if refresh[s.Name] {
			srv := l.servers[s.Name]
			servers[s.Name] = srv
			status := serverStatus(prev, s.Name, srv)
			if prev != nil && prev.LockfileVersion != version {
				status = upgradeStatus(prev, s.Name, srv)
			}
			rows = append(rows, row{"locked", s.Name, plural(len(srv.Tools), "tool"),
				fmt.Sprintf("%.2fs", l.elapsed[s.Name].Seconds()), status, len(srv.Tools)})
			continue
		}
		if old, ok := prevServer(prev, s.Name); ok {
			servers[s.Name] = old
			rows = append(rows, row{"kept", s.Name, plural(len(old.Tools), "tool"), "-", "not refreshed", len(old.Tools)})
		} else {
			rows = append(rows, row{"skipped", s.Name, "-", "-", "not locked yet: run agentgate lock --server " + s.Name, 0})
		}
	}
	if prev != nil {
		for _, name := range slices.Sorted(maps.Keys(prev.Servers)) {
			if !slices.ContainsFunc(p.Servers, func(s config.Server) bool { return s.Name == name }) {
				rows = append(rows, row{"dropped", name, plural(len(prev.Servers[name].Tools), "tool"), "-", "no longer configured", len(prev.Servers[name].Tools)})
			}
		}
	}
	slices.SortStableFunc(rows, func(a, b row) int { return strings.Compare(a.name, b.name) })
	tw := tabwriter.NewWriter(e.stdout, 0, 8, 2, ' ', 0)
	for _, r := range rows {
		// Server names come from the configs: shown with escapes visible.
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.verb, safetext.VisibleLine(r.name), r.tools, r.took, safetext.VisibleLine(r.status))
		e.rep.addServer(reportServer{Name: r.name, Status: r.verb, Detail: r.status, Tools: r.n})
	}
	tw.Flush()

	lf := lock.NewVersion(version, servers, st, prev)
	data := lock.Format(lf)
	counts := fmt.Sprintf("%s, %s", plural(len(lf.Servers), "server"), plural(countTools(lf), "tool"))
	if exists && bytes.Equal(data, prevData) {
		fmt.Fprintf(e.stdout, "agentgate: %s is up to date (%s)\n", ws.lockRel, counts)
		return nil
	}
	if err := atomicfile.WriteFile(ws.lockPath, data, 0o644); err != nil {
		return writeFailed(ws, err)
	}
	e.rep.setWritten()
	fmt.Fprintf(e.stdout, "agentgate: wrote %s (%s)\n", ws.lockRel, counts)
	if msg := formatChange(prev, lf, ws.lockRel); msg != "" {
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
	printFindings(e.stdout, labelDiff(p.Settings, added, prev, lf, l.defs), names, triage.High,
		"agentgate: high triage labels on what this lock pins for the first time (docs/TRIAGE.md):")
	return nil
}

// partialHints prints, on stdout, one line per selected server that was
// captured although another failed (nothing is written either way), and
// returns the hints of such a run: fix and retry; lock only the servers
// that worked; or exclude each failing one in agentgate.toml.
func partialHints(e *env, l *live, selected []config.Server) []string {
	hints := []string{"fix the servers above and run 'agentgate lock' again"}
	tw := tabwriter.NewWriter(e.stdout, 0, 8, 2, ' ', 0)
	var ok []string
	for _, s := range selected {
		if srv, captured := l.servers[s.Name]; captured {
			ok = append(ok, "--server "+safetext.VisibleLine(s.Name))
			e.rep.addServer(reportServer{Name: s.Name, Status: "captured", Detail: "not written: another server failed", Tools: len(srv.Tools)})
			fmt.Fprintf(tw, "captured\t%s\t%s\t%.2fs\tnot written: another server failed\n",
				safetext.VisibleLine(s.Name), plural(len(srv.Tools), "tool"), l.elapsed[s.Name].Seconds())
		}
	}
	tw.Flush()
	if len(ok) > 0 {
		hints = append(hints, "to write the servers that worked now: agentgate lock "+strings.Join(ok, " "))
	}
	for _, f := range l.failures {
		hints = append(hints, fmt.Sprintf("to leave %s out of the lockfile: add [servers.%s] exclude = \"why\" to agentgate.toml (docs/config.md)",
			quoteVisible(f.server), syntax.TOMLKey(f.server)))
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

func prevServer(prev *lock.Lockfile, name string) (lock.Server, bool) {
	if prev == nil {
		return lock.Server{}, false
	}
	s, ok := prev.Servers[name]
	return s, ok
}

// serverStatus says how srv compares with the previous lockfile.
func serverStatus(prev *lock.Lockfile, name string, srv lock.Server) string {
	old, ok := prevServer(prev, name)
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
func failureCode(fs []failure) int {
	if slices.ContainsFunc(fs, func(f failure) bool { return f.code == ExitUnverified }) {
		return ExitUnverified
	}
	return ExitInvalid
}

// writeFailed is the error for a lockfile that could not be written (a
// read-only directory, a full disk): exit class 3, because the surface was
// captured but the result could not be recorded; atomicfile.WriteFile has left
// the old file as it was.
func writeFailed(ws *workspace, err error) error {
	return unverified(fmt.Errorf("could not write %s: %v; the existing file is unchanged", ws.lockRel, err),
		hintOf(err, "make the directory writable and free some disk space, then run the command again"))
}
