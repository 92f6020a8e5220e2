package cli

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/agentgate/agentgate/internal/check"
	"github.com/agentgate/agentgate/internal/safetext"
	"github.com/agentgate/agentgate/lock"
	"github.com/agentgate/agentgate/mcp/config"
	"github.com/agentgate/agentgate/render"
	"github.com/agentgate/agentgate/triage"
)

func init() {
	register(&command{
		name:    "diff",
		summary: "show how the live tool surface differs from agentgate.lock (writes nothing)",
		usage: `Usage: agentgate diff [--rev REV] [--format text|json|markdown|sarif|gitlab|title] [--lockfile PATH] [--trusted-ref REV] [--timeout D] [--concurrency N]

Diff captures every configured server and compares the live surface with
the lockfile in the working tree, or with the lockfile at git revision REV.
REV is what go-git resolves: a branch, tag, remote-tracking branch or
other reference name, a full or abbreviated (4+ digits) commit id, each
optionally followed by ~N, ^N, ^{commit} or ^{/TEXT}; other git forms
(@{...} reflog and upstream, REV:path, ^{tree}, ranges) are refused with
an error rather than guessed. It prints a summary (per server: tools added, removed, changed, with the
live description and schema of every added or changed tool, hidden
characters made visible), then a unified diff of the lockfile. It writes
nothing. A server that could not be captured is listed as such, never as
in sync.

--format markdown prints the same as a report for a pull request body or
comment (a table per server, collapsed details, the diff fenced);
--format sarif a SARIF 2.1.0 log for GitHub code scanning; --format gitlab
a GitLab Code Quality report; --format title one line naming the servers
and tools that changed, for a pull request title. See
docs/review-formats.md. When GITHUB_STEP_SUMMARY is set, diff appends the
Markdown report to the file it names, whatever the format.

Exit codes: 0 in sync, 1 drift (also when some other server could not be
verified), 2 invalid flags, configs or lockfile, 3 could not verify.

Examples:
  agentgate diff
  agentgate diff --rev origin/main
  agentgate lock && agentgate diff --format markdown --rev HEAD > pr-body.md`,
		flags: func(fs *flag.FlagSet) {
			fs.String("rev", "", "compare with the lockfile at git revision `REV` instead of the working tree")
			fs.String("format", "text", "output `format`: text, json (docs/json-reports.md), markdown, sarif, gitlab or title (docs/review-formats.md)")
			fs.String("lockfile", "", "lockfile `path` (default: agentgate.toml's lockfile, else agentgate.lock at the repository root)")
			captureFlags(fs)
		},
		run: runDiff,
	})
}

// comparison is a live capture compared with a lockfile.
type comparison struct {
	old  *lock.Lockfile // nil: no lockfile
	live *lock.Lockfile // the live surface; servers that failed keep old's entry
	data []byte         // lock.Format(live)
	diff lock.Diff      // old -> live
	cap  *check.Live
	// labels are the triage labels of what diff reports, per server, with
	// agentgate.toml's overrides (labelDiff).
	labels map[string][]triage.Finding
}

// shownData is the live lockfile as the review's unified diff shows it
// against the lockfile old (nil: none): old's generatedBy and generatedAt
// are kept, because the stamp is not part of the surface and a changed
// stamp would be a hunk of its own. The bytes lock writes keep their own
// stamp (data).
func (c *comparison) shownData(old *lock.Lockfile) []byte {
	if old == nil || old.LockfileVersion != c.live.LockfileVersion {
		return c.data
	}
	lf := *c.live
	lf.GeneratedBy, lf.GeneratedAt = old.GeneratedBy, old.GeneratedAt
	return lock.Format(&lf)
}

// withLF returns data with every CRLF line end made LF, for showing two
// lockfiles' texts side by side: git checks out agentgate.lock with CRLF
// under core.autocrlf=true, and a line diff would otherwise show every
// line changed. Lockfile strings escape CR, so no CR inside a value is
// touched. data itself is not changed.
func withLF(data []byte) []byte {
	if !bytes.Contains(data, []byte("\r\n")) {
		return data
	}
	return bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
}

// drifted reports whether a verified server differs.
func (c *comparison) drifted() bool { return !c.diff.Empty() }

// compareLive captures the servers of ws listed in capture (diff and ci:
// every one) and compares the surface with old (may be nil). Every other
// configured server, and a server that could not be captured, keeps old's
// entry in the live lockfile, so it shows as unverified or unchanged, not
// as drift; servers no longer configured are left out. The live lockfile
// has old's version (2, lock's default, when there is none); for version 2, changes only
// in a server's ignore-members keep old's entries.
func compareLive(e *env, fs *flag.FlagSet, ws *check.Workspace, old *lock.Lockfile, capture []config.Server) (*comparison, error) {
	opts, err := captureOptions(e, fs, ws.Project.Settings)
	if err != nil {
		return nil, err
	}
	st, err := stampNow(e)
	if err != nil {
		return nil, err
	}
	printSkipped(e, ws.Project)
	version := keptVersion(old)
	opts.Packages, opts.Root = version == lock.Version2, ws.Root
	l, err := guardedCapture(e, fs, ws, capture, opts)
	if err != nil {
		return nil, err
	}
	warnHidden(e, l, old)
	if version == lock.Version2 {
		toV2(e, l, ws.Project)
		for name, srv := range l.Servers {
			if o, ok := check.PrevServer(old, name); ok {
				l.Servers[name] = check.IgnoreMembers(o, srv, ws.Project.Settings.Servers[name].IgnoreMembers)
			}
		}
	}
	lf := lock.New(version, check.MergeEntries(ws.Project.Servers, l.Servers, old), st, old)
	d := lock.Compare(old, lf)
	return &comparison{old: old, live: lf, data: lock.Format(lf), diff: d, cap: l,
		labels: labelDiff(ws.Project.Settings, d, old, lf, l.Defs)}, nil
}

// verdict is the exit error of a comparison: drift outranks servers that
// could not be verified (a proven change outranks an incomplete check).
func (c *comparison) verdict(lockRel string, driftHints ...string) error {
	switch {
	case c.drifted() && len(c.cap.Failures) > 0:
		return drift(fmt.Errorf("the live surface differs from %s, and %s could not be verified: %s",
			lockRel, plural(len(c.cap.Failures), "server"), c.failedNames()), driftHints...)
	case c.drifted():
		return drift(fmt.Errorf("the live surface differs from %s", lockRel), driftHints...)
	case len(c.cap.Failures) > 0:
		return &ExitError{Code: failureCode(c.cap.Failures),
			Err: fmt.Errorf("%s could not be verified: %s; the others match %s",
				plural(len(c.cap.Failures), "server"), c.failedNames(), lockRel)}
	}
	return nil
}

// failedNames lists the servers that could not be verified, as
// safetext.VisibleLine shows them (names come from the configs).
func (c *comparison) failedNames() string {
	names := make([]string, len(c.cap.Failures))
	for i, f := range c.cap.Failures {
		names[i] = safetext.VisibleLine(f.Server)
	}
	return strings.Join(names, ", ")
}

func runDiff(e *env, fs *flag.FlagSet, args []string) error {
	format := flagValue[string](fs, "format")
	fn, machine := reviewFormats[format]
	if format == "title" {
		fn, machine = func(r *render.Review) []byte { return []byte(r.Title() + "\n") }, true
	}
	if !machine && format != "text" && format != "json" {
		return invalid(fmt.Errorf("--format %q: want text, json, markdown, sarif, gitlab or title", format))
	}
	if len(args) > 0 {
		return invalid(fmt.Errorf("unexpected argument %q", args[0]), "run 'agentgate diff -h' for usage")
	}
	run := &reviewRun{}
	out := e.stdout
	if machine {
		out = io.Discard
	}
	err := diff(e, fs, out, run)
	if machine || e.getenv("GITHUB_STEP_SUMMARY") != "" {
		r := run.review("diff", err)
		if machine {
			e.stdout.Write(fn(r))
		}
		appendStepSummary(e, render.Markdown(r))
	}
	return err
}

// diff runs 'agentgate diff', printing the text report on out and
// recording what it compared in run.
func diff(e *env, fs *flag.FlagSet, out io.Writer, run *reviewRun) error {
	ws, err := openWorkspaceFor(e, true, true, flagValue[string](fs, "lockfile"), "diff", false)
	if err != nil {
		return err
	}
	run.ws = ws
	e.rep.setLockfile(ws.LockRel)
	rev := flagValue[string](fs, "rev")
	var (
		old    *lock.Lockfile
		data   []byte
		exists bool
		label  = "working tree"
	)
	if rev != "" {
		label = rev
		if strings.HasPrefix(ws.LockRel, "/") || strings.HasPrefix(ws.LockRel, "../") {
			return invalid(fmt.Errorf("--rev: %s is outside the repository", ws.LockRel))
		}
		data, exists, err = ws.Repo.FileAt(rev, ws.LockRel)
		if err != nil {
			return classify(ExitInvalid, err)
		}
		if exists {
			if old, err = check.ParseLockfile(data, ws.LockRel+" at "+rev); err != nil {
				return err
			}
		}
	} else if old, data, exists, err = check.ReadLockfile(ws.LockPath, ws.LockRel); err != nil {
		return err
	}
	if !exists {
		fmt.Fprintf(e.stderr, "agentgate: %s does not exist (%s); every live server shows as added\n", ws.LockRel, label)
	}
	run.data, run.against = data, label
	c, err := compareLive(e, fs, ws, old, ws.Project.Servers)
	if err != nil {
		return err
	}
	run.c = c
	reportDiffServers(e.rep, ws, c)
	color := e.useColor(out)
	if c.drifted() {
		fmt.Fprint(out, render.Summary(c.diff, c.cap.Defs, c.labels, color))
		fmt.Fprint(out, render.UnifiedDiff(withLF(data), c.shownData(c.old),
			"a/"+ws.LockRel+" ("+label+")", "b/"+ws.LockRel+" (live)", color))
	}
	if len(c.cap.Failures) > 0 {
		fmt.Fprintf(out, "agentgate: could not verify %d of %s: %s\n",
			len(c.cap.Failures), plural(len(ws.Project.Servers), "server"), c.failedNames())
	} else if !c.drifted() {
		fmt.Fprintf(out, "agentgate: in sync: %s, %s match %s (%s)\n",
			plural(len(c.live.Servers), "server"), plural(countTools(c.live), "tool"), ws.LockRel, label)
	}
	return c.verdict(ws.LockRel, "if the change is expected, run 'agentgate lock', review the diff and commit "+ws.LockRel)
}
