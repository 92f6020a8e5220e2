package cli

// review.go: the report formats of ci and diff (SARIF, Markdown, GitLab
// Code Quality; rendered by package render) and ci's GitHub step summary.

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/agentgate/agentgate/internal/check"
	"github.com/agentgate/agentgate/internal/safetext"
	"github.com/agentgate/agentgate/render"
)

// reviewFormats renders a render.Review in each machine format ci and
// diff share.
var reviewFormats = map[string]func(*render.Review) []byte{
	"sarif":    render.SARIF,
	"markdown": func(r *render.Review) []byte { return []byte(render.Markdown(r)) },
	"gitlab":   render.GitLabCodeQuality,
}

// reviewRun is what a ci or diff run found, for the report formats.
type reviewRun struct {
	ws          *check.Workspace
	c           *comparison // nil when the run stopped before capturing
	data        []byte      // the lockfile compared against
	against     string
	uncommitted string
}

// review builds the render.Review of run, whose exit error is err.
func (run *reviewRun) review(cmd string, err error) *render.Review {
	code := exitCode(err)
	r := &render.Review{Command: cmd, Version: Version(), Lockfile: "agentgate.lock", LockData: run.data,
		Against: run.against, Uncommitted: run.uncommitted, Result: ciResults[code]}
	if run.ws != nil {
		r.Lockfile = run.ws.LockRel
	}
	if ee := exitErrorOf(err); ee != nil && ee.Err != nil && (code == ExitInvalid || run.c == nil) {
		for _, p := range problemsOf(err) {
			r.Errors = append(r.Errors, p.report())
		}
	}
	if run.c == nil {
		return r
	}
	for _, s := range ciServers(run.ws, run.c) {
		r.Servers = append(r.Servers, render.ServerStatus{Name: s.Name, Status: s.Status, File: s.File, Line: s.Line, Tools: s.Tools.Count, Error: s.Error})
	}
	r.Diff = run.c.diff
	r.Live = run.c.cap.Defs
	r.Labels = run.c.labels
	r.UnifiedDiff = render.UnifiedDiff(run.data, run.c.shownData(run.c.old), "a/"+r.Lockfile+" ("+run.against+")", "b/"+r.Lockfile+" (live)", false)
	return r
}

// appendStepSummary appends md to the file $GITHUB_STEP_SUMMARY names
// (relative to the working directory when not absolute). A failure is a
// warning on stderr: the summary is a convenience, the exit code the gate.
func appendStepSummary(e *env, md string) {
	path := e.getenv("GITHUB_STEP_SUMMARY")
	if path == "" {
		return
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(e.dir, path)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err == nil {
		_, err = f.WriteString(md)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "agentgate: warning: GITHUB_STEP_SUMMARY: %s\n", safetext.VisibleLine(err.Error()))
	}
}
