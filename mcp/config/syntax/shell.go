package syntax

import "strings"

// ShellQuote quotes s for display, as one POSIX shell word, when it is
// empty or holds characters a shell would interpret; otherwise s is
// returned as it is.
func ShellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`;&|<>()*?[]{}#~!") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
