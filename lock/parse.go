package lock

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Parse reads a lockfile strictly and returns it, or an error that says
// exactly what is wrong:
//
//   - *IntegrityError for git merge conflict markers (checked first), a
//     nameHash that is not SHA-256 of its name, or a surfaceHash that is not
//     the value SurfaceHash computes from its tools;
//   - *VersionError when lockfileVersion is missing or is not the JSON
//     number 1 or 2 (a version 2 file is read as parseV2 says), checked
//     after the I-JSON check of the whole file and before anything else
//     about the content, so a file of a later version is refused as such,
//     not as malformed;
//   - *ParseError, with the JSON path and line of the value, for anything
//     else: invalid JSON or I-JSON (duplicate member names, invalid UTF-8,
//     lone surrogates, non-finite numbers), a byte order mark, unknown or
//     missing fields, wrong types, an empty tool name, a hash that is not 64
//     lowercase hex digits, a generatedAt that is not RFC 3339, tools that
//     are not sorted by name (as UTF-8 bytes) or a name twice on one server.
//
// Insignificant JSON whitespace (including CRLF line ends) and the order of
// members within an object are not checked: they carry no meaning, and
// Format(Parse(data)) rewrites them canonically. The order of tools is
// checked because it is part of the surfaceHash.
func Parse(data []byte) (*Lockfile, error) {
	if err := conflictMarkers(data); err != nil {
		return nil, err
	}
	if bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) {
		return nil, &ParseError{Line: 1, Msg: "the file starts with a UTF-8 byte order mark (U+FEFF), which JSON does not allow; remove it"}
	}
	if len(bytes.TrimLeft(data, " \t\r\n")) == 0 {
		return nil, &ParseError{Line: line(data, len(data)), Msg: "the file is empty, want a JSON object"}
	}
	f := getScanner()
	defer putScanner(f)
	// In wtf8 mode: a version 2 file may hold unpaired surrogate escapes
	// (definitions keep them, see DefinitionCanonical); a version 1 file
	// may not (lockfile checks).
	f.keepDepth, f.wtf8 = maxDepth, true
	if err := f.parse(data); err != nil {
		return nil, syntaxParseError(data, err.(*syntaxError))
	}
	// One copy of the file: every plain string (names, hashes) is a
	// substring of it, so parsing allocates little more than the tools.
	p := &parser{f: f, data: data, src: string(data)}
	l, err := p.lockfile()
	if ve, ok := err.(*VersionError); ok && ve.Found == "2" {
		return parseV2(data, f.tree(0))
	}
	if err != nil {
		return nil, err
	}
	if err := checkIntegrity(l); err != nil {
		return nil, err
	}
	return l, nil
}

// conflictMarkers reports git merge conflict markers at the start of a line.
func conflictMarkers(data []byte) error {
	n := 1
	for rest := data; len(rest) > 0; n++ {
		ln := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			ln, rest = rest[:i], rest[i+1:]
		} else {
			rest = nil
		}
		if len(ln) < 7 || !(ln[0] == '<' || ln[0] == '|' || ln[0] == '=' || ln[0] == '>') {
			continue
		}
		for _, m := range []string{"<<<<<<<", "|||||||", "=======", ">>>>>>>"} {
			if bytes.HasPrefix(ln, []byte(m)) {
				return &IntegrityError{Line: n, Msg: "git merge conflict marker " + strconv.Quote(clip(string(bytes.TrimRight(ln, "\r")))) +
					": the lockfile was damaged by a merge; hashes cannot be merged by hand"}
			}
		}
	}
	return nil
}

// parser reads a Lockfile from the tape of a scan of data, which was
// valid I-JSON.
type parser struct {
	f    *scanner
	data []byte
	src  string // string(data)
}

// perr is a ParseError at byte offset off.
func (p *parser) perr(off int32, path, format string, args ...any) error {
	return &ParseError{Line: line(p.data, int(off)), Path: path, Msg: fmt.Sprintf(format, args...)}
}

// syntaxParseError is the scanner's error se on the lockfile data as a
// *ParseError: a duplicate member name with its JSON path.
func syntaxParseError(data []byte, se *syntaxError) *ParseError {
	if se.dup == "" {
		return &ParseError{Line: line(data, se.off), Msg: se.msg}
	}
	path := ""
	for i := len(se.path) - 1; i >= 0; i-- {
		if e := se.path[i]; e.key != nil {
			path = pathKey(path, unquote(append(append([]byte{'"'}, e.key...), '"')))
		} else {
			path = indexPath(path, e.index)
		}
	}
	return &ParseError{Line: line(data, se.off), Path: pathKey(path, se.dup), Msg: "duplicate member name: it occurs twice in the same object"}
}

// pathKey appends the member name key to the JSON path path: .key for an
// identifier, ["key"] for any other name and for a server name.
func pathKey(path, key string) string {
	ident := key != ""
	for i, c := range key {
		if !(c == '_' || c == '$' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9') {
			ident = false
			break
		}
	}
	if !ident || path == "servers" {
		return path + "[" + strconv.Quote(key) + "]"
	}
	if path == "" {
		return key
	}
	return path + "." + key
}

// indexPath is the JSON path of element i of the array at path.
func indexPath(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }

// key returns m's name, a substring of src unless it holds an escape.
func (p *parser) key(m member) string {
	if m.esc {
		return p.f.key(m)
	}
	return p.src[m.ks:m.ke]
}

// str returns the string value of m, a substring of src unless it holds an
// escape, or a type error naming path().
func (p *parser) str(m member, path func() string) (string, error) {
	if p.data[m.vs] != '"' {
		return "", p.perr(m.vs, path(), "want a string, got %s", kind(p.data[m.vs]))
	}
	if v := p.src[m.vs+1 : m.ve-1]; strings.IndexByte(v, '\\') < 0 {
		return v, nil
	}
	return unquote(p.data[m.vs:m.ve]), nil
}

// hash returns the hash string value of m.
func (p *parser) hash(m member, path func() string) (string, error) {
	h, err := p.str(m, path)
	if err == nil && !isHex64(h) {
		err = p.perr(m.vs, path(), "want 64 lowercase hex digits (a SHA-256), got %s", strconv.Quote(clip(h)))
	}
	return h, err
}

// at returns a func that returns path: for the calls above, which build a
// tool's paths only for an error.
func at(path string) func() string { return func() string { return path } }

// object returns the tape index of m's value, which must be an object.
func (p *parser) object(m member, path string) (int, error) {
	if p.data[m.vs] != '{' {
		return 0, p.perr(m.vs, path, "want an object, got %s", kind(p.data[m.vs]))
	}
	return int(m.v), nil
}

func isHex64(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < 64; i += 8 {
		if !hex8(uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56) {
			return false
		}
	}
	return true
}

// hex8 reports whether every byte of w is 0-9 or a-f. For bytes below 0x80,
// b+(0x80-c) sets the byte's high bit exactly when b >= c, with no carry
// into the next byte.
func hex8(w uint64) bool {
	const ones, high = 0x0101010101010101, 0x8080808080808080
	if w&high != 0 {
		return false
	}
	digit := (w + (0x80-'0')*ones) &^ (w + (0x80-'9'-1)*ones)
	lower := (w + (0x80-'a')*ones) &^ (w + (0x80-'f'-1)*ones)
	return (digit|lower)&high == high
}

// rootFields are the members of a version 1 lockfile, in Format's order.
var rootFields = []string{"lockfileVersion", "generatedBy", "generatedAt", "servers"}

func (p *parser) lockfile() (*Lockfile, error) {
	f := p.f
	if top := f.tape[0]; top.kind != kindObject {
		return nil, p.perr(f.offset(0), "", "want an object, got %s", kind(p.data[f.offset(0)]))
	}
	fields := f.members(0)
	var have [4]*member
	for k := range fields {
		if i := slices.Index(rootFields, p.key(fields[k])); i >= 0 {
			have[i] = &fields[k]
		}
	}
	// lockfileVersion is judged before anything else about the content,
	// since a later version may have added fields.
	if have[0] == nil {
		return nil, &VersionError{Supported: []int{Version1, Version2}}
	}
	if v := string(p.data[have[0].vs:have[0].ve]); v != "1" {
		return nil, &VersionError{Found: v, Supported: []int{Version1, Version2}}
	}
	if f.loneAt != 0 {
		return nil, &ParseError{Line: line(p.data, f.loneAt-1), Msg: fmt.Sprintf(loneSurrogate, f.loneR)}
	}
	for _, m := range fields {
		if k := p.key(m); !slices.Contains(rootFields, k) {
			return nil, p.perr(m.vs, pathKey("", k), "unknown field; a version 1 lockfile has only %s", strings.Join(rootFields, ", "))
		}
	}
	for i, k := range rootFields {
		if have[i] == nil {
			return nil, p.perr(f.offset(0), "", "missing field %q", k)
		}
	}
	l := &Lockfile{LockfileVersion: Version1}
	var err error
	if l.GeneratedBy, err = p.str(*have[1], at("generatedBy")); err != nil {
		return nil, err
	}
	if l.GeneratedAt, err = p.str(*have[2], at("generatedAt")); err != nil {
		return nil, err
	}
	if !validTime(l.GeneratedAt) {
		return nil, p.perr(have[2].vs, "generatedAt", "want an RFC 3339 time such as 2026-08-03T12:00:00.000Z, got %s", strconv.Quote(clip(l.GeneratedAt)))
	}
	if l.Servers, err = p.servers(*have[3]); err != nil {
		return nil, err
	}
	return l, nil
}

// servers reads the servers object, member m of the root.
func (p *parser) servers(m member) (map[string]Server, error) {
	idx, err := p.object(m, "servers")
	if err != nil {
		return nil, err
	}
	ms := p.f.members(idx)
	servers := make(map[string]Server, len(ms))
	for _, m := range ms {
		name := p.key(m)
		srv, err := p.server(m, pathKey("servers", name))
		if err != nil {
			return nil, err
		}
		servers[name] = srv
	}
	return servers, nil
}

func (p *parser) server(m member, path string) (Server, error) {
	idx, err := p.object(m, path)
	if err != nil {
		return Server{}, err
	}
	var srv Server
	var have struct{ hash, tools bool }
	for _, m := range p.f.members(idx) {
		switch key := p.key(m); key {
		case "surfaceHash":
			have.hash = true
			srv.SurfaceHash, err = p.hash(m, at(pathKey(path, key)))
		case "tools":
			have.tools = true
			srv.Tools, err = p.tools(m, pathKey(path, key))
		default:
			err = p.perr(m.vs, pathKey(path, key), "unknown field; a server has only surfaceHash, tools")
		}
		if err != nil {
			return Server{}, err
		}
	}
	switch {
	case !have.hash:
		return Server{}, p.perr(m.vs, path, "missing field \"surfaceHash\"")
	case !have.tools:
		return Server{}, p.perr(m.vs, path, "missing field \"tools\"")
	}
	return srv, nil
}

func (p *parser) tools(m member, path string) ([]Tool, error) {
	if p.data[m.vs] != '[' {
		return nil, p.perr(m.vs, path, "want an array, got %s", kind(p.data[m.vs]))
	}
	f := p.f
	e := f.tape[m.v]
	tools := []Tool{}
	for i, j := 0, int(m.v)+1; j < int(e.next); i, j = i+1, f.after(j) {
		t, err := p.tool(j, path, i)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			switch prev := tools[i-1]; compareTools(prev, t) {
			case 0:
				return nil, p.perr(f.offset(j), indexPath(path, i), "duplicate tool %s (also at index %d); a name occurs once per server", strconv.Quote(t.Name), i-1)
			case 1:
				return nil, p.perr(f.offset(j), indexPath(path, i), "tools are not sorted by name: %s comes after %s", strconv.Quote(t.Name), strconv.Quote(prev.Name))
			}
		}
		tools = append(tools, t)
	}
	return tools, nil
}

var toolFields = "name, nameHash, descriptionHash, inputSchemaHash"

// tool reads tape[idx], element i of the tools array at path. It builds
// JSON paths only for errors: it runs once per locked tool.
func (p *parser) tool(idx int, tools string, i int) (Tool, error) {
	f := p.f
	e := f.tape[idx]
	if e.kind != kindObject {
		return Tool{}, p.perr(f.offset(idx), indexPath(tools, i), "want an object, got %s", kind(p.data[f.offset(idx)]))
	}
	var t Tool
	var err error
	for _, m := range f.members(idx) {
		key := p.key(m)
		path := func() string { return pathKey(indexPath(tools, i), key) }
		var dst *string
		switch key {
		case "name":
			if t.Name, err = p.str(m, path); err != nil {
				return Tool{}, err
			}
			if t.Name == "" {
				return Tool{}, p.perr(m.vs, path(), "must not be empty")
			}
		case "nameHash":
			dst = &t.NameHash
		case "descriptionHash":
			dst = &t.DescriptionHash
		case "inputSchemaHash":
			dst = &t.InputSchemaHash
		default:
			return Tool{}, p.perr(m.vs, path(), "unknown field; a tool has only %s", toolFields)
		}
		if dst != nil {
			if *dst, err = p.hash(m, path); err != nil {
				return Tool{}, err
			}
		}
	}
	for _, fl := range []struct {
		name string
		v    string
	}{{"name", t.Name}, {"nameHash", t.NameHash}, {"descriptionHash", t.DescriptionHash}, {"inputSchemaHash", t.InputSchemaHash}} {
		if fl.v == "" {
			return Tool{}, p.perr(f.offset(idx), indexPath(tools, i), "missing field %q", fl.name)
		}
	}
	return t, nil
}

// line returns the 1-based line of byte offset off.
func line(data []byte, off int) int {
	return 1 + bytes.Count(data[:min(off, len(data))], []byte("\n"))
}

// checkIntegrity recomputes what a lockfile can recompute: each nameHash
// from its name and each surfaceHash from its tools.
func checkIntegrity(l *Lockfile) error {
	var sum [sha256.Size]byte
	var hx [2 * sha256.Size]byte
	for _, name := range slices.Sorted(maps.Keys(l.Servers)) {
		srv := l.Servers[name]
		for _, t := range srv.Tools {
			sum = sha256.Sum256([]byte(t.Name))
			hex.Encode(hx[:], sum[:])
			if string(hx[:]) != t.NameHash { // HashName(t.Name), without allocating
				return &IntegrityError{Server: name, Tool: t.Name, Field: "nameHash",
					Msg: "is not the SHA-256 of the tool's name: the name or its hash was edited by hand or damaged"}
			}
		}
		if surfaceHash(srv.Tools, true) != srv.SurfaceHash { // sorted, hex: Parse checked
			return &IntegrityError{Server: name, Field: "surfaceHash",
				Msg: "does not match the hashes of the server's tools: a hash was edited by hand or damaged, or tools were added or removed without regenerating"}
		}
	}
	return nil
}
