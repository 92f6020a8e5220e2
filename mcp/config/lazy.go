package config

import (
	"regexp"
	"sync"
)

// lazyRegexp returns a function that compiles expr on its first call, so
// that a regular expression costs nothing in commands that never use it
// (agentgate version and the commit hook start fast; issue #5).
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
