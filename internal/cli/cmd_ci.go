package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/agentgate/agentgate/internal/atomicfile"
	"github.com/agentgate/agentgate/internal/check"
	"github.com/agentgate/agentgate/internal/safetext"
	"github.com/agentgate/agentgate/lock"
	"github.com/agentgate/agentgate/render"
	"github.com/agentgate/agentgate/triage"
)

func init() {
	register(&command{
		name:    "ci",
		summary: "the read-only CI gate: committed lockfile vs live surface, every server reported",
		usage: `Usage: agentgate ci [--format text|json|sarif|markdown|gitlab] [--sarif FILE] [--lockfile PATH] [--trusted-ref REV] [--fail-on SEVERITY] [--timeout D] [--concurrency N]

CI is the read-only gate for continuous integration. It needs a git
repository and a committed, valid agentgate.lock. It fails when the
lockfile in the working tree pins something other than HEAD's (an
uncommitted lock change; compared by content, so line ends and layout do
not count), when the live surface differs from the lockfile, and when any
server could not be verified. Every server is attempted and reported. It
never writes a file.

With --trusted-ref REV (or AGENTGATE_TRUSTED_REF=REV) every setting comes
from REV (the configs and agentgate.toml there): it starts only the
servers defined identically at REV, before and after resolving their
variables, whose repository files (command, arguments, env values, cwd,
envFile, {file:...}) are identical at REV: run it so on pull requests,
where the configs come from the pull request. Every other server is
reported and not started (exit 3). See docs/SECURITY.md.

With GITHUB_ACTIONS=true it also prints workflow commands
(::error file=agentgate.lock,line=N,...) that point at the lockfile lines
concerned, unless --sarif is given: the SARIF report's code scanning
alerts then carry the findings, once. --format json prints only the report documented in
docs/ci-report.md on stdout; --format sarif a SARIF 2.1.0 log for GitHub
code scanning, --format markdown a report for a pull request comment,
--format gitlab a GitLab Code Quality report (docs/review-formats.md).
When GITHUB_STEP_SUMMARY is set, ci appends the Markdown report to the
file it names, whatever the format.

With --fail-on SEVERITY, drift exits 1 only when a triage label of at
least that severity (high, medium, low) is found on what changed
(docs/TRIAGE.md); other drift is reported and exits 0. Without it, any
drift exits 1.

Exit codes: 0 in sync, 1 drift or uncommitted lockfile change (also when
some other server could not be verified), 2 no lockfile, damaged lockfile,
unknown lockfile version, invalid flags or configs, 3 a server could not
be verified or git failed.

Examples:
  agentgate ci
  agentgate ci --format json > agentgate-report.json
  agentgate ci --format sarif > agentgate.sarif
  agentgate ci --sarif agentgate.sarif   # text in the log, SARIF for upload
  agentgate ci --trusted-ref origin/main
  agentgate ci --fail-on high`,
		flags: func(fs *flag.FlagSet) {
			fs.String("format", "text", "output `format`: text, json (docs/ci-report.md), sarif, markdown or gitlab (docs/review-formats.md)")
			fs.String("lockfile", "", "lockfile `path` (default: agentgate.toml's lockfile, else agentgate.lock at the repository root)")
			fs.String("sarif", "", "also write the SARIF report to `file` (whatever --format is)")
			fs.String("fail-on", "", "exit 1 on drift only when a triage label of at least `severity` (high, medium or low) is found (docs/TRIAGE.md); default: any drift")
			captureFlags(fs)
		},
		run: runCI,
	})
}

var ciResults = map[int]string{ExitOK: "in-sync", ExitDrift: "drift", ExitInvalid: "invalid", ExitUnverified: "unverified"}

func runCI(e *env, fs *flag.FlagSet, args []string) error {
	format := flagValue[string](fs, "format")
	if _, ok := reviewFormats[format]; !ok && format != "text" && format != "json" {
		return invalid(fmt.Errorf("--format %q: want text, json, sarif, markdown or gitlab", format))
	}
	if len(args) > 0 {
		return invalid(fmt.Errorf("unexpected argument %q", args[0]), "run 'agentgate ci -h' for usage")
	}
	if f := flagValue[string](fs, "fail-on"); f != "" {
		if _, ok := triage.ParseSeverity(f); !ok {
			return invalid(fmt.Errorf("--fail-on %q: want high, medium or low", f))
		}
	}
	rep := &render.CIReport{ReportVersion: render.CIReportVersion, Lockfile: lock.FileName, Servers: []render.CIServer{}, Errors: []render.Problem{}}
	out := e.stdout
	if format != "text" {
		out = io.Discard
	}
	run := &reviewRun{against: "HEAD"}
	err := ci(e, fs, out, rep, run, format != "text")
	sarifFile := flagValue[string](fs, "sarif")
	if fn, ok := reviewFormats[format]; ok || sarifFile != "" || e.getenv("GITHUB_STEP_SUMMARY") != "" {
		r := run.review("ci", err)
		if ok {
			e.stdout.Write(fn(r))
		}
		if sarifFile != "" {
			if werr := atomicfile.WriteFile(absFromDir(e, sarifFile), reviewFormats["sarif"](r), 0o644); werr != nil {
				fmt.Fprintf(e.stderr, "agentgate: warning: --sarif: %s\n", safetext.VisibleLine(werr.Error()))
			}
		}
		appendStepSummary(e, render.Markdown(r))
	}
	if format == "json" {
		rep.ExitCode = exitCode(err)
		rep.Result = ciResults[rep.ExitCode]
		if ee := exitErrorOf(err); ee != nil && ee.Err != nil && (rep.ExitCode == ExitInvalid || len(rep.Servers) == 0) {
			for _, p := range problemsOf(err) {
				rep.Errors = append(rep.Errors, p.report())
			}
		}
		e.stdout.Write(render.JSON(rep))
	}
	return err
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func ci(e *env, fs *flag.FlagSet, out io.Writer, rep *render.CIReport, run *reviewRun, jsonMode bool) error {
	ws, err := openWorkspaceFor(e, true, true, flagValue[string](fs, "lockfile"), "ci", false)
	if err != nil {
		return err
	}
	rep.Lockfile = ws.LockRel
	run.ws = ws
	old, data, exists, err := check.ReadLockfile(ws.LockPath, ws.LockRel)
	if err != nil {
		return err
	}
	run.data = data
	if !exists {
		return invalid(fmt.Errorf("%s: no lockfile", ws.LockRel),
			"create it with 'agentgate lock', review it and commit it")
	}
	head, inHead, err := ws.Repo.FileAt("HEAD", ws.LockRel)
	if err != nil {
		return classify(ExitUnverified, err)
	}
	color := e.useColor(e.stdout)
	annot := ciAnnotations(e, fs, out, jsonMode)
	if what := uncommittedLockfile(head, inHead, old); what != "" {
		rep.LockfileUncommitted = true
		run.uncommitted, run.against = what, "working tree"
		fmt.Fprintf(out, "agentgate: %s %s (uncommitted lockfile change):\n", ws.LockRel, what)
		fmt.Fprint(out, render.UnifiedDiff(withLF(head), withLF(data), "a/"+ws.LockRel+" (HEAD)", "b/"+ws.LockRel+" (working tree)", color))
		if annot != nil {
			annotate(annot, ws.LockRel, 1, "agentgate: uncommitted lockfile change",
				ws.LockRel+" "+what+"; commit the lockfile that 'agentgate lock' wrote")
		}
	}
	c, err := compareLive(e, fs, ws, old, ws.Project.Servers)
	if err != nil {
		return err
	}
	rep.Servers = ciServers(ws, c)
	run.c = c
	printCI(out, ws, c, rep, data, color)
	if annot != nil {
		annotateServers(annot, ws.LockRel, data, rep.Servers)
	}
	return ciVerdict(out, fs, ws, c, rep.LockfileUncommitted)
}

// ciAnnotations is where ci prints GitHub Actions ::error annotations, or
// nil for none. On GitHub Actions, findings are reported once: as code
// scanning alerts when a SARIF report is written for upload (--sarif, the
// action's sarif: true; a notice on stderr says so), else as annotations
// on out (on stderr when stdout has a machine format).
func ciAnnotations(e *env, fs *flag.FlagSet, out io.Writer, jsonMode bool) io.Writer {
	if e.getenv("GITHUB_ACTIONS") != "true" {
		return nil
	}
	if flagValue[string](fs, "sarif") != "" {
		fmt.Fprintln(e.stderr, "::notice title=agentgate::findings go to the SARIF report (code scanning alerts), not also to annotations")
		return nil
	}
	if jsonMode {
		return e.stderr
	}
	return out
}

// uncommittedLockfile says how the working tree's lockfile old differs
// from HEAD's (head; inHead false when HEAD has none): "is not
// committed", "differs from HEAD", or "" when they pin the same. By
// content, never bytes (docs/spec/lockfile.md, Comparing): a checkout
// with core.autocrlf=true has CRLF line ends and is clean; a damaged HEAD
// lockfile differs from any.
func uncommittedLockfile(head []byte, inHead bool, old *lock.Lockfile) string {
	if !inHead {
		return "is not committed"
	}
	if headLf, err := lock.Parse(head); err != nil || !lock.SameContent(headLf, old) {
		return "differs from HEAD"
	}
	return ""
}

// printCI prints ci's text report of c on out: the server table and, on
// drift, the summary and the lockfile's unified diff against the live one.
func printCI(out io.Writer, ws *check.Workspace, c *comparison, rep *render.CIReport, data []byte, color bool) {
	tw := tabwriter.NewWriter(out, 0, 8, 2, ' ', 0)
	for _, s := range rep.Servers {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", ciStatusText[s.Status], safetext.VisibleLine(s.Name), safetext.VisibleLine(render.CIDetail(s)))
	}
	tw.Flush()
	if c.drifted() {
		fmt.Fprint(out, render.Summary(c.diff, c.cap.Defs, c.labels, color))
		label := "HEAD"
		if rep.LockfileUncommitted {
			label = "working tree"
		}
		fmt.Fprint(out, render.UnifiedDiff(withLF(data), c.shownData(c.old), "a/"+ws.LockRel+" ("+label+")", "b/"+ws.LockRel+" (live)", color))
	}
}

// ciVerdict is ci's exit error: the comparison's verdict, where drift
// without a label of --fail-on's severity is reported, not failed; and an
// uncommitted lockfile (uncommitted) is drift whatever else was found.
func ciVerdict(out io.Writer, fs *flag.FlagSet, ws *check.Workspace, c *comparison, uncommitted bool) error {
	hint := "if the change is expected, run 'agentgate lock' locally, review the diff and commit " + ws.LockRel
	verdict := c.verdict(ws.LockRel, hint)
	if sev, ok := triage.ParseSeverity(flagValue[string](fs, "fail-on")); ok && exitCode(verdict) == ExitDrift && !failsOn(c.labels, sev) {
		// Drift with no label of the chosen severity: reported, not failed.
		if len(c.cap.Failures) > 0 {
			verdict = &ExitError{Code: failureCode(c.cap.Failures),
				Err: fmt.Errorf("%s could not be verified: %s; the drift has no %s label (--fail-on)", plural(len(c.cap.Failures), "server"), c.failedNames(), sev)}
		} else if !uncommitted {
			fmt.Fprintf(out, "agentgate: ci ok: the live surface differs from %s, with no label of severity %s or higher (--fail-on %s)\n", ws.LockRel, sev, sev)
			verdict = nil
		}
	}
	if uncommitted && exitCode(verdict) != ExitDrift {
		msg := ws.LockRel + " has uncommitted changes"
		if verdict != nil {
			msg += "; and " + verdict.Error()
		}
		return drift(errors.New(msg), "commit "+ws.LockRel+" (git add "+ws.LockRel+" && git commit), or restore it: git checkout -- "+ws.LockRel)
	}
	if verdict == nil {
		fmt.Fprintf(out, "agentgate: ci ok: %s, %s in sync with %s\n",
			plural(len(c.live.Servers), "server"), plural(countTools(c.live), "tool"), ws.LockRel)
	}
	return verdict
}

var ciStatusText = map[string]string{"in-sync": "in sync", "drift": "drift", "unverified": "could not verify"}

// ciServers reports every server configured or locked, sorted by name
// (render.CIServers).
func ciServers(ws *check.Workspace, c *comparison) []render.CIServer {
	run := render.CIRun{Old: c.old, Live: c.live, Diff: c.diff, Failures: map[string]render.Problem{}, Labels: c.labels}
	for _, s := range ws.Project.Servers {
		run.Configured = append(run.Configured, render.CIPlace{Name: s.Name, File: s.File, Line: s.Line})
	}
	for _, f := range c.cap.Failures {
		run.Failures[f.Server] = render.Problem{Message: f.Msg, Stderr: f.Stderr, Hints: f.Hints}
	}
	return render.CIServers(run)
}

// annotateServers prints a GitHub Actions ::error for every drifted tool
// and every server that could not be verified, at its lockfile line.
func annotateServers(w io.Writer, file string, data []byte, servers []render.CIServer) {
	for _, s := range servers {
		switch {
		case s.Status == "unverified":
			annotate(w, file, lockfileLine(data, s.Name, ""), "agentgate: could not verify server "+safetext.VisibleLine(s.Name),
				fmt.Sprintf("server %q (%s) could not be verified: %s", s.Name, s.File, s.Error.Message))
		case s.Change == string(lock.Added):
			annotate(w, file, lockfileLine(data, s.Name, ""), "agentgate: server not locked",
				fmt.Sprintf("server %q is configured in %s but not locked; run 'agentgate lock'", s.Name, s.File))
		case s.Change == string(lock.Removed):
			annotate(w, file, lockfileLine(data, s.Name, ""), "agentgate: server no longer configured",
				fmt.Sprintf("server %q is locked but no longer configured; run 'agentgate lock'", s.Name))
		case s.Status == "drift":
			for _, t := range s.Tools.Added {
				annotate(w, file, lockfileLine(data, s.Name, ""), "agentgate: tool added",
					fmt.Sprintf("server %q lists a new tool %s", s.Name, safetext.Quote(t)))
			}
			for _, t := range s.Tools.Removed {
				annotate(w, file, lockfileLine(data, s.Name, t), "agentgate: tool removed",
					fmt.Sprintf("server %q no longer lists tool %s", s.Name, safetext.Quote(t)))
			}
			for _, t := range s.Tools.Changed {
				annotate(w, file, lockfileLine(data, s.Name, t.Name), "agentgate: tool changed",
					fmt.Sprintf("server %q tool %s changed: %s", s.Name, safetext.Quote(t.Name), strings.Join(t.Fields, ", ")))
			}
		}
	}
}

// annotate prints one GitHub Actions error workflow command.
// Every part is made safe with safetext.VisibleLine first (it quotes names,
// paths and server text), then escaped as the runner expects.
func annotate(w io.Writer, file string, line int, title, msg string) {
	fmt.Fprintf(w, "::error file=%s,line=%d,title=%s::%s\n", ghProperty(safetext.VisibleLine(file)), line,
		ghProperty(safetext.VisibleLine(title)), ghData(safetext.VisibleLine(msg)))
}

// ghData escapes a workflow command's message: % CR LF.
func ghData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// ghProperty escapes a workflow command's property value: also : and ,.
func ghProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// lockfileLine is the line of data (a lockfile) an annotation points at:
// the tool's name in server's entry, else the server's key, else line 1.
func lockfileLine(data []byte, server, tool string) int {
	if tool != "" {
		if n := render.LockfileLine(data, server, tool); n > 0 {
			return n
		}
	}
	if n := render.LockfileLine(data, server, ""); n > 0 {
		return n
	}
	return 1
}
