package lock

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Parse reads a lockfile strictly and returns it, or an error that says
// exactly what is wrong:
//
//   - *IntegrityError for git merge conflict markers (checked first), a
//     nameHash that is not SHA-256 of its name, or a surfaceHash that is not
//     the value SurfaceHash computes from its tools;
//   - *VersionError when lockfileVersion is missing or is not the JSON
//     number 1 (checked before anything else about the content, so a file
//     of a later version is refused as such, not as malformed);
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
	p := &parser{s: scanner{data: data}}
	l, err := p.lockfile()
	if err != nil {
		var se *syntaxError
		if errors.As(err, &se) {
			return nil, &ParseError{Line: line(data, se.off), Msg: se.msg}
		}
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
		for _, m := range []string{"<<<<<<<", "|||||||", "=======", ">>>>>>>"} {
			if bytes.HasPrefix(ln, []byte(m)) {
				return &IntegrityError{Line: n, Msg: "git merge conflict marker " + strconv.Quote(clip(string(bytes.TrimRight(ln, "\r")))) +
					": the lockfile was damaged by a merge; hashes cannot be merged by hand"}
			}
		}
	}
	return nil
}

type parser struct {
	s scanner
}

// perr is a ParseError at byte offset off.
func (p *parser) perr(off int, path, format string, args ...any) error {
	return &ParseError{Line: line(p.s.data, off), Path: path, Msg: fmt.Sprintf(format, args...)}
}

// pathKey appends a member name to a JSON path.
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

// object calls member for each member of the object at the scanner, after
// checking for duplicate names; member must consume the value.
func (p *parser) object(path string, member func(key string, off int) error) error {
	if c := p.s.peek(); c != '{' {
		return p.typeErr(path, "an object")
	}
	p.s.i++
	if p.s.peek() == '}' {
		p.s.i++
		return nil
	}
	var seen []string // few members: a slice beats a map
	var seenMap map[string]bool
	for {
		p.s.ws()
		koff := p.s.i
		key, err := p.s.str()
		if err != nil {
			return err
		}
		if slices.Contains(seen, key) || seenMap[key] {
			return p.perr(koff, pathKey(path, key), "duplicate member name: it occurs twice in the same object")
		}
		if len(seen) < 16 {
			seen = append(seen, key)
		} else {
			if seenMap == nil {
				seenMap = map[string]bool{}
			}
			seenMap[key] = true
		}
		if err := p.s.expect(':'); err != nil {
			return err
		}
		p.s.ws()
		if err := member(key, p.s.i); err != nil {
			return err
		}
		done, err := p.s.next('}')
		if err != nil {
			return err
		}
		if done {
			return nil
		}
	}
}

// typeErr reports that the value at the scanner is not of type want.
func (p *parser) typeErr(path, want string) error {
	c := p.s.peek()
	if kind(c) == "invalid JSON" {
		return p.s.skip(0) // a syntax error
	}
	return p.perr(p.s.i, path, "want %s, got %s", want, kind(c))
}

func (p *parser) str(path string) (string, error) {
	if p.s.peek() != '"' {
		return "", p.typeErr(path, "a string")
	}
	return p.s.str()
}

func (p *parser) hash(path string) (string, error) {
	off := p.s.i
	h, err := p.str(path)
	if err == nil && !isHex64(h) {
		err = p.perr(off, path, "want 64 lowercase hex digits (a SHA-256), got %s", strconv.Quote(clip(h)))
	}
	return h, err
}

func isHex64(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// rootFields are the members of a version 1 lockfile, in Format's order.
var rootFields = []string{"lockfileVersion", "generatedBy", "generatedAt", "servers"}

func (p *parser) lockfile() (*Lockfile, error) {
	if p.s.peek() == 0 {
		return nil, &ParseError{Line: line(p.s.data, p.s.i), Msg: "the file is empty, want a JSON object"}
	}
	// First pass: find every member, so that lockfileVersion is judged
	// before fields a later version may have added.
	type field struct {
		key string
		off int
	}
	var fields []field
	err := p.object("", func(key string, off int) error {
		fields = append(fields, field{key, off})
		return p.s.skip(0)
	})
	if err != nil {
		return nil, err
	}
	if p.s.peek() != 0 {
		return nil, p.perr(p.s.i, "", "unexpected data after the JSON object")
	}
	offs := map[string]int{}
	for _, f := range fields {
		offs[f.key] = f.off
	}
	voff, ok := offs["lockfileVersion"]
	if !ok {
		return nil, &VersionError{Supported: []int{Version}}
	}
	p.s.i = voff
	if err := p.s.skip(0); err != nil {
		return nil, err
	}
	if v := string(p.s.data[voff:p.s.i]); v != "1" {
		return nil, &VersionError{Found: v, Supported: []int{Version}}
	}
	for _, f := range fields {
		if !slices.Contains(rootFields, f.key) {
			return nil, p.perr(f.off, pathKey("", f.key), "unknown field; a version 1 lockfile has only %s", strings.Join(rootFields, ", "))
		}
	}
	for _, k := range rootFields {
		if _, ok := offs[k]; !ok {
			return nil, p.perr(0, "", "missing field %q", k)
		}
	}
	l := &Lockfile{LockfileVersion: Version}
	p.s.i = offs["generatedBy"]
	if l.GeneratedBy, err = p.str("generatedBy"); err != nil {
		return nil, err
	}
	p.s.i = offs["generatedAt"]
	if l.GeneratedAt, err = p.str("generatedAt"); err != nil {
		return nil, err
	}
	if _, err := time.Parse(time.RFC3339Nano, l.GeneratedAt); err != nil {
		return nil, p.perr(offs["generatedAt"], "generatedAt", "want an RFC 3339 time such as 2026-08-03T12:00:00.000Z, got %s", strconv.Quote(clip(l.GeneratedAt)))
	}
	p.s.i = offs["servers"]
	l.Servers = map[string]Server{}
	err = p.object("servers", func(name string, off int) error {
		srv, err := p.server(pathKey("servers", name))
		l.Servers[name] = srv
		return err
	})
	if err != nil {
		return nil, err
	}
	return l, nil
}

func (p *parser) server(path string) (Server, error) {
	start := p.s.i
	var srv Server
	var have struct{ hash, tools bool }
	err := p.object(path, func(key string, off int) error {
		var err error
		switch key {
		case "surfaceHash":
			have.hash = true
			srv.SurfaceHash, err = p.hash(pathKey(path, key))
		case "tools":
			have.tools = true
			srv.Tools, err = p.tools(pathKey(path, key))
		default:
			err = p.perr(off, pathKey(path, key), "unknown field; a server has only surfaceHash, tools")
		}
		return err
	})
	switch {
	case err != nil:
		return Server{}, err
	case !have.hash:
		return Server{}, p.perr(start, path, "missing field \"surfaceHash\"")
	case !have.tools:
		return Server{}, p.perr(start, path, "missing field \"tools\"")
	}
	return srv, nil
}

func (p *parser) tools(path string) ([]Tool, error) {
	if p.s.peek() != '[' {
		return nil, p.typeErr(path, "an array")
	}
	p.s.i++
	tools := []Tool{}
	if p.s.peek() == ']' {
		p.s.i++
		return tools, nil
	}
	for i := 0; ; i++ {
		ipath := path + "[" + strconv.Itoa(i) + "]"
		p.s.ws()
		off := p.s.i
		t, err := p.tool(ipath)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			switch prev := tools[i-1].Name; {
			case prev == t.Name:
				return nil, p.perr(off, ipath, "duplicate tool %s (also at index %d); a name occurs once per server", strconv.Quote(t.Name), i-1)
			case prev > t.Name:
				return nil, p.perr(off, ipath, "tools are not sorted by name: %s comes after %s", strconv.Quote(t.Name), strconv.Quote(prev))
			}
		}
		tools = append(tools, t)
		done, err := p.s.next(']')
		if err != nil {
			return nil, err
		}
		if done {
			return tools, nil
		}
	}
}

var toolFields = "name, nameHash, descriptionHash, inputSchemaHash"

func (p *parser) tool(path string) (Tool, error) {
	start := p.s.i
	var t Tool
	var n int
	err := p.object(path, func(key string, off int) error {
		var err error
		n++
		fp := pathKey(path, key)
		switch key {
		case "name":
			if t.Name, err = p.str(fp); err == nil && t.Name == "" {
				err = p.perr(off, fp, "must not be empty")
			}
		case "nameHash":
			t.NameHash, err = p.hash(fp)
		case "descriptionHash":
			t.DescriptionHash, err = p.hash(fp)
		case "inputSchemaHash":
			t.InputSchemaHash, err = p.hash(fp)
		default:
			err = p.perr(off, fp, "unknown field; a tool has only %s", toolFields)
		}
		return err
	})
	if err != nil {
		return Tool{}, err
	}
	if n != 4 {
		for _, f := range []struct {
			name string
			v    string
		}{{"name", t.Name}, {"nameHash", t.NameHash}, {"descriptionHash", t.DescriptionHash}, {"inputSchemaHash", t.InputSchemaHash}} {
			if f.v == "" {
				return Tool{}, p.perr(start, path, "missing field %q", f.name)
			}
		}
	}
	return t, nil
}

// checkIntegrity recomputes what a lockfile can recompute: each nameHash
// from its name and each surfaceHash from its tools.
func checkIntegrity(l *Lockfile) error {
	for _, name := range slices.Sorted(maps.Keys(l.Servers)) {
		srv := l.Servers[name]
		for _, t := range srv.Tools {
			if HashName(t.Name) != t.NameHash {
				return &IntegrityError{Server: name, Tool: t.Name, Field: "nameHash",
					Msg: "is not the SHA-256 of the tool's name: the name or its hash was edited by hand or damaged"}
			}
		}
		if SurfaceHash(srv.Tools) != srv.SurfaceHash {
			return &IntegrityError{Server: name, Field: "surfaceHash",
				Msg: "does not match the hashes of the server's tools: a hash was edited by hand or damaged, or tools were added or removed without regenerating"}
		}
	}
	return nil
}
