// Package lazyre holds New: a regular expression compiled on first use,
// so that a package's expressions cost nothing in commands that never use
// them (agentgate version and the commit hook start fast; issue #5).
package lazyre

import (
	"regexp"
	"sync"
)

// New returns a function that compiles expr (regexp.MustCompile) on its
// first call and returns that one *regexp.Regexp on every call.
func New(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
