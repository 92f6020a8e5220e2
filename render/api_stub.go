package render

// THIS FILE IS A CONTRACT STUB: the package owner replaces the panics and
// keeps the exported names and signatures.

import (
	"github.com/agentgate/agentgate/lock"
)

// UnifiedDiff returns a minimal unified diff from a to b ("" when equal),
// with ---/+++ headers fromName/toName, "\ No newline at end of file" where
// due, and ANSI colour only when color is true.
func UnifiedDiff(a, b []byte, fromName, toName string, color bool) string { panic("todo") }

// Summary renders d for a person: per server, tools added, removed and
// changed (with fields). For every added or changed tool found in live
// (server -> tool name -> definition) it also shows the live description and
// input schema, made safe with Visible.
func Summary(d lock.Diff, live map[string]map[string]lock.ToolDef, color bool) string {
	panic("todo")
}

// Visible returns s with control characters, ANSI escapes, bidi controls
// and invisible characters (zero-width, Unicode tags, ...) shown as escapes,
// so s can neither hide text nor rewrite the terminal.
func Visible(s string) string { panic("todo") }

// Suspicious lists, in order, the kinds of hidden or direction-changing
// characters s contains (empty if none), for warnings.
func Suspicious(s string) []string { panic("todo") }
