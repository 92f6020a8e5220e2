package cli

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/agentgate/agentgate/mcp/config"
)

// Exit codes: the contract documented in README.md and docs/ROUTES.md.
const (
	ExitOK         = 0 // in sync / success
	ExitDrift      = 1 // the surface or lockfile differs
	ExitInvalid    = 2 // invalid usage or input (flags, configs, lockfile)
	ExitUnverified = 3 // could not verify (server unreachable, timeout, missing variable, git failure)
)

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
	var ee *ExitError
	if errors.As(err, &ee) {
		return ee.Code
	}
	return ExitInvalid
}

// classify turns err into an *ExitError of class code, with err's hints
// (see hintsOf); the error keeps err's chain for errors.Is/As. A
// *config.Error marked Unverifiable (and no other kind of error besides)
// makes it class 3.
func classify(code int, err error) error {
	if allUnverifiable(err) {
		code = ExitUnverified
	}
	var ces config.Errors
	if errors.As(err, &ces) && len(ces) > 1 {
		var lines errorLines
		var hints []string
		for _, ce := range ces {
			lines = append(lines, ce.Error())
			for _, h := range ce.Hints() {
				if !slices.Contains(hints, h) {
					hints = append(hints, h)
				}
			}
		}
		return &ExitError{Code: code, Err: lines, Hints: hints}
	}
	return &ExitError{Code: code, Err: err, Hints: hintsOf(err)}
}

// hintsOf returns what to tell the user to do about err: the hints of
// every error in its chain, outermost first, each once. Library errors
// carry hints as values, never as text in the message: Hint() string
// (lock, gitint) or Hints() []string (mcp/config, mcp/command; a captured
// server's *wire.Error carries them in its Hints field, read by live.go).
func hintsOf(err error) []string {
	var hints []string
	add := func(h string) {
		if h != "" && !slices.Contains(hints, h) {
			hints = append(hints, h)
		}
	}
	var walk func(error)
	walk = func(err error) {
		switch h := err.(type) {
		case interface{ Hint() string }:
			add(h.Hint())
		case interface{ Hints() []string }:
			for _, x := range h.Hints() {
				add(x)
			}
		}
		switch x := err.(type) {
		case interface{ Unwrap() []error }:
			for _, e := range x.Unwrap() {
				walk(e)
			}
		case interface{ Unwrap() error }:
			walk(x.Unwrap())
		}
	}
	walk(err)
	return hints
}

// errorLines is an error of several messages, which report prints one to
// a line.
type errorLines []string

func (l errorLines) Error() string { return strings.Join(l, "\n") }

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

// hintOf returns err's Hint() when it has one, else def.
func hintOf(err error, def string) string {
	var h interface{ Hint() string }
	if errors.As(err, &h) && h.Hint() != "" {
		return h.Hint()
	}
	return def
}
