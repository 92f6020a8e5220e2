package cli

import (
	"errors"
	"flag"
	"fmt"
	"slices"
	"strings"

	"github.com/agentgate/agentgate/mcp/launcher"

	"github.com/agentgate/agentgate/gitint"
	"github.com/agentgate/agentgate/internal/atomicfile"
	"github.com/agentgate/agentgate/internal/check"
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
	h, err := openHook(e, fs)
	if err != nil {
		return err
	}
	ws := h.ws
	all := ""
	switch {
	case flagValue[bool](fs, "live"):
		all = check.WhyLive
	case len(h.changes) == 0:
		return hookOffline(e, ws, h.data, h.exists)
	case ws.Project.Settings.Hook == config.HookAll:
		all = check.WhyAll
	}
	var old *lock.Lockfile
	if h.exists {
		if old, err = check.ParseLockfile(h.data, ws.LockRel+" (staged)"); err != nil {
			return err
		}
	}
	hv, plan, err := h.plan(e, old, all)
	if err != nil {
		return err
	}
	if old != nil && len(plan.Unchanged) > 0 {
		// The servers not started keep their staged entries: their
		// packages are checked offline.
		if err := hookPackages(e, ws, old, plan.Unchanged); err != nil {
			return err
		}
	}
	c, err := compareLive(e, fs, ws, old, plan.Capture)
	if err != nil {
		return err
	}
	reportDiffServers(e.rep, ws, c)
	if len(c.cap.Failures) > 0 {
		return hookFailed(e, ws, c)
	}
	if err := unstagedScripts(e, ws, c.live, plan.Capture); err != nil {
		return err
	}
	return writeHook(e, ws, hv, c, old)
}

// hookRun is what the hook reads before it decides anything: the
// workspace of the staged configs, the staged changes to the lockfile and
// the configs, and the staged lockfile's bytes.
type hookRun struct {
	ws      *check.Workspace
	changes []string
	data    []byte // the staged lockfile
	exists  bool   // the index has a lockfile
}

// openHook opens the repository and reads the index: the staged configs
// (loadStaged), the lockfile path (inside the repository, or exit class
// 2), which config and lockfile paths the commit changes (those HEAD's
// agentgate.toml names too) and the staged lockfile.
func openHook(e *env, fs *flag.FlagSet) (*hookRun, error) {
	repo, root, err := openRepo(e, true, "hook")
	if err != nil {
		return nil, err
	}
	staged, err := loadStaged(repo)
	if err != nil {
		return nil, err
	}
	ws := check.NewWorkspace(e.dir, repo, root, staged, flagValue[string](fs, "lockfile"))
	if err := checkLockPath(ws, true); err != nil {
		return nil, err
	}
	e.rep.setLockfile(ws.LockRel)
	if strings.HasPrefix(ws.LockRel, "/") || strings.HasPrefix(ws.LockRel, "../") {
		return nil, invalid(fmt.Errorf("lockfile %s is outside the repository %s", ws.LockRel, ws.Root),
			"keep agentgate.lock inside the repository (agentgate.toml: lockfile)")
	}
	// HEAD's agentgate.toml may name extra files the index no longer does:
	// deleting one is a change too.
	headSettings := &config.Project{}
	if data, ok, err := repo.FileAt("HEAD", config.SettingsFile); err != nil {
		return nil, classify(ExitUnverified, err)
	} else if ok {
		headSettings.Settings, _ = config.ParseSettings(config.SettingsFile, data)
	}
	h := &hookRun{ws: ws}
	h.changes, err = repo.StagedChanges(func(p string) bool {
		return p == ws.LockRel || staged.IsConfigPath(p) || headSettings.IsConfigPath(p)
	})
	if err != nil {
		return nil, classify(ExitUnverified, err)
	}
	if h.data, h.exists, err = stagedLockfile(ws); err != nil {
		return nil, err
	}
	return h, nil
}

// plan reads HEAD (its lockfile, and its configs unless all says every
// server is captured), decides which servers the hook starts
// (check.PlanHook, against the staged lockfile old) and prints the plan.
func (h *hookRun) plan(e *env, old *lock.Lockfile, all string) (check.HeadView, check.HookPlan, error) {
	hv, err := check.ReadHead(h.ws, h.changes, all == "")
	if err != nil {
		return hv, check.HookPlan{}, err
	}
	if hv.ProjectErr != nil {
		// the message quotes HEAD's files: escaped, on one line
		fmt.Fprintf(e.stderr, "agentgate: note: %s; capturing every server\n",
			safetext.VisibleLine(check.WhyHeadBad+": "+hv.ProjectErr.Error()))
	}
	repo := h.ws.Repo
	plan := check.PlanHook(e.lookup, h.ws.Project, hv.Project, hv.ProjectErr, old, hv.Lf, all,
		func(abs string) bool { return check.CommittedUnchanged(repo, abs) })
	printPlan(e, plan)
	return hv, plan, nil
}

// hookFailed is the hook's error when servers of c could not be verified:
// nothing is written; a drift among the others is shown (and outranks).
func hookFailed(e *env, ws *check.Workspace, c *comparison) error {
	if !c.drifted() {
		// Not "the others match": the servers not started were not checked.
		return &ExitError{Code: failureCode(c.cap.Failures),
			Err: fmt.Errorf("%s could not be verified: %s; nothing was written",
				plural(len(c.cap.Failures), "server"), c.failedNames()),
			Hints: []string{"fix the servers above and commit again"}}
	}
	fmt.Fprint(e.stdout, render.Summary(c.diff, c.cap.Defs, c.labels, e.useColor(e.stdout)))
	return c.verdict(ws.LockRel, "nothing was written; fix the servers above and commit again")
}

// writeHook ends a hook run whose servers were all verified: when the
// staged lockfile old (nil: none) has the live content (or there is nothing to lock)
// it says so; otherwise it writes the live lockfile to the work tree,
// shows the change against HEAD (hv) and fails with drift, so that the
// user reviews and stages it.
func writeHook(e *env, ws *check.Workspace, hv check.HeadView, c *comparison, old *lock.Lockfile) error {
	if old != nil && lock.SameContent(old, c.live) { // content, not bytes (CRLF, layout): docs/spec/lockfile.md
		d := lock.Compare(hv.Lf, c.live)
		fmt.Fprintf(e.stdout, "agentgate: lock ok; %s\n", commitChange(d))
		return nil
	}
	if len(c.live.Servers) == 0 && old == nil {
		fmt.Fprintln(e.stdout, "agentgate: lock ok; no MCP servers configured")
		return nil
	}
	if err := atomicfile.WriteFile(ws.LockPath, c.data, 0o644); err != nil {
		return writeFailed(ws, err)
	}
	e.rep.setWritten()
	color := e.useColor(e.stdout)
	d := lock.Compare(hv.Lf, c.live)
	fmt.Fprint(e.stdout, render.Summary(d, c.cap.Defs, labelDiff(ws.Project.Settings, d, hv.Lf, c.live, c.cap.Defs), color))
	fmt.Fprint(e.stdout, render.UnifiedDiff(withLF(hv.Data), c.shownData(hv.Lf), "a/"+ws.LockRel+" (HEAD)", "b/"+ws.LockRel+" (live)", color))
	fmt.Fprintf(e.stdout, "agentgate: wrote %s; review it, then run:\n  git add %s\n", ws.LockRel, ws.LockRel)
	return drift(fmt.Errorf("the staged %s does not match the live surface; the working tree now has the live one", ws.LockRel),
		"review the change above, then: git add "+ws.LockRel+" && git commit")
}

// loadStaged loads the project as the index holds it (check.LoadStaged).
// Bad configs are exit class 2, each error marked "(as staged)"; an index
// that cannot be read is class 3.
func loadStaged(repo *gitint.Repo) (*config.Project, error) {
	p, err := check.LoadStaged(repo)
	if err == nil {
		return p, nil
	}
	if errors.As(err, new(*check.Error)) {
		return nil, err
	}
	const staged = "the hook reads the configs as the commit records them: fix the file, then git add it"
	if list := listOf(err); list != nil {
		for i := range list {
			list[i].lines[0] += " (as staged)"
		}
		return nil, &ExitError{Code: ExitInvalid, Err: list, Hints: []string{staged}}
	}
	return nil, &ExitError{Code: ExitInvalid, Err: fmt.Errorf("%w (as staged)", err),
		Hints: append(check.HintsOf(err), staged)}
}

// printPlan writes one line per group: the servers captured for each
// reason, those not started, and those dropped.
func printPlan(e *env, p check.HookPlan) {
	names := func(list []string) string {
		v := make([]string, len(list))
		for i, n := range list {
			v[i] = safetext.VisibleLine(n) // from the configs
		}
		return strings.Join(v, ", ")
	}
	for _, why := range check.WhyOrder {
		var group []string
		for _, s := range p.Capture {
			if p.Why[s.Name] == why {
				group = append(group, s.Name)
			}
		}
		if len(group) > 0 {
			fmt.Fprintf(e.stdout, "agentgate: captured %s (%s)\n", names(group), why)
		}
	}
	if len(p.Unchanged) > 0 {
		fmt.Fprintf(e.stdout, "agentgate: not started: %s (unchanged; checked by 'agentgate ci' and 'agentgate diff')\n", names(p.Unchanged))
	}
	if len(p.Dropped) > 0 {
		fmt.Fprintf(e.stdout, "agentgate: dropped %s (no longer configured)\n", names(p.Dropped))
	}
}

// stagedLockfile returns the lockfile's bytes in the index; exists is
// false when the index has none (a lockfile only in the work tree is not
// part of the commit).
func stagedLockfile(ws *check.Workspace) ([]byte, bool, error) {
	data, ok, err := ws.Repo.FileInIndex(ws.LockRel)
	if err != nil {
		return nil, false, classify(ExitUnverified, err)
	}
	return data, ok, nil
}

// hookOffline is the fast path: verify's checks on the staged lockfile.
func hookOffline(e *env, ws *check.Workspace, data []byte, exists bool) error {
	if !exists {
		if len(ws.Project.Servers) == 0 {
			fmt.Fprintln(e.stdout, "agentgate: lock ok; no MCP servers configured")
			return nil
		}
		return matchConfigs(&lock.Lockfile{}, ws.Project, ws.LockRel+" (missing)")
	}
	lf, err := check.ParseLockfile(data, ws.LockRel)
	if err != nil {
		return err
	}
	if err := matchConfigs(lf, ws.Project, ws.LockRel); err != nil {
		return err
	}
	if err := hookPackages(e, ws, lf, nil); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "agentgate: lock ok; %s: %s, %s (offline check: no config or lockfile change staged)\n",
		ws.LockRel, plural(len(lf.Servers), "server"), plural(countTools(lf), "tool"))
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
func hookPackages(e *env, ws *check.Workspace, lf *lock.Lockfile, names []string) error {
	checks, err := check.CheckPackages(ws.Project, lf)
	if err != nil {
		return err
	}
	problems, notes := check.OfflinePackageDrift(checks, names, check.FollowLinks(ws.Repo.FileInIndex, ws.Repo.SymlinkInIndex))
	for _, n := range notes {
		fmt.Fprintf(e.stderr, "agentgate: note: %s\n", safetext.VisibleLine(n))
	}
	if len(problems) == 0 {
		return nil
	}
	slices.Sort(problems)
	return drift(errorList{{
		lines: append([]string{fmt.Sprintf("the staged %s does not pin the packages the staged configs run (offline check, no server started):", ws.LockRel)}, problems...),
		hints: []string{check.PackageDriftHint + "; then git add " + ws.LockRel},
	}})
}

// unstagedScripts refuses a live capture that pinned a file package from
// work-tree bytes the commit does not record: a server the hook started
// ran its script from the work tree, and when the index holds other bytes
// the lockfile would pin a file the commit does not contain. A script the
// index does not hold at all (an ignored build output) is left to ci.
func unstagedScripts(e *env, ws *check.Workspace, live *lock.Lockfile, captured []config.Server) error {
	read := check.FollowLinks(ws.Repo.FileInIndex, ws.Repo.SymlinkInIndex)
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
			problems = append(problems, fmt.Sprintf("server %q (%s) ran %s from the work tree, which differs from the staged copy", s.Name, check.Where(s), k.Name))
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
			var changed []render.CIToolChange
			for _, t := range s.Tools {
				switch t.Change {
				case lock.Added:
					added++
				case lock.Removed:
					removed++
				default:
					changed = append(changed, render.CIToolChange{Name: t.Name, Fields: t.Fields})
				}
			}
			what := render.ToolChanges(added, removed, changed)
			if s.Package != nil {
				what = strings.TrimPrefix(what+", "+render.PackageLines(s.Package)[0], ", ")
			}
			parts = append(parts, name+" "+what)
		}
	}
	return "this commit: " + strings.Join(parts, ", ")
}
