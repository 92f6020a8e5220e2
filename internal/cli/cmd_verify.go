package cli

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/agentgate/agentgate/gitint"
	"github.com/agentgate/agentgate/internal/check"
	"github.com/agentgate/agentgate/internal/safetext"
	"github.com/agentgate/agentgate/lock"
	"github.com/agentgate/agentgate/mcp/config"
	"github.com/agentgate/agentgate/triage"
)

func init() {
	register(&command{
		name:    "verify",
		summary: "check the lockfile offline: format, integrity, and that it locks every configured server",
		usage: `Usage: agentgate verify [--lockfile PATH] [--no-config] [--labels] [--format text|json]

Verify checks agentgate.lock without starting any server and without any
secret: the file must parse strictly (lockfileVersion 1, the exact format
agentgate writes, and every surfaceHash must match its tools), and the
servers it locks must be exactly the servers enabled in the repository's
client configs. It is fast enough for every commit.

Outside a git repository only --lockfile PATH works, and the configs are
not read. --no-config skips the config check (and agentgate.toml, so the
lockfile is --lockfile or <root>/agentgate.lock).

With a version 2 lockfile it checks the packages the stdio servers run
against their pins, offline: an exact spec (pkg@1.5.0, image@sha256:...)
naming another version or package than the lockfile pins, or a script in
the repository whose bytes no longer hash to its pinned integrity, is
drift. It names, on stderr, each stdio server that runs a package without
an exact version (npx -y pkg, uvx tool, docker run image:tag), with the
exact spec 'agentgate pin' would write from the lockfile (or "not locked
yet"), and each command no package can be attributed to; agentgate.toml
require-pinned-packages = true makes those exit 1 (docs/config.md,
"Packages"; docs/spec/lockfile-v2.md, "Packages").

--labels also lists, offline, the triage labels of medium or high
severity on every definition the lockfile pins, as a first lock would
label them (docs/TRIAGE.md), with agentgate.toml's [servers.NAME.labels];
a version 1 lockfile keeps only names and hashes, so only names are
labelled (lookalike-name, name-collision). Labels do not change the exit code.

Exit codes: 0 ok, 1 the lockfile does not lock exactly the configured
servers, or a package differs from its pin (or an unpinned package under
require-pinned-packages), 2 missing or damaged lockfile or invalid configs.

Examples:
  agentgate verify
  agentgate verify --lockfile ../other/agentgate.lock --no-config
  agentgate verify --labels`,
		flags: func(fs *flag.FlagSet) {
			fs.String("lockfile", "", "lockfile `path` (default: agentgate.toml's lockfile, else agentgate.lock at the repository root)")
			fs.Bool("no-config", false, "only check the lockfile itself, not that it matches the client configs")
			fs.Bool("labels", false, "also list the medium and high triage labels of every pinned definition (docs/TRIAGE.md)")
			jsonFormatFlag(fs)
		},
		run: runVerify,
	})
}

func runVerify(e *env, fs *flag.FlagSet, args []string) error {
	if err := checkTextOrJSON(fs); err != nil {
		return err
	}
	if len(args) > 0 {
		return invalid(fmt.Errorf("unexpected argument %q", args[0]), "run 'agentgate verify -h' for usage")
	}
	lockFlag := flagValue[string](fs, "lockfile")
	noConfig := flagValue[bool](fs, "no-config")

	var ws *check.Workspace
	repo, err := openGit(e)
	switch {
	case err != nil && !errors.Is(err, gitint.ErrNotRepository):
		return classify(ExitUnverified, err)
	case err != nil && lockFlag == "":
		return invalid(fmt.Errorf("%s is not in a git repository", e.dir),
			"run it inside the repository, or name the lockfile: agentgate verify --lockfile PATH")
	case err != nil:
		fmt.Fprintf(e.stderr, "agentgate: not in a git repository; using %s\n", safetext.VisibleLine(e.dir))
		noConfig = true
		ws = &check.Workspace{Root: e.dir, LockPath: absFromDir(e, lockFlag), LockRel: lockFlag}
	default:
		ws, err = check.LoadWorkspace(e.dir, repo, repo.Root(), !noConfig, lockFlag)
		if err != nil {
			return err
		}
		if err := checkLockPath(ws, false); err != nil {
			return err
		}
	}
	lf, _, exists, err := check.ReadLockfile(ws.LockPath, ws.LockRel)
	if err != nil {
		return err
	}
	e.rep.setLockfile(ws.LockRel)
	if !exists {
		return invalid(fmt.Errorf("%s: no lockfile", ws.LockRel), "create it: agentgate lock")
	}
	for _, name := range slices.Sorted(maps.Keys(lf.Servers)) {
		e.rep.addServer(reportServer{Name: name, Status: "locked", Tools: len(lf.Servers[name].Tools)})
	}
	var p *config.Project
	if !noConfig {
		p = ws.Project
	}
	if err := matchConfigs(lf, p, ws.LockRel); err != nil {
		return err
	}
	if p != nil {
		reportNotes(e, p)
		if err := reportPackages(e, ws, p, lf); err != nil {
			return err
		}
	}
	noteLockedHidden(e, lf, ws.LockRel)
	line := fmt.Sprintf("%s: %s, %s, integrity ok", ws.LockRel, plural(len(lf.Servers), "server"), plural(countTools(lf), "tool"))
	if p != nil {
		line += ", matches configs"
	}
	fmt.Fprintln(e.stdout, line)
	if flagValue[bool](fs, "labels") {
		var st config.Settings
		if p != nil {
			st = p.Settings
		}
		d := lock.Compare(nil, lf)
		if !printFindings(e.stdout, labelDiff(st, d, nil, lf, nil), slices.Sorted(maps.Keys(lf.Servers)), triage.Medium,
			ws.LockRel+": triage labels of the pinned definitions (docs/TRIAGE.md):") {
			fmt.Fprintf(e.stdout, "%s: no medium or high triage labels\n", ws.LockRel)
		}
	}
	return nil
}

// noteLockedHidden prints a note on stderr for each tool name, and each
// description a version 2 definition holds, in lf with hidden or
// direction-changing characters: lock, diff, ci and hook warn about such
// text only when it is new or changed, so verify is where the locked ones
// stay listed. A version 1 lockfile holds no descriptions (hashes only).
func noteLockedHidden(e *env, lf *lock.Lockfile, lockRel string) {
	for _, server := range slices.Sorted(maps.Keys(lf.Servers)) {
		for _, t := range lf.Servers[server].Tools {
			if kinds := safetext.Suspicious(t.Name); len(kinds) > 0 {
				fmt.Fprintf(e.stderr, "agentgate: note: server %s tool %s: the locked name contains %s (%s)\n",
					safetext.Quote(server), safetext.Quote(t.Name), strings.Join(kinds, ", "), lockRel)
			}
			var def struct{ Description *string }
			if t.Definition == "" || json.Unmarshal([]byte(t.Definition), &def) != nil || def.Description == nil {
				continue
			}
			if kinds := safetext.Suspicious(*def.Description); len(kinds) > 0 {
				fmt.Fprintf(e.stderr, "agentgate: note: server %s tool %s: the locked description contains %s: %s (%s)\n",
					safetext.Quote(server), safetext.Quote(t.Name), strings.Join(kinds, ", "), safetext.Quote(*def.Description), lockRel)
			}
		}
	}
}

// matchConfigs checks that lf locks exactly p's enabled servers (p nil:
// nothing to check). A difference is drift, naming each server.
func matchConfigs(lf *lock.Lockfile, p *config.Project, display string) error {
	if p == nil {
		return nil
	}
	var problems []string
	configured := map[string]bool{}
	for _, s := range p.Servers {
		configured[s.Name] = true
		if _, ok := lf.Servers[s.Name]; !ok {
			problems = append(problems, fmt.Sprintf("server %q is configured in %s but not locked", s.Name, check.Where(s)))
		}
	}
	skipped := map[string]config.Skipped{}
	for _, s := range p.Skipped {
		skipped[s.Name] = s
	}
	for _, name := range slices.Sorted(maps.Keys(lf.Servers)) {
		if configured[name] {
			continue
		}
		if s, ok := skipped[name]; ok {
			problems = append(problems, fmt.Sprintf("server %q is locked but not enabled (%s: %s)", name, s.File, s.Reason))
		} else {
			problems = append(problems, fmt.Sprintf("server %q is locked but no client config defines it", name))
		}
	}
	if len(problems) == 0 {
		return nil
	}
	slices.Sort(problems)
	return drift(errorList{{
		lines: append([]string{display + " does not lock exactly the configured servers:"}, problems...),
		hints: []string{"run 'agentgate lock' to update the lockfile, review the change and commit it"},
	}})
}

func countTools(lf *lock.Lockfile) int {
	n := 0
	if lf == nil {
		return 0
	}
	for _, s := range lf.Servers {
		n += len(s.Tools)
	}
	return n
}

// plural returns "1 tool", "2 tools".
func plural(n int, noun string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// reportNotes prints, on stderr, how another client that reads the same
// file would start a locked server differently (config.Server.Notes: VS
// Code reading Claude Code's .mcp.json). Notes never change the exit code.
func reportNotes(e *env, p *config.Project) {
	for _, s := range p.Servers {
		for _, n := range s.Notes {
			fmt.Fprintf(e.stderr, "agentgate: note: %s\n", safetext.VisibleLine(fmt.Sprintf("server %q (%s): %s", s.Name, check.Where(s), n)))
		}
	}
}

// reportPackages checks, offline, the packages p's stdio servers run
// against the ones lf pins: an exact spec naming another version or
// package, or a file package whose bytes in the work tree changed, is
// drift (exit 1). It names, on stderr, every spec without an exact version
// (with the exact spec `agentgate pin` would write from lf, or "not locked
// yet") and every command no package can be attributed to; with
// agentgate.toml require-pinned-packages = true those are drift too.
func reportPackages(e *env, ws *check.Workspace, p *config.Project, lf *lock.Lockfile) error {
	checks, err := check.CheckPackages(p, lf)
	if err != nil {
		return err
	}
	problems, notes := check.OfflinePackageDrift(checks, nil, check.WorkTreeFile(ws.Root))
	unpinned := check.UnpinnedNotes(checks)
	for _, n := range append(notes, check.UnlockedNotes(checks)...) {
		fmt.Fprintf(e.stderr, "agentgate: note: %s\n", safetext.VisibleLine(n))
	}
	if !p.Settings.RequirePinnedPackages {
		for _, line := range unpinned {
			fmt.Fprintf(e.stderr, "agentgate: note: %s\n", safetext.VisibleLine(line))
		}
		unpinned = nil
	}
	var list errorList
	if len(problems) > 0 {
		slices.Sort(problems)
		list = append(list, problem{
			lines: append([]string{ws.LockRel + " does not pin the packages the configs run:"}, problems...),
			hints: []string{check.PackageDriftHint},
		})
	}
	if len(unpinned) > 0 {
		list = append(list, problem{
			lines: append([]string{"agentgate.toml requires pinned packages:"}, unpinned...),
			hints: []string{"pin each spec to an exact version (agentgate pin writes the versions the lockfile pins: npx -y pkg@1.4.2, image:tag@sha256:...), or set require-pinned-packages = false"},
		})
	}
	if len(list) == 0 {
		return nil
	}
	return drift(list)
}
