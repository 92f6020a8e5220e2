// Package check is agentgate's drift engine: the workspace a command works
// in (repository root, configs, lockfile path), live capture through
// agentgate-mcp (mcp/wire), the --trusted-ref guard, the commit hook's
// view of the index and HEAD, lockfile version 2's entries and the offline
// package checks. It prints nothing and parses no flags: internal/cli
// settles the options, calls it, and prints what it returns.
package check

import (
	"context"
	"slices"
)

// Env is what the engine may touch of the outside world; internal/cli
// fills it from its own, and tests replace it.
type Env struct {
	Ctx    context.Context             // nil: context.Background()
	Dir    string                      // working directory
	Getenv func(string) string         // environment
	Lookup func(string) (string, bool) // environment, with presence
	// Version is agentgate's version, named in the hint to install a
	// matching agentgate-mcp.
	Version string
	// Detach receives the wait of each agentgate-mcp run that answered and
	// is still stopping its servers (wire.Helper.Detach), to be called
	// before the process exits; nil: the capture waits for it itself.
	Detach func(wait func() error)
}

// Class is the kind of an engine error; internal/cli maps each to its exit
// code.
type Class int

const (
	// Invalid is invalid input: flags, configs, lockfile (exit 2).
	Invalid Class = iota + 1
	// Unverified is could not verify: a server, a variable, git (exit 3).
	Unverified
)

// Error is an engine error of a class, with what to do about it.
type Error struct {
	Class Class
	Err   error
	hints []string
	// classified: the hints are Err's own (Classify): a caller reads them
	// from Err's chain, and splits several config errors into their own
	// problems.
	classified bool
}

func (e *Error) Error() string { return e.Err.Error() }

func (e *Error) Unwrap() error { return e.Err }

// Hints is what to do about e (given by the one who made it; see Classify).
func (e *Error) Hints() []string { return e.hints }

// Classified reports whether e was made by Classify: its hints are those
// of the errors in its chain, not its own.
func (e *Error) Classified() bool { return e.classified }

// invalid is err as invalid input, with hints.
func invalid(err error, hints ...string) error {
	return &Error{Class: Invalid, Err: err, hints: hints}
}

// Classify is err of class c, its hints those of the errors in its chain
// (a *config.Error marked Unverifiable makes a caller read it as
// Unverified; see internal/cli's classify).
func Classify(c Class, err error) error {
	return &Error{Class: c, Err: err, classified: true}
}

// HintOf returns the first of HintsOf(err), else def.
func HintOf(err error, def string) string {
	if h := HintsOf(err); len(h) > 0 {
		return h[0]
	}
	return def
}

// HintsOf returns what to tell the user to do about err: the hints of
// every error in its chain, outermost first, each once. Library errors
// carry hints as values, never as text in the message: a method Hints()
// []string (lock, gitint, internal/atomicfile, mcp/config, mcp/command, an
// *Error; a captured server's *wire.Error carries them in its Hints field,
// read by CaptureResolved).
func HintsOf(err error) []string {
	var hints []string
	add := func(h string) {
		if h != "" && !slices.Contains(hints, h) {
			hints = append(hints, h)
		}
	}
	var walk func(error)
	walk = func(err error) {
		if h, ok := err.(interface{ Hints() []string }); ok {
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
