package lock

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ToolError is a tool definition that cannot be locked: a field of the wrong
// type, invalid text, or a name that occurs twice on one server.
type ToolError struct {
	Kind  string // what the definition is: "" (a tool) or KindPrompt, KindResourceTemplate, KindResource
	Tool  string // the tool's (prompt's, template's) name or the resource's uri, "" when unknown
	Field string // "name", "description", "inputSchema", or "" for the whole object
	Msg   string // what is wrong, e.g. `want a string or null, got a number`
}

// Error formats e as `tool "NAME": field "FIELD": MSG`, leaving out the
// name and the field when they are empty.
func (e *ToolError) Error() string {
	var b strings.Builder
	if e.Kind != "" {
		b.WriteString(e.Kind)
	} else {
		b.WriteString("tool")
	}
	if e.Tool != "" {
		b.WriteString(" " + strconv.Quote(e.Tool))
	}
	if e.Field != "" {
		b.WriteString(": field " + strconv.Quote(e.Field))
	}
	b.WriteString(": " + e.Msg)
	return b.String()
}

// Hints tells the user what to do about e.
func (e *ToolError) Hints() []string {
	return []string{"the MCP server sent a tool definition agentgate cannot pin; report it to the server's maintainers"}
}

// ParseError is a lockfile that is not well-formed version 1: invalid JSON,
// an unknown or missing field, a value of the wrong type or form, unsorted or
// duplicate tools. Path is the JSON path of the offending value, e.g.
// servers["fs"].tools[2].descriptionHash ("" for the whole file).
type ParseError struct {
	Line int    // 1-based line of the value, 0 when unknown
	Path string // JSON path of the value, "" for the whole file
	Msg  string // what is wrong
}

// Error formats e as "line LINE: PATH: MSG", leaving out the line when it
// is 0 and the path when it is empty.
func (e *ParseError) Error() string {
	var b strings.Builder
	if e.Line > 0 {
		fmt.Fprintf(&b, "line %d: ", e.Line)
	}
	if e.Path != "" {
		b.WriteString(e.Path + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Hints tells the user what to do about e.
func (e *ParseError) Hints() []string {
	return []string{"agentgate.lock is written by `agentgate lock`; do not edit it by hand: run `agentgate lock` to regenerate it"}
}

// VersionError is a lockfile whose lockfileVersion this build does not read.
type VersionError struct {
	Found     string // the JSON text of lockfileVersion as found; "" when missing
	Supported []int  // versions this build reads
}

// Error names the version found (or says it is missing) and the versions
// this build reads.
func (e *VersionError) Error() string {
	if e.Found == "" {
		return "lockfileVersion is missing; this build reads lockfileVersion " + e.versions(", ")
	}
	return fmt.Sprintf("unsupported lockfileVersion %s; this build reads lockfileVersion %s (the JSON number)",
		clip(e.Found), e.versions(", "))
}

// versions lists Supported joined by sep.
func (e *VersionError) versions(sep string) string {
	want := make([]string, len(e.Supported))
	for i, v := range e.Supported {
		want[i] = strconv.Itoa(v)
	}
	return strings.Join(want, sep)
}

// Newer reports whether Found is a version later than every version this
// build reads: a JSON integer (digits, no sign, no leading zero, any
// length) greater than the largest of Supported. Such a file was written
// by a newer agentgate and must not be replaced by an older one. A missing
// version or any other value (1.0, "1", -1, 03) is a damaged file, not a
// newer one.
func (e *VersionError) Newer() bool {
	s := e.Found
	if s == "" || s[0] == '0' || strings.Trim(s, "0123456789") != "" || len(e.Supported) == 0 {
		return false
	}
	max := strconv.Itoa(slices.Max(e.Supported))
	return len(s) > len(max) || len(s) == len(max) && s > max
}

// Hints tells the user what to do about e: upgrade agentgate for a newer
// file; regenerate a damaged one.
func (e *VersionError) Hints() []string {
	if e.Newer() {
		return []string{"a newer agentgate wrote this file: upgrade agentgate to read it (an older one cannot convert it, and `agentgate lock --force` refuses to replace it)"}
	}
	return []string{"lockfileVersion must be the JSON number of a version this agentgate reads (" + e.versions(" or ") +
		"); the file was edited by hand or damaged: regenerate it with `agentgate lock --force` and review the diff"}
}

// IntegrityError is a lockfile that is well-formed but inconsistent: a hash
// that does not match what it covers, or git merge conflict markers. Such a
// file was edited by hand or damaged (often by a merge) and is never trusted.
type IntegrityError struct {
	Line   int    // 1-based line, 0 when unknown
	Server string // "" when not about one server
	Tool   string // "" when not about one tool
	Field  string // "nameHash", "surfaceHash", or "" (conflict markers)
	Msg    string // what is wrong
}

// Error formats e as `line LINE: servers["SERVER"] tool "TOOL" FIELD: MSG`,
// leaving out the parts that are 0 or empty.
func (e *IntegrityError) Error() string {
	var b strings.Builder
	if e.Line > 0 {
		fmt.Fprintf(&b, "line %d: ", e.Line)
	}
	if e.Server != "" {
		b.WriteString("servers[" + strconv.Quote(e.Server) + "]")
		if e.Tool != "" {
			b.WriteString(" tool " + strconv.Quote(e.Tool))
		}
		if e.Field != "" {
			b.WriteString(" " + e.Field)
		}
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Hints tells the user what to do about e.
func (e *IntegrityError) Hints() []string {
	if e.Field == "" {
		return []string{"resolve the merge by regenerating the file: `git checkout --theirs agentgate.lock` (or --ours), then `agentgate lock`, and review the diff"}
	}
	return []string{"the file was edited by hand or damaged; regenerate it with `agentgate lock` and review the diff before committing"}
}

// clip shortens s for an error message.
func clip(s string) string {
	const max = 80
	if len(s) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		return s[:cut] + "..."
	}
	return s
}
