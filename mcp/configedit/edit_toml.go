package configedit

import (
	"strings"

	"github.com/agentgate/agentgate/mcp/config"
	"github.com/agentgate/agentgate/mcp/config/syntax"
)

// locateTOML finds Codex's [mcp_servers.NAME] entries in a TOML file,
// reading it with syntax.WalkTOML (the reader's walk) and its scanner,
// which reads single-line strings and arrays of them exactly. Values it
// cannot read this way (multi-line strings, numbers where a string is
// expected) are left unlocated; check then refuses an edit that needs
// them.
func locateTOML(d *doc) error {
	l := tomlLocator{d: d, byName: map[string]*entry{}}
	_, err := syntax.WalkTOML(d.data, 0, l.visit)
	return err
}

// tomlLocator collects the entries of one TOML file as locateTOML walks it.
type tomlLocator struct {
	d      *doc
	byName map[string]*entry
}

// get is the entry of server name, added to the document when new.
func (l *tomlLocator) get(name string) *entry {
	if e := l.byName[name]; e != nil {
		return e
	}
	e := &entry{name: name, field: "command", argsField: "args", lineEnd: -1}
	l.byName[name] = e
	l.d.entries = append(l.d.entries, e)
	return e
}

func (l *tomlLocator) visit(t *syntax.TOMLEntry) error {
	switch {
	case t.Bad && t.Header:
		return &config.Error{File: l.d.file, Msg: "cannot edit: unreadable table header"}
	case t.Bad:
		return &config.Error{File: l.d.file, Msg: "cannot edit: unreadable key"}
	case t.Header:
		l.header(t)
	default:
		l.keyValue(t)
	}
	return nil
}

// header records [mcp_servers.NAME] as the entry's line and
// [mcp_servers.NAME.FIELD] as a member of it.
func (l *tomlLocator) header(t *syntax.TOMLEntry) {
	keys := t.Keys
	if len(keys) < 2 || keys[0] != "mcp_servers" {
		return
	}
	e := l.get(keys[1])
	if len(keys) == 2 {
		e.line = l.d.lineOf(t.Start)
		return
	}
	e.members = append(e.members, mspan{name: keys[2], start: t.Start, end: lineEndAt(l.d.data, t.Start), sub: true})
}

// keyValue records a "key = value" line under mcp_servers: a server
// written inline, a member of one, and its command and args.
func (l *tomlLocator) keyValue(t *syntax.TOMLEntry) {
	full := t.Path()
	if len(full) < 2 || full[0] != "mcp_servers" {
		return
	}
	d, e := l.d, l.get(full[1])
	lineStart := t.Start
	for lineStart > 0 && (d.data[lineStart-1] == ' ' || d.data[lineStart-1] == '\t') {
		lineStart--
	}
	if len(full) == 2 {
		l.inline(t, e, lineStart)
		return
	}
	e.members = append(e.members, mspan{name: full[2], start: t.Start, end: lineEndAt(d.data, t.ValEnd),
		sub: len(t.Table) != 2 || len(t.Keys) != 1, empty: tomlEmpty(string(d.data[t.ValStart:t.ValEnd]))})
	if len(full) != 3 || full[2] != "command" && full[2] != "args" {
		return
	}
	if e.line == 0 {
		e.line = d.lineOf(lineStart)
	}
	s := &syntax.TOMLScanner{B: d.data, I: t.ValStart}
	if full[2] == "command" {
		l.command(s, e, len(t.Keys) == 1, string(d.data[lineStart:t.Start]))
		return
	}
	readArgs(s, e)
	if e.args != nil && len(t.Keys) == 1 {
		d.argsLine(e, "args = ")
	}
}

// inline records mcp_servers.NAME = { command = "...", args = [...] }.
func (l *tomlLocator) inline(t *syntax.TOMLEntry, e *entry, lineStart int) {
	e.inline = true
	if e.line == 0 {
		e.line = l.d.lineOf(lineStart)
	}
	if t.ValStart < len(l.d.data) && l.d.data[t.ValStart] == '{' {
		inlineEntry(&syntax.TOMLScanner{B: l.d.data, I: t.ValStart}, e)
	}
}

// command reads e's command at s.I; a command written "command = ..."
// (single) on a line of its own (but for a comment) is where a member
// inserted after it goes, with the command's indent.
func (l *tomlLocator) command(s *syntax.TOMLScanner, e *entry, single bool, indent string) {
	readCommand(s, e)
	if e.cmd == nil || !single {
		return
	}
	e.indent = indent
	s.Spaces()
	if s.I < len(s.B) && (s.B[s.I] == '\r' || s.B[s.I] == '\n' || s.B[s.I] == '#') {
		e.lineEnd = s.LineEnd()
	}
}

// readCommand reads e's command, a single-line string at s.I; e.cmd is
// nil for any other value.
func readCommand(s *syntax.TOMLScanner, e *entry) {
	e.cmdAt, e.cmd = s.I, nil
	if t, ok := s.Str(); ok {
		e.cmd = &tok{start: t.Start, end: t.End, val: t.Val}
	}
}

// readArgs reads e's args, an array of single-line strings at s.I;
// e.args is nil for any other value.
func readArgs(s *syntax.TOMLScanner, e *entry) {
	e.argsSeen, e.args = true, nil
	a, ok := s.Array()
	if !ok {
		return
	}
	e.args = &seq{open: a.Open, close: a.Close}
	for _, t := range a.Items {
		e.args.items = append(e.args.items, tok{start: t.Start, end: t.End, val: t.Val})
	}
}

// inlineEntry reads the inline table at s.I, a server written as
// NAME = { command = "...", args = [...], ... }: it locates command and
// args as locateTOML does for a [mcp_servers.NAME] table, and skips every
// other member. It stops at the closing brace, or where it cannot
// read on (check then refuses what it could not locate).
func inlineEntry(s *syntax.TOMLScanner, e *entry) {
	s.I++ // '{'
	for {
		s.Blank()
		if s.I >= len(s.B) {
			return
		}
		switch s.B[s.I] {
		case '}':
			return
		case ',':
			s.I++
			continue
		}
		end := s.I
		for end < len(s.B) && s.B[end] != '=' && s.B[end] != '\n' {
			end++
		}
		keys, rest, ok := syntax.ParseTOMLKey(string(s.B[s.I:end]))
		if !ok || rest != "" || end >= len(s.B) || s.B[end] != '=' {
			return
		}
		s.I = end + 1
		s.Spaces()
		valStart := s.I
		switch {
		case len(keys) == 1 && keys[0] == "command":
			readCommand(s, e)
		case len(keys) == 1 && keys[0] == "args":
			readArgs(s, e)
		}
		if s.I == valStart {
			s.SkipValue()
		}
	}
}

// tomlEmpty reports whether a TOML value as written is "", ”, [] or {}.
func tomlEmpty(v string) bool {
	v = strings.Join(strings.Fields(v), "")
	return v == `""` || v == "''" || v == "[]" || v == "{}"
}
