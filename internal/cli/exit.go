package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/agentgate/agentgate/internal/check"
	"github.com/agentgate/agentgate/mcp/config"
	"github.com/agentgate/agentgate/render"
)

// Exit codes: the contract documented in README.md and docs/ROUTES.md.
const (
	ExitOK         = 0 // in sync / success
	ExitDrift      = 1 // the surface or lockfile differs
	ExitInvalid    = 2 // invalid usage or input (flags, configs, lockfile)
	ExitUnverified = 3 // could not verify (server unreachable, timeout, missing variable, git failure)
)

// exitClasses are the exit codes as 'agentgate help' and agentgate(1)
// list them.
var exitClasses = []struct {
	code int
	text string
}{
	{ExitOK, "in sync / success"},
	{ExitDrift, "drift: the live surface or the lockfile changed"},
	{ExitInvalid, "invalid usage or input (flags, client configs, lockfile)"},
	{ExitUnverified, "could not verify (server unreachable, timeout, missing variable, git failure)"},
}

// ExitError carries an exit class and a message. Every error a command
// returns is converted to one; an error of another type is exit class 2
// wrapped by whoever returns it (see exitCode).
type ExitError struct {
	Code  int
	Err   error    // may be nil for a silent exit (the command already printed)
	Hints []string // printed as "agentgate: hint: ..." lines
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit %d", e.Code)
	}
	return e.Err.Error()
}

func (e *ExitError) Unwrap() error { return e.Err }

// ExitCode returns the process exit code for e.
func (e *ExitError) ExitCode() int { return e.Code }

func drift(err error, hints ...string) error {
	return &ExitError{Code: ExitDrift, Err: err, Hints: hints}
}

func invalid(err error, hints ...string) error {
	return &ExitError{Code: ExitInvalid, Err: err, Hints: hints}
}

func unverified(err error, hints ...string) error {
	return &ExitError{Code: ExitUnverified, Err: err, Hints: hints}
}

// silent returns an exit error whose message the command already printed.
func silent(code int) error { return &ExitError{Code: code} }

// exitCode maps err to an exit code: nil is 0, an *ExitError its Code,
// anything else 2 (an unclassified error is treated as invalid input, and
// is a bug to be classified).
func exitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	if ee := exitErrorOf(err); ee != nil {
		return ee.Code
	}
	return ExitInvalid
}

// exitErrorOf is the *ExitError in err's chain, else the *check.Error
// there as one (of its class's exit code: check.Invalid 2,
// check.Unverified 3, or 3 for a Classify'd error whose config errors are
// all Unverifiable; see classify), else nil.
func exitErrorOf(err error) *ExitError {
	var ee *ExitError
	if errors.As(err, &ee) {
		return ee
	}
	var ce *check.Error
	if !errors.As(err, &ce) {
		return nil
	}
	code := map[check.Class]int{check.Invalid: ExitInvalid, check.Unverified: ExitUnverified}[ce.Class]
	if ce.Classified() {
		return classify(code, err).(*ExitError)
	}
	return &ExitError{Code: code, Err: err, Hints: ce.Hints()}
}

// classify turns err into an *ExitError of class code, with err's hints
// (see hintsOf); the error keeps err's chain for errors.Is/As. A
// *config.Error marked Unverifiable (and no other kind of error besides)
// makes it class 3. Several config errors (config.Errors) become an
// errorList: each is printed with its own hints.
func classify(code int, err error) error {
	if allUnverifiable(err) {
		code = ExitUnverified
	}
	if list := listOf(err); list != nil {
		return &ExitError{Code: code, Err: list}
	}
	return &ExitError{Code: code, Err: err, Hints: check.HintsOf(err)}
}

// listOf returns the problems of an err that holds several errors (a
// config.Errors anywhere in its chain, else an errors.Join at its top),
// each with its own hints (hintsOf); nil when err is one error.
func listOf(err error) errorList {
	var errs []error
	var ces config.Errors
	if errors.As(err, &ces) {
		errs = ces.Unwrap()
	} else if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	if len(errs) < 2 {
		return nil
	}
	list := make(errorList, len(errs))
	for i, e := range errs {
		list[i] = problem{lines: []string{e.Error()}, hints: check.HintsOf(e)}
	}
	return list
}

// problem is one error as agentgate prints it: its message, one or more
// lines (each printed as an "error:" line), and the hints that belong to
// it, printed right after them.
type problem struct {
	lines []string
	hints []string
}

// report is p as the reports carry it: its lines joined, hints [] for none.
func (p problem) report() render.Problem {
	return render.Problem{Message: strings.Join(p.lines, "\n"), Hints: nonNil(p.hints)}
}

// errorList is several errors, each with its own hints: report prints
// them in order, each followed by its hints, so that a reader can tell
// which hint belongs to which error.
type errorList []problem

// Error is every line of every problem, one to a line (hints left out).
func (l errorList) Error() string {
	var all []string
	for _, p := range l {
		all = append(all, p.lines...)
	}
	return strings.Join(all, "\n")
}

// problemsOf returns what report prints for err, in order: the problems
// of an errorList or of several errors (listOf), else err's message with
// an *ExitError's Hints. An error of another type is read as classify
// makes it (its hints are those hintsOf finds). An *ExitError's Hints
// beside an errorList come last, as a problem without lines: they are
// about all of it. A silent *ExitError has none.
func problemsOf(err error) []problem {
	if err == nil {
		return nil
	}
	ee := exitErrorOf(err)
	if ee == nil {
		ee = classify(ExitInvalid, err).(*ExitError) // class 2, as exitCode says
	}
	var out []problem
	list, ok := ee.Err.(errorList)
	if !ok {
		list = listOf(ee.Err)
	}
	switch {
	case list != nil:
		out = append(out, list...)
		if len(ee.Hints) > 0 {
			out = append(out, problem{hints: ee.Hints})
		}
	case ee.Err != nil:
		out = append(out, problem{lines: []string{ee.Err.Error()}, hints: ee.Hints})
	case len(ee.Hints) > 0:
		out = append(out, problem{hints: ee.Hints})
	}
	return out
}

// allUnverifiable reports whether err holds config errors and all of them
// are Unverifiable.
func allUnverifiable(err error) bool {
	any, all := false, true
	var walk func(error)
	walk = func(err error) {
		switch x := err.(type) {
		case *config.Error:
			any = true
			all = all && x.Unverifiable
		case interface{ Unwrap() []error }:
			for _, e := range x.Unwrap() {
				walk(e)
			}
		case interface{ Unwrap() error }:
			walk(x.Unwrap())
		default:
			all = false
		}
	}
	walk(err)
	return any && all
}
