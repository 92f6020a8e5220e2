package config

import (
	"fmt"
	"strings"
)

// Error is a configuration error with position.
//
// Error() renders it as
//
//	FILE:LINE:COLUMN: server "NAME": FIELD: MSG
//
// leaving out the parts that are empty (COLUMN when 0, LINE and COLUMN when
// the line is unknown). The hint is not part of that text: it is a value of
// its own (Hints), which agentgate prints as an "agentgate: hint: " line.
// Msg and Hint never contain a resolved variable value: they show templates
// and variable names only.
type Error struct {
	File   string
	Line   int
	Column int
	Server string
	Field  string
	Msg    string
	Hint   string // what the user can do about it; "" when there is nothing to say
	// Unverifiable marks errors that mean "could not verify" (exit 3),
	// such as a missing variable, rather than invalid input (exit 2).
	Unverifiable bool

	// kind names the class of a syntax-level error ("invalid JSON",
	// "duplicate member", ...), or is the whole message when it holds
	// nothing read from the file ("cannot read: permission denied"), for
	// the short form that Load reports for files outside the repository;
	// "" means "invalid configuration".
	kind string
}

// Position renders File:Line:Column, leaving out unknown parts.
func (e *Error) Position() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
		if e.Column > 0 {
			fmt.Fprintf(&b, ":%d", e.Column)
		}
	}
	return b.String()
}

func (e *Error) Error() string {
	var b strings.Builder
	if p := e.Position(); p != "" {
		b.WriteString(p)
		b.WriteString(": ")
	}
	if e.Server != "" {
		fmt.Fprintf(&b, "server %q: ", e.Server)
	}
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Hints returns what the user can do about e: Hint as a list, nil when it
// is empty. agentgate's CLI collects the Hints of every error in a chain.
func (e *Error) Hints() []string {
	if e.Hint == "" {
		return nil
	}
	return []string{e.Hint}
}

// Errors is every configuration error Load found, in file order. Error()
// renders each *Error on its own line, in order; Unwrap gives them to
// errors.Is and errors.As (and their hints to the CLI).
type Errors []*Error

func (es Errors) Error() string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "\n")
}

// Unwrap returns the errors, for errors.Is and errors.As.
func (es Errors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

// errorsOf returns err's *Errors as a list (nil for nil).
func errorsOf(err error) []*Error {
	switch e := err.(type) {
	case nil:
		return nil
	case *Error:
		if e == nil {
			return nil
		}
		return []*Error{e}
	case Errors:
		return e
	}
	return []*Error{{Msg: err.Error()}}
}

// opaque returns the form of e that may be shown for a file outside the
// repository (an [[extra]] file under "~/" or an absolute path, or a
// symbolic link leaving the work tree): the file, line, column and the
// kind of error, and nothing read from the file (no server name, field,
// value or parser message), so that pointing agentgate at a secret cannot
// print the secret.
func opaque(e *Error) *Error {
	kind := e.kind
	if kind == "" {
		kind = "invalid configuration"
	}
	return &Error{File: e.File, Line: e.Line, Column: e.Column, Msg: kind, kind: kind, Unverifiable: e.Unverifiable,
		Hint: "the file is outside the repository, so agentgate does not quote it; open it to see the problem"}
}
