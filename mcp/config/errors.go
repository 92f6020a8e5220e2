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
//	hint: HINT
//
// leaving out the parts that are empty (COLUMN when 0, LINE and COLUMN when
// the line is unknown). Msg and Hint never contain a resolved variable value:
// they show templates and variable names only.
type Error struct {
	File   string
	Line   int
	Column int
	Server string
	Field  string
	Msg    string
	Hint   string
	// Unverifiable marks errors that mean "could not verify" (exit 3),
	// such as a missing variable, rather than invalid input (exit 2).
	Unverifiable bool
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
	if e.Hint != "" {
		b.WriteString("\nhint: ")
		b.WriteString(e.Hint)
	}
	return b.String()
}
