package config

import (
	"fmt"

	"github.com/agentgate/agentgate/mcp/config/syntax"
)

// parser holds what every client parser needs to report errors, and the
// errors of the file so far (a file's parser reports every entry's first
// error, not only the file's first).
type parser struct {
	file   string
	client string
	syn    syntax.Vars
	errs   Errors
}

// add records err (if not nil).
func (p *parser) add(err *Error) {
	if err != nil {
		p.errs = append(p.errs, err)
	}
}

// result returns res and the file's errors, if any.
func (p *parser) result(res fileResult) (fileResult, error) {
	if len(p.errs) > 0 {
		return res, p.errs
	}
	return res, nil
}

// entryFunc reads one server entry (an object) named name at position at.
// A non-empty skip means the entry is not locked, and why.
type entryFunc func(name string, at pos, e *node) (s Server, skip string, errs entryErrs)

// entryErrs collects the errors of one server entry: every field is read
// even when an earlier one failed, so that one run reports them all. The
// methods take a reader's two results and keep the value.
type entryErrs []*Error

func (es *entryErrs) add(err *Error) {
	if err != nil {
		*es = append(*es, err)
	}
}

func (es *entryErrs) str(v string, err *Error) string { es.add(err); return v }

func (es *entryErrs) strs(v []string, errs []*Error) []string { *es = append(*es, errs...); return v }

func (es *entryErrs) strMap(v map[string]string, errs []*Error) map[string]string {
	*es = append(*es, errs...)
	return v
}

// eachServer reads every entry of the servers object srv (nil: none) with
// read, the loop every client whose config maps names to entries shares:
// an entry that is not an object, or that read refuses, is an error and
// the loop goes on with the next entry.
func (p *parser) eachServer(srv *node, entry string, read entryFunc) fileResult {
	var res fileResult
	if srv == nil {
		return res
	}
	for i, name := range srv.keys {
		e, at := srv.vals[i], srv.keyPos[i]
		if e.kind != kObj {
			p.add(p.typeErr(e, name, "", entry))
			continue
		}
		s, skip, errs := read(name, at, e)
		switch {
		case len(errs) > 0:
			p.errs = append(p.errs, errs...)
		case skip != "":
			res.skipped = append(res.skipped, Skipped{Name: name, File: p.file, Line: at.line, Reason: skip})
		default:
			res.servers = append(res.servers, s)
		}
	}
	return res
}

// disabledBy reads the boolean member field of e; it returns a skip reason
// when the member's value is off ("disabled (reason)").
func (p *parser) disabledBy(e *node, name, field string, off bool, reason string) (string, *Error) {
	v, ok, err := p.boolean(e.get(field), name, field)
	if err != nil || !ok || v != off {
		return "", err
	}
	return "disabled (" + reason + ")", nil
}

// fileResult is what one config file contributes.
type fileResult struct {
	servers []Server
	skipped []Skipped
}

func (p *parser) errAt(at pos, server, field, msg, hint string) *Error {
	return &Error{File: p.file, Line: at.line, Column: at.col, Server: server, Field: field, Msg: msg, Hint: hint}
}

func (p *parser) typeErr(n *node, server, field, want string) *Error {
	return p.errAt(n.pos, server, field, fmt.Sprintf("expected %s, found %s", want, n.kind), "")
}

// tmpl checks that s is a valid template in the syntax of the field.
func (p *parser) tmpl(n *node, server, field, s string) *Error {
	if _, err := syntax.ParseTemplate(syntax.ForField(p.syn, field), s); err != nil {
		return &Error{File: p.file, Line: n.pos.line, Column: n.pos.col, Server: server, Field: field, Msg: err.Msg, Hint: err.Hint}
	}
	return nil
}

// str reads an optional string; absent and null read as "".
func (p *parser) str(n *node, server, field string) (string, *Error) {
	if n == nil || n.kind == kNull {
		return "", nil
	}
	if n.kind != kStr {
		e := p.typeErr(n, server, field, "a string")
		e.Hint = stringHint(n, "value")
		return "", e
	}
	return n.str, p.tmpl(n, server, field, n.str)
}

// plain reads an optional string that is not a template.
func (p *parser) plain(n *node, server, field string) (string, *Error) {
	if n == nil || n.kind == kNull {
		return "", nil
	}
	if n.kind != kStr {
		return "", p.typeErr(n, server, field, "a string")
	}
	return n.str, nil
}

// strs reads an optional array of template strings; the error is the
// first of strsAll's.
func (p *parser) strs(n *node, server, field string) ([]string, *Error) {
	v, errs := p.strsAll(n, server, field)
	if len(errs) > 0 {
		return nil, errs[0]
	}
	return v, nil
}

// strsAll reads an optional array of template strings, reporting every bad
// item (each at its position, named field[i]), not only the first: three
// numbers in one args array are three errors. On error the value is nil.
func (p *parser) strsAll(n *node, server, field string) ([]string, []*Error) {
	if n == nil || n.kind == kNull {
		return nil, nil
	}
	if n.kind != kArr {
		e := p.typeErr(n, server, field, "an array of strings")
		e.Hint = "write it as an array of strings, one per item: [\"a\", \"b\"]"
		return nil, []*Error{e}
	}
	out := make([]string, 0, len(n.items))
	var errs []*Error
	for i, it := range n.items {
		f := fmt.Sprintf("%s[%d]", field, i)
		if it.kind != kStr {
			e := p.typeErr(it, server, f, "a string")
			e.Hint = stringHint(it, "item")
			errs = append(errs, e)
			continue
		}
		if err := p.tmpl(it, server, f, it.str); err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, it.str)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return out, nil
}

// strMapAll reads an optional object of template strings (env, headers),
// reporting every bad member (each at its position, named field.KEY). With
// numbers, number values are kept as written and null values are dropped
// (VS Code's env). On error the value is nil.
func (p *parser) strMapAll(n *node, server, field string, numbers bool) (map[string]string, []*Error) {
	if n == nil || n.kind == kNull {
		return nil, nil
	}
	if n.kind != kObj {
		e := p.typeErr(n, server, field, "an object of strings")
		e.Hint = "write it as an object of strings: {\"NAME\": \"value\"}"
		return nil, []*Error{e}
	}
	out := make(map[string]string, len(n.keys))
	var errs []*Error
	for i, k := range n.keys {
		v, f := n.vals[i], field+"."+k
		switch {
		case v.kind == kStr:
		case numbers && v.kind == kNum:
		case numbers && v.kind == kNull:
			continue
		default:
			e := p.typeErr(v, server, f, "a string")
			e.Hint = stringHint(v, "member")
			errs = append(errs, e)
			continue
		}
		if err := p.tmpl(v, server, f, v.str); err != nil {
			errs = append(errs, err)
			continue
		}
		out[k] = v.str
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return out, nil
}

// stringHint is the fix for a value n that should have been a string: the
// quoted form of a number or boolean, or what to do with the other kinds.
func stringHint(n *node, what string) string {
	switch n.kind {
	case kNum:
		return "quote it: \"" + n.str + "\""
	case kBool:
		return fmt.Sprintf("quote it: \"%t\"", n.b)
	case kNull:
		return "remove the " + what + ", or write a string"
	}
	return "write the " + what + " as one string"
}

// boolean reads an optional boolean.
func (p *parser) boolean(n *node, server, field string) (val, present bool, err *Error) {
	if n == nil || n.kind == kNull {
		return false, false, nil
	}
	if n.kind != kBool {
		e := p.typeErr(n, server, field, "a boolean (true or false)")
		e.Hint = "write true or false, without quotes"
		return false, false, e
	}
	return n.b, true, nil
}

// object reads the map of servers under key; absent or null is empty.
func (p *parser) object(n *node, field string) (*node, *Error) {
	if n == nil || n.kind == kNull {
		return nil, nil
	}
	if n.kind != kObj {
		return nil, p.typeErr(n, "", field, "an object")
	}
	return n, nil
}

func quoteAll(s []string) []string {
	out := make([]string, len(s))
	for i, v := range s {
		out[i] = fmt.Sprintf("%q", v)
	}
	return out
}

// topObject checks that a document's root is an object.
func (p *parser) topObject(n *node) *Error {
	if n.kind != kObj {
		return p.typeErr(n, "", "", "an object at the top level")
	}
	return nil
}
