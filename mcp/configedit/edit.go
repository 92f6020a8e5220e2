// Package configedit edits client config files in place for `agentgate
// pin`, `wrap` and `unwrap`: it rewrites a server's command and args, and
// turns a remote entry into one running agentgate guard and back, with
// the fewest bytes changed. It reads files with mcp/config's parsers,
// which check every edit.
package configedit

import (
	"bytes"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/agentgate/agentgate/mcp/config"
	"github.com/agentgate/agentgate/mcp/config/syntax"
)

// edit.go is the one editor of client config files: `agentgate pin`,
// `wrap` and `unwrap` change a server's command and args through it. An
// edit is a list of byte ranges of the file, computed from positions the
// format's own parser reported, and the new text for each; nothing else
// of the file changes (comments, trailing commas, key order, indentation,
// quoting style, line endings). Before an edited file is returned it is
// parsed again with the client's parser, and the edit must have done
// exactly what was asked: the edited server reads as intended and every
// other server of the file reads as before. Anything the editor cannot
// place safely is a *config.Error naming the file, the server, the field and a
// fix, and the file is not changed.

// Edit replaces data[Start:End] with Text.
type Edit struct {
	Start, End int
	Text       string
}

// applyEdits applies non-overlapping edits to data (in any order).
func applyEdits(data []byte, edits []Edit) ([]byte, error) {
	es := slices.Clone(edits)
	slices.SortFunc(es, func(a, b Edit) int { return a.Start - b.Start })
	var out bytes.Buffer
	at := 0
	for _, e := range es {
		if e.Start < at || e.End < e.Start || e.End > len(data) {
			return nil, fmt.Errorf("internal error: overlapping or out-of-range edit [%d,%d)", e.Start, e.End)
		}
		out.Write(data[at:e.Start])
		out.WriteString(e.Text)
		at = e.End
	}
	out.Write(data[at:])
	return out.Bytes(), nil
}

// tok is a string value in a file: data[start:end] is its text as
// written (quotes included), val what it decodes to.
type tok struct {
	start, end int
	val        string
}

// seq is an array of strings in a file. For a flow array (JSON, TOML,
// YAML [a, b]) open and close are the offsets of '[' and ']'. For a YAML
// block sequence, block is true.
type seq struct {
	open, close int
	items       []tok
	block       bool
	indent      string // block: the text before each "- " on its line
	dashes      []int  // block: the offset of each item's "- "
}

// at is the offset where item i begins: its "- " in a block sequence.
func (a *seq) at(i int) int {
	if a.block {
		return a.dashes[i]
	}
	return a.items[i].start
}

// entry is what the editor found of one server's entry.
type entry struct {
	name  string
	line  int
	field string // how errors name the command field ("command", "command.path")
	// argv: the command is one array holding the program and its
	// arguments (opencode); args is that array and cmd is nil.
	argv bool
	cmd  *tok
	args *seq // nil when the entry has no args
	// argsField is how errors name the args field.
	argsField string
	// lineEnd is the offset where a member inserted after the command
	// goes (TOML and YAML: the end of the command's line, before its
	// newline; JSON: the end of the command's value).
	lineEnd int
	// indent is the indentation of the command's key (TOML, YAML).
	indent string
	// argsMember is the span of the whole args member when it is on the
	// line right after the command (TOML, YAML: from lineEnd to the end
	// of its line) or right after the command's value (JSON: from the
	// command's end to the end of the args value); [0,0) otherwise.
	argsMember [2]int
	// compact: a JSON entry written without spaces ("command":"x").
	compact bool
	// cmdAt is the offset of the command's value, also when it is not a
	// string the editor can read (for errors).
	cmdAt int
	// argsSeen: the entry has an args member (args is nil when its value
	// is not an array of strings the editor can read, e.g. null).
	argsSeen bool
	// members are the entry's members in file order (what wrapping a
	// remote server moves); inline: the entry is written in a form whose
	// members the editor cannot move (a TOML inline table or dotted keys,
	// a YAML flow mapping).
	members []mspan
	inline  bool
}

// mspan is one member of a server entry as written: its name and its
// bytes, from the first byte of its key to the last byte of its value
// (TOML and YAML: to the end of the value's last line, a comment on it
// included).
type mspan struct {
	name       string
	start, end int
	// kv is the text between the key and the value (JSON: ": ").
	kv string
	// empty: the value is "", null, [] or {}.
	empty bool
	// sub: a TOML [mcp_servers.NAME.KEY] sub-table or a dotted key,
	// which the editor cannot move.
	sub bool
}

// style is what differs between formats when the editor writes text.
type style struct {
	kind string // "json", "toml", "yaml"
	// str encodes a new string value.
	str func(s string) string
	// member is a new "args" member holding the raw items, written after
	// the command: sep is what goes between the command and it.
	member func(e *entry, nl string, items []string) string
}

var jsonSyntax = style{kind: "json", str: jsonString,
	member: func(e *entry, nl string, items []string) string {
		if e.compact {
			return `,"args":[` + strings.Join(items, ",") + "]"
		}
		return `, "args": [` + strings.Join(items, ", ") + "]"
	}}

var tomlSyntax = style{kind: "toml", str: jsonString, // a TOML basic string is a JSON string for every value agentgate writes
	member: func(e *entry, nl string, items []string) string {
		return nl + e.indent + "args = [" + strings.Join(items, ", ") + "]"
	}}

var yamlSyntax = style{kind: "yaml", str: yamlString,
	member: func(e *entry, nl string, items []string) string {
		return nl + e.indent + "args: [" + strings.Join(items, ", ") + "]"
	}}

// doc is one located config file.
type doc struct {
	client, file string
	data         []byte
	syn          style
	// parsed is data's enabled servers in file order, as the client's
	// parser reads them, commands and args as written (config.ParseFile);
	// servers is the same by name.
	parsed  []config.Server
	servers map[string]config.Server
	entries []*entry
	lines   syntax.Lines // built on first use
}

// lineOf is the 1-based line of offset off.
func (d *doc) lineOf(off int) int {
	if d.lines == nil {
		d.lines = syntax.NewLines(d.data)
	}
	line, _ := d.lines.Pos(off)
	return line
}

func (d *doc) entry(name string) *entry {
	for _, e := range d.entries {
		if e.name == name {
			return e
		}
	}
	return nil
}

// nl is the file's line ending at offset off: "\r\n" when the line there
// ends with one, else "\n".
func (d *doc) nl(off int) string {
	i := bytes.IndexByte(d.data[off:], '\n')
	if i > 0 && d.data[off+i-1] == '\r' {
		return "\r\n"
	}
	if i < 0 && bytes.Contains(d.data, []byte("\r\n")) {
		return "\r\n"
	}
	return "\n"
}

// argsLine sets e.argsMember when e's flow args array is the whole line
// right after the command's (TOML, YAML), written as key (`args = `,
// `args: `) at the command's indentation: the line style.member writes.
func (d *doc) argsLine(e *entry, key string) {
	if e.lineEnd < 0 {
		return
	}
	end := e.args.close + 1
	if (end == len(d.data) || d.data[end] == '\n' || d.data[end] == '\r') &&
		string(d.data[e.lineEnd:end]) == d.nl(e.lineEnd)+e.indent+key+string(d.data[e.args.open:end]) {
		e.argsMember = [2]int{e.lineEnd, end}
	}
}

func (d *doc) raw(t tok) string { return string(d.data[t.start:t.end]) }

// strLike encodes v as a string in the style of the existing value t:
// TOML literal and YAML single-quoted strings stay so when v fits them,
// a YAML plain scalar stays plain when v is safe plain; otherwise the
// format's double-quoted form.
func (d *doc) strLike(t tok, v string) string {
	raw := d.raw(t)
	simple := !strings.ContainsFunc(v, func(r rune) bool { return r < 0x20 || r == 0x7f })
	switch {
	case d.syn.kind == "toml" && raw[0] == '\'' && simple && !strings.Contains(v, "'"):
		return "'" + v + "'"
	case d.syn.kind == "yaml" && raw[0] == '\'' && simple:
		return "'" + strings.ReplaceAll(v, "'", "''") + "'"
	case d.syn.kind == "yaml" && raw[0] == '"':
		return jsonString(v)
	}
	return d.syn.str(v)
}

// errAt is a refusal to edit: the file, the server, the field, why, and
// what to do instead.
func (d *doc) errAt(off int, server, field, msg, hint string) *config.Error {
	line, col := syntax.OffsetPos(d.data, off)
	return &config.Error{File: d.file, Line: line, Column: col, Server: server, Field: field, Msg: "cannot edit: " + msg, Hint: hint}
}

// locate parses data as client's config file (an error when the client's
// parser refuses it) and finds every server entry's command and args.
// Entries the editor cannot place are not errors here; the edit that
// needs them is.
func locate(client, file string, data []byte) (*doc, error) {
	d := &doc{client: client, file: file, data: data}
	var err error
	if d.parsed, _, err = config.ParseFile(client, file, data); err != nil {
		return nil, err
	}
	d.servers, _ = byName(d.parsed, nil)
	switch {
	case client == "codex":
		d.syn = tomlSyntax
		err = locateTOML(d)
	case client == "continue" && path.Ext(file) != ".json":
		d.syn = yamlSyntax
		err = locateYAML(d)
	default:
		d.syn = jsonSyntax
		err = locateJSON(d)
	}
	if err != nil {
		return nil, err
	}
	return d, nil
}

// rawServers reads data with the client's parser without seeing through
// the guard wrapper: the enabled servers by name, command and args as
// written.
func rawServers(client, file string, data []byte) (map[string]config.Server, error) {
	servers, _, err := config.ParseFile(client, file, data)
	return byName(servers, err)
}

// readThrough reads data as Load does: with the client's parser, through
// the guard wrapper (config.SeeThrough).
func readThrough(client, file string, data []byte) ([]config.Server, error) {
	servers, _, err := config.ParseFile(client, file, data)
	if err != nil {
		return nil, err
	}
	return config.SeeThrough(file, servers)
}

// byName is a parse's enabled servers by name.
func byName(servers []config.Server, err error) (map[string]config.Server, error) {
	if err != nil {
		return nil, err
	}
	m := map[string]config.Server{}
	for _, s := range servers {
		m[s.Name] = s
	}
	return m, nil
}

// check makes sure the located entry agrees with the client's parser:
// the command and args the editor found decode to what the parser read.
// A disagreement means the editor would change something else than it
// believes (a construct it does not understand): it refuses.
func (d *doc) check(e *entry, s config.Server) *config.Error {
	var argv []string
	if e.args != nil {
		for _, it := range e.args.items {
			argv = append(argv, it.val)
		}
	}
	off := 0
	switch {
	case e.argv:
		if e.args != nil {
			off = e.args.open
		}
		if len(argv) == 0 || argv[0] != s.Command || !slices.Equal(argv[1:], s.Args) {
			return d.errAt(off, e.name, e.argsField, "the command array is written in a form the editor does not read the same way as the client",
				"write it as a plain one-line or multi-line array of strings")
		}
	case e.cmd == nil || e.cmd.val != s.Command:
		return d.errAt(e.cmdAt, e.name, e.field, "the command is written in a form the editor does not read the same way as the client",
			"write it as a plain one-line string")
	case !slices.Equal(argv, s.Args) || e.args == nil && e.argsSeen:
		if e.args != nil {
			off = e.args.open
		}
		return d.errAt(off, e.name, e.argsField, "args are written in a form the editor does not read the same way as the client",
			"write them as an array of plain one-line strings")
	}
	return nil
}

// flowSep is the text that separates items of a flow array, taken from the
// array itself so that inserted items look like their neighbours: what
// stands between the first two items, or, with one item, a comma and the
// space before it when that holds a line break; ", " otherwise.
func (d *doc) flowSep(a *seq) string {
	if len(a.items) >= 2 {
		s := string(d.data[a.items[0].end:a.items[1].start])
		if !strings.ContainsAny(s, "#/") {
			return s
		}
	}
	if len(a.items) >= 1 {
		ws := string(d.data[a.open+1 : a.items[0].start])
		if strings.Contains(ws, "\n") && strings.Trim(ws, " \t\r\n") == "" {
			return "," + ws
		}
	}
	if a.open > 0 && d.data[a.open-1] == ':' {
		return "," // compact JSON ("args":["x"])
	}
	return ", "
}

// insertItems returns the edit that inserts raw items before the first item
// of a (which may be empty).
func (d *doc) insertItems(a *seq, raws []string) Edit {
	if a.block {
		at := a.at(0)
		var b strings.Builder
		nl := d.nl(at)
		for _, r := range raws {
			b.WriteString("- " + r + nl + a.indent)
		}
		return Edit{at, at, b.String()}
	}
	if len(a.items) == 0 {
		return Edit{a.open + 1, a.open + 1, strings.Join(raws, d.flowSep(a))}
	}
	sep := d.flowSep(a)
	at := a.items[0].start
	return Edit{at, at, strings.Join(raws, sep) + sep}
}

// seeThrough is d's servers as Load reads them: through the guard
// wrapper.
func (d *doc) seeThrough() ([]config.Server, error) {
	return config.SeeThrough(d.file, d.parsed)
}

// verifyEdit parses the edited file d became and checks that each server
// of want now reads as its argv (command and args as written) and every
// other server as before. A remote server wrapped is checked for its argv
// only, and one restored (a nil argv) not at all: sameThrough checks
// those.
func (d *doc) verifyEdit(after []byte, want map[string][]string) error {
	client, file, old := d.client, d.file, d.servers
	got, err := rawServers(client, file, after)
	if err != nil {
		return fmt.Errorf("internal error: the edited %s does not parse: %w", file, err)
	}
	if len(old) != len(got) {
		return fmt.Errorf("internal error: editing %s changed the number of servers", file)
	}
	for name, o := range old {
		g, ok := got[name]
		if !ok {
			return fmt.Errorf("internal error: editing %s lost server %q", file, name)
		}
		if argv, edited := want[name]; edited {
			switch {
			case argv == nil:
				continue // a remote entry restored: sameThrough checks it
			case o.Transport != config.Stdio:
				// A remote entry wrapped: it is a stdio entry now, and
				// sameThrough checks what it reads as through the wrapper.
				if g.Transport != config.Stdio || g.Command != argv[0] || !slices.Equal(g.Args, argv[1:]) {
					return fmt.Errorf("internal error: wrapping %s: server %q reads as %q %q, want %q %q", file, name, g.Command, g.Args, argv[0], argv[1:])
				}
				continue
			}
			o.Command, o.Args = argv[0], argv[1:]
		}
		if g.Command != o.Command || !slices.Equal(g.Args, o.Args) {
			return fmt.Errorf("internal error: editing %s: server %q reads as %q %q, want %q %q", file, name, g.Command, g.Args, o.Command, o.Args)
		}
		g.Line, g.Column, o.Line, o.Column = 0, 0, 0, 0
		if config.DefinitionDiff(g, o) != "" {
			return fmt.Errorf("internal error: editing %s changed server %q's %s", file, name, config.DefinitionDiff(g, o))
		}
	}
	return nil
}

// setEdit is SetArgument's edit, and the server's argv after it, without
// applying it.
func (d *doc) setEdit(server string, i int, value string) (Edit, []string, error) {
	s, ok := d.servers[server]
	e := d.entry(server)
	if !ok || e == nil {
		return Edit{}, nil, &config.Error{File: d.file, Server: server, Msg: "cannot edit: no such server in this file"}
	}
	if err := d.check(e, s); err != nil {
		return Edit{}, nil, err
	}
	var t tok
	argv := append([]string{s.Command}, s.Args...)
	switch {
	case e.argv && i+1 < len(e.args.items):
		t = e.args.items[i+1]
	case !e.argv && i == -1:
		t = *e.cmd
	case !e.argv && i >= 0 && e.args != nil && i < len(e.args.items):
		t = e.args.items[i]
	default:
		return Edit{}, nil, &config.Error{File: d.file, Server: server, Field: e.argsField, Msg: fmt.Sprintf("cannot edit: no argument %d", i)}
	}
	argv[i+1] = value
	return Edit{t.start, t.end, d.strLike(t, value)}, argv, nil
}
