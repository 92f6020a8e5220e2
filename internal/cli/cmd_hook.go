package cli

import (
	"flag"
	"fmt"
	"slices"
	"strings"

	"github.com/agentgate/agentgate/mcp/launcher"

	"github.com/agentgate/agentgate/internal/atomicfile"
	"github.com/agentgate/agentgate/internal/safetext"
	"github.com/agentgate/agentgate/lock"
	"github.com/agentgate/agentgate/mcp/config"
	"github.com/agentgate/agentgate/render"
)

func init() {
	register(&command{
		name:    "hook",
		summary: "the pre-commit check (what the git hook and the pre-commit framework run)",
		usage: `Usage: agentgate hook [--live] [--lockfile PATH] [--format text|json] [--trusted-ref REV] [--timeout D] [--concurrency N]

Hook is the pre-commit entry point; it works from the repository root. It
reads the client configs, agentgate.toml and the lockfile as the index
holds them (what the commit records), never the work tree's copies.

When the commit stages neither a client config (nor agentgate.toml) nor the
lockfile, and --live is not given, it only checks the staged lockfile
offline (like 'agentgate verify': format, integrity, that it locks
exactly the configured servers, and, for a version 2 lockfile, that an
exact package spec in the staged configs names the pinned version and
that each script pinned as a file package has its pinned hash in the
index). No server is started.

Otherwise it starts only the servers the commit changes: those that are
new, whose definition differs from HEAD's once both are resolved in this
environment (with agentgate.toml's inputs, renames, excludes and
per-server options), whose staged lockfile entry differs from HEAD's, or
that have no entry. Every other server keeps its staged entry; servers no
longer configured leave the lockfile. One line per group says which
servers it captured and why, and which it did not start (their packages
are checked offline as above). With --live, or
hook = "all" in agentgate.toml, it captures every server.

When the result equals the staged lockfile byte for byte (CRLF line
endings read as LF), it passes and prints one line saying what this
commit changes in the lock. When they
differ, it writes the new lockfile into the working tree (never the
index), prints the summary and the diff against HEAD, and fails: review
the change, 'git add' the lockfile, and commit again. When a server could
not be captured nothing is written.

Exit codes: 0 ok, 1 the lockfile was updated (or does not lock the
configured servers), 2 invalid configs or lockfile, 3 a server could not
be verified or git failed.

Examples:
  agentgate hook
  agentgate hook --live --timeout 60s`,
		flags: func(fs *flag.FlagSet) {
			fs.Bool("live", false, "capture every server, even those the commit does not change and when no config or lockfile change is staged")
			jsonFormatFlag(fs)
			fs.String("lockfile", "", "lockfile `path` (default: agentgate.toml's lockfile, else agentgate.lock at the repository root)")
			captureFlags(fs)
		},
		run: runHook,
	})
}

func runHook(e *env, fs *flag.FlagSet, args []string) error {
	if err := checkTextOrJSON(fs); err != nil {
		return err
	}
	if len(args) > 0 {
		// The pre-commit framework passes file names unless pass_filenames
		// is false; they are not needed: the index says what is staged.
		fmt.Fprintf(e.stderr, "agentgate: note: ignoring %d file arguments; hook reads the index\n", len(args))
	}
	repo, root, err := openRepo(e, true, "hook")
	if err != nil {
		return err
	}
	staged, err := loadStaged(repo)
	if err != nil {
		return err
	}
	ws := projectWorkspace(e, repo, root, staged, flagValue[string](fs, "lockfile"))
	if err := checkLockPath(ws, true); err != nil {
		return err
	}
	e.rep.setLockfile(ws.lockRel)
	if strings.HasPrefix(ws.lockRel, "/") || strings.HasPrefix(ws.lockRel, "../") {
		return invalid(fmt.Errorf("lockfile %s is outside the repository %s", ws.lockRel, ws.root),
			"keep agentgate.lock inside the repository (agentgate.toml: lockfile)")
	}
	// HEAD's agentgate.toml may name extra files the index no longer does:
	// deleting one is a change too.
	headSettings := &config.Project{}
	if data, ok, err := repo.FileAt("HEAD", config.SettingsFile); err != nil {
		return classify(ExitUnverified, err)
	} else if ok {
		headSettings.Settings, _ = config.ParseSettings(config.SettingsFile, data)
	}
	changes, err := repo.StagedChanges(func(p string) bool {
		return p == ws.lockRel || staged.IsConfigPath(p) || headSettings.IsConfigPath(p)
	})
	if err != nil {
		return classify(ExitUnverified, err)
	}
	data, exists, err := stagedLockfile(ws)
	if err != nil {
		return err
	}
	all := ""
	switch {
	case flagValue[bool](fs, "live"):
		all = whyLive
	case len(changes) == 0:
		return hookOffline(e, ws, data, exists)
	case staged.Settings.Hook == config.HookAll:
		all = whyAll
	}
	var old *lock.Lockfile
	if exists {
		if old, err = parseLockfile(data, ws.lockRel+" (staged)"); err != nil {
			return err
		}
	}
	hv, err := readHead(e, ws, changes, all == "")
	if err != nil {
		return err
	}
	plan := planHook(e, staged, hv.project, hv.projectErr, old, hv.lf, all,
		func(abs string) bool { return committedUnchanged(repo, abs) })
	plan.print(e)
	if old != nil && len(plan.unchanged) > 0 {
		// The servers not started keep their staged entries: their
		// packages are checked offline.
		if err := hookPackages(e, ws, old, plan.unchanged); err != nil {
			return err
		}
	}
	c, err := compareLive(e, fs, ws, old, plan.capture)
	if err != nil {
		return err
	}
	reportDiffServers(e.rep, ws, c)
	if len(c.cap.failures) > 0 {
		if !c.drifted() {
			// Not "the others match": the servers not started were not checked.
			return &ExitError{Code: failureCode(c.cap.failures),
				Err: fmt.Errorf("%s could not be verified: %s; nothing was written",
					plural(len(c.cap.failures), "server"), c.failedNames()),
				Hints: []string{"fix the servers above and commit again"}}
		}
		fmt.Fprint(e.stdout, render.Summary(c.diff, c.cap.defs, c.labels, e.useColor(e.stdout)))
		return c.verdict(ws.lockRel, "nothing was written; fix the servers above and commit again")
	}
	if err := unstagedScripts(e, ws, c.live, plan.capture); err != nil {
		return err
	}
	if exists && lock.SameContent(old, c.live) { // content, not bytes (CRLF, layout): docs/spec/lockfile.md
		d := lock.Compare(hv.lf, c.live)
		fmt.Fprintf(e.stdout, "agentgate: lock ok; %s\n", commitChange(d))
		return nil
	}
	if len(c.live.Servers) == 0 && !exists {
		fmt.Fprintln(e.stdout, "agentgate: lock ok; no MCP servers configured")
		return nil
	}
	if err := atomicfile.WriteFile(ws.lockPath, c.data, 0o644); err != nil {
		return writeFailed(ws, err)
	}
	e.rep.setWritten()
	color := e.useColor(e.stdout)
	d := lock.Compare(hv.lf, c.live)
	fmt.Fprint(e.stdout, render.Summary(d, c.cap.defs, labelDiff(ws.project.Settings, d, hv.lf, c.live, c.cap.defs), color))
	fmt.Fprint(e.stdout, render.UnifiedDiff(lock.WithLF(hv.data), c.shownData(hv.lf), "a/"+ws.lockRel+" (HEAD)", "b/"+ws.lockRel+" (live)", color))
	fmt.Fprintf(e.stdout, "agentgate: wrote %s; review it, then run:\n  git add %s\n", ws.lockRel, ws.lockRel)
	return drift(fmt.Errorf("the staged %s does not match the live surface; the working tree now has the live one", ws.lockRel),
		"review the change above, then: git add "+ws.lockRel+" && git commit")
}

// stagedLockfile returns the lockfile's bytes in the index; exists is
// false when the index has none (a lockfile only in the work tree is not
// part of the commit).
func stagedLockfile(ws *workspace) ([]byte, bool, error) {
	data, ok, err := ws.repo.FileInIndex(ws.lockRel)
	if err != nil {
		return nil, false, classify(ExitUnverified, err)
	}
	return data, ok, nil
}

// hookOffline is the fast path: verify's checks on the staged lockfile.
func hookOffline(e *env, ws *workspace, data []byte, exists bool) error {
	if !exists {
		if len(ws.project.Servers) == 0 {
			fmt.Fprintln(e.stdout, "agentgate: lock ok; no MCP servers configured")
			return nil
		}
		return matchConfigs(&lock.Lockfile{}, ws.project, ws.lockRel+" (missing)")
	}
	lf, err := parseLockfile(data, ws.lockRel)
	if err != nil {
		return err
	}
	if err := matchConfigs(lf, ws.project, ws.lockRel); err != nil {
		return err
	}
	if err := hookPackages(e, ws, lf, nil); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "agentgate: lock ok; %s: %s, %s (offline check: no config or lockfile change staged)\n",
		ws.lockRel, plural(len(lf.Servers), "server"), plural(countTools(lf), "tool"))
	return nil
}

// hookPackages checks, without starting any server, the packages of the
// staged servers (those in names; all when names is nil) against the
// staged lockfile lf: an exact spec in the staged config that names
// another version or package than lf pins, or a file package whose staged
// bytes (the index's, links followed inside the repository) hash to
// another integrity, is drift (exit 1), and nothing is written. What an
// unpinned spec runs today, and a file the commit does not hold, cannot be
// told offline: 'agentgate ci' checks those live (a note says so for the
// file).
func hookPackages(e *env, ws *workspace, lf *lock.Lockfile, names []string) error {
	checks, err := checkPackages(ws.project, lf)
	if err != nil {
		return err
	}
	problems, notes := offlinePackageDrift(checks, names, followLinks(ws.repo.FileInIndex, ws.repo.SymlinkInIndex))
	for _, n := range notes {
		fmt.Fprintf(e.stderr, "agentgate: note: %s\n", safetext.VisibleLine(n))
	}
	if len(problems) == 0 {
		return nil
	}
	slices.Sort(problems)
	return drift(errorList{{
		lines: append([]string{fmt.Sprintf("the staged %s does not pin the packages the staged configs run (offline check, no server started):", ws.lockRel)}, problems...),
		hints: []string{packageDriftHint + "; then git add " + ws.lockRel},
	}})
}

// unstagedScripts refuses a live capture that pinned a file package from
// work-tree bytes the commit does not record: a server the hook started
// ran its script from the work tree, and when the index holds other bytes
// the lockfile would pin a file the commit does not contain. A script the
// index does not hold at all (an ignored build output) is left to ci.
func unstagedScripts(e *env, ws *workspace, live *lock.Lockfile, captured []config.Server) error {
	read := followLinks(ws.repo.FileInIndex, ws.repo.SymlinkInIndex)
	var problems []string
	for _, s := range captured {
		k := live.Servers[s.Name].Package
		if k == nil || k.Ecosystem != lock.EcosystemFile {
			continue
		}
		data, ok, err := read(k.Name)
		if err != nil || !ok {
			continue
		}
		if launcher.DataIntegrity(data) != k.Integrity {
			problems = append(problems, fmt.Sprintf("server %q (%s) ran %s from the work tree, which differs from the staged copy", s.Name, where(s), k.Name))
		}
	}
	if len(problems) == 0 {
		return nil
	}
	slices.Sort(problems)
	return drift(errorList{{
		lines: append([]string{"the commit does not hold the scripts the servers ran; nothing was written:"}, problems...),
		hints: []string{"git add the script (or restore it: git checkout -- FILE), then commit again"},
	}})
}

// commitChange describes d in one line: "no surface change", or per server
// "fs +1 tool, memory ~1 tool (description)".
func commitChange(d lock.Diff) string {
	if d.Empty() {
		return "no surface change"
	}
	var parts []string
	for _, s := range d.Servers {
		name := safetext.VisibleLine(s.Name) // from the configs
		switch s.Change {
		case lock.Added:
			parts = append(parts, name+" added ("+plural(len(s.Tools), "tool")+")")
		case lock.Removed:
			parts = append(parts, name+" removed")
		default:
			var added, removed int
			var changed []ciToolChange
			for _, t := range s.Tools {
				switch t.Change {
				case lock.Added:
					added++
				case lock.Removed:
					removed++
				default:
					changed = append(changed, ciToolChange{Name: t.Name, Fields: t.Fields})
				}
			}
			what := toolChanges(added, removed, changed)
			if s.Package != nil {
				what = strings.TrimPrefix(what+", "+render.PackageLines(s.Package)[0], ", ")
			}
			parts = append(parts, name+" "+what)
		}
	}
	return "this commit: " + strings.Join(parts, ", ")
}
