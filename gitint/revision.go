package gitint

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// errUnsupportedRevision marks a revision in a git form resolveRevision
// does not read (as opposed to a name that does not exist).
var errUnsupportedRevision = errors.New("not a revision form agentgate reads")

// resolveRevision returns the commit rev names, as go-git's
// Repository.ResolveRevision resolves it. ResolveRevision itself cannot be
// called: it is a method of go-git's root package, which links go-git's
// transports and with them package net (agentgate must not:
// TestLayers), and the parser it uses is go-git's internal/revision,
// which no other module can import. So this file follows its rules over
// go-git's storage packages; TestResolveRevisionAgainstGit checks it
// against git rev-parse. rev is a base followed by any number of suffixes:
//
//   - the base is a full or abbreviated (at least 4 hex digits) commit
//     id, or a reference name tried as NAME, refs/NAME, refs/tags/NAME,
//     refs/heads/NAME, refs/remotes/NAME and refs/remotes/NAME/HEAD (git's
//     rev-parse rules; symbolic references followed). An id is preferred
//     to a reference, as git does; the first candidate that is a commit,
//     or an annotated tag of a commit, wins.
//   - ~N (~ alone: ~1) goes to the first parent N times;
//   - ^N (^ alone: ^1) goes to the Nth parent, ^0 stays;
//   - ^{commit} peels (a no-op here), ^{/TEXT} goes to the newest commit
//     reachable whose message matches the regular expression TEXT, and
//     ^{/!-TEXT} to the newest whose message does not.
//
// Anything else (@{...} reflog and upstream forms, REV:path, ranges,
// ^{tree}) is an error wrapping errUnsupportedRevision rather than a guess:
// go-git ignores those suffixes and would resolve "main@{upstream}" to
// main.
func (r *Repo) resolveRevision(rev string) (plumbing.Hash, error) {
	base, suffixes := splitRevision(rev)
	if err := checkRefName(base); err != nil {
		return plumbing.ZeroHash, err
	}
	ops, err := parseSuffixes(suffixes)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	commit, err := r.resolveBase(base)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	for _, o := range ops {
		switch {
		case o.op == '~':
			for range o.n {
				if commit, err = r.parent(commit, 1); err != nil {
					return plumbing.ZeroHash, err
				}
			}
		case o.peel:
			commit, err = r.peel(commit, o.arg)
		case o.n > 0:
			commit, err = r.parent(commit, o.n)
		}
		if err != nil {
			return plumbing.ZeroHash, err
		}
	}
	return commit, nil
}

// revOp is one suffix of a revision: ~N, ^N or ^{arg}.
type revOp struct {
	op   byte
	n    int
	peel bool
	arg  string
}

// parseSuffixes parses the suffixes of a revision (see resolveRevision).
func parseSuffixes(s string) ([]revOp, error) {
	var ops []revOp
	for s != "" {
		o := revOp{op: s[0], n: 1}
		s = s[1:]
		if o.op != '~' && o.op != '^' {
			return nil, fmt.Errorf("%w: unsupported revision syntax at %q", errUnsupportedRevision, string(o.op)+s)
		}
		if o.op == '^' && strings.HasPrefix(s, "{") {
			end := strings.IndexByte(s, '}')
			if end < 0 {
				return nil, fmt.Errorf("%w: unterminated ^{ in ^%s", errUnsupportedRevision, s)
			}
			o.peel, o.arg, s = true, s[1:end], s[end+1:]
			ops = append(ops, o)
			continue
		}
		digits := len(s) - len(strings.TrimLeft(s, "0123456789"))
		if digits > 0 {
			n, err := strconv.Atoi(s[:digits])
			if err != nil {
				return nil, fmt.Errorf("bad number in %s", s[:digits])
			}
			o.n, s = n, s[digits:]
		}
		ops = append(ops, o)
	}
	return ops, nil
}

// splitRevision splits rev at its first ~ or ^.
func splitRevision(rev string) (base, suffixes string) {
	if i := strings.IndexAny(rev, "~^"); i >= 0 {
		return rev[:i], rev[i:]
	}
	return rev, ""
}

// checkRefName refuses what cannot be a reference name or id (git
// check-ref-format's rules that matter here), including the revision forms
// this resolver does not read.
func checkRefName(s string) error {
	switch {
	case s == "":
		return errors.New("empty revision")
	case strings.Contains(s, "@{"):
		return fmt.Errorf("%w: @{...} (reflog, upstream) is not supported", errUnsupportedRevision)
	case strings.Contains(s, ":"):
		return fmt.Errorf("%w: REV:path is not supported (--rev names a commit)", errUnsupportedRevision)
	case strings.Contains(s, ".."):
		return fmt.Errorf("%w: a range (A..B, A...B) is not supported (--rev names one commit)", errUnsupportedRevision)
	case strings.HasPrefix(s, "/"), strings.HasSuffix(s, "/"),
		strings.HasSuffix(s, "."), strings.Contains(s, "//"), strings.HasSuffix(s, ".lock"):
		return errors.New("not a valid reference name")
	}
	for _, c := range s {
		if c < 0x20 || c == 0x7f || strings.ContainsRune(" ?*[\\", c) {
			return errors.New("not a valid reference name")
		}
	}
	return nil
}

// resolveBase returns the commit base names (see resolveRevision).
func (r *Repo) resolveBase(base string) (plumbing.Hash, error) {
	candidates, err := r.hashesWithPrefix(base)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if h, ok, err := r.lookupRef(base); err != nil {
		return plumbing.ZeroHash, err
	} else if ok {
		candidates = append(candidates, h)
	}
	for _, h := range candidates {
		typ, data, err := r.readAny(h)
		if err != nil {
			continue
		}
		switch typ {
		case objCommit:
			return h, nil
		case objTag:
			return r.tagCommit(h, data)
		}
	}
	return plumbing.ZeroHash, plumbing.ErrReferenceNotFound
}

// hashesWithPrefix returns the ids of the objects whose hex form starts
// with s, when s is 4 to 40 hex digits.
func (r *Repo) hashesWithPrefix(s string) ([]plumbing.Hash, error) {
	if len(s) < 4 || len(s) > 40 || strings.Trim(strings.ToLower(s), "0123456789abcdef") != "" {
		return nil, nil
	}
	s = strings.ToLower(s)
	if h, ok := parseHexID(s); ok {
		return []plumbing.Hash{h}, nil
	}
	prefix, err := hex.DecodeString(s[:len(s)&^1])
	if err != nil {
		return nil, nil
	}
	gg, err := r.git()
	if err != nil {
		return nil, err
	}
	hs, err := gg.HashesWithPrefix(prefix)
	if err != nil {
		return nil, nil // as go-git: an unreadable object directory matches nothing
	}
	var out []plumbing.Hash
	for _, h := range hs {
		if strings.HasPrefix(h.String(), s) {
			out = append(out, h)
		}
	}
	return out, nil
}

// lookupRef resolves name with git's rev-parse rules (see resolveRevision)
// through go-git's reference storage.
func (r *Repo) lookupRef(name string) (plumbing.Hash, bool, error) {
	gg, err := r.git()
	if err != nil {
		return plumbing.ZeroHash, false, err
	}
	for _, rule := range plumbing.RefRevParseRules {
		ref, err := storer.ResolveReference(gg, plumbing.ReferenceName(fmt.Sprintf(rule, name)))
		if err == nil {
			return ref.Hash(), true, nil
		}
	}
	return plumbing.ZeroHash, false, nil
}

// tagCommit returns the commit the annotated tag h (content data) tags.
func (r *Repo) tagCommit(h plumbing.Hash, data []byte) (plumbing.Hash, error) {
	obj, typ := headerValue(data, "object"), headerValue(data, "type")
	target, ok := parseHexID(obj)
	if !ok {
		return plumbing.ZeroHash, fmt.Errorf("tag %s has a malformed object line", h)
	}
	if typ != "commit" {
		return plumbing.ZeroHash, fmt.Errorf("tag %s tags a %s, not a commit", h, typ)
	}
	if _, err := r.readObject(target, objCommit); err != nil {
		return plumbing.ZeroHash, err
	}
	return target, nil
}

// parent returns the nth (from 1) parent of commit c.
func (r *Repo) parent(c plumbing.Hash, n int) (plumbing.Hash, error) {
	ps, _, err := r.commitParents(c)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if n > len(ps) {
		return plumbing.ZeroHash, fmt.Errorf("commit %s has %d parent(s), no parent %d", c, len(ps), n)
	}
	return ps[n-1], nil
}

// commitParents returns the parents and the message of commit c.
func (r *Repo) commitParents(c plumbing.Hash) ([]plumbing.Hash, []byte, error) {
	data, err := r.readObject(c, objCommit)
	if err != nil {
		return nil, nil, err
	}
	head, msg, _ := bytes.Cut(data, []byte("\n\n"))
	var ps []plumbing.Hash
	for _, line := range bytes.Split(head, []byte("\n")) {
		if id, ok := bytes.CutPrefix(line, []byte("parent ")); ok {
			h, ok := parseHexID(string(id))
			if !ok {
				return nil, nil, fmt.Errorf("commit %s has a malformed parent line", c)
			}
			ps = append(ps, h)
		}
	}
	return ps, msg, nil
}

// peel applies ^{arg} to commit c: "" and "commit" keep it; "/TEXT" and
// "/!-TEXT" search its history, newest first in go-git's pre-order (a
// commit, then each parent's history in order, each commit once).
func (r *Repo) peel(c plumbing.Hash, arg string) (plumbing.Hash, error) {
	if arg == "" || arg == "commit" {
		return c, nil
	}
	pat, ok := strings.CutPrefix(arg, "/")
	if !ok {
		return plumbing.ZeroHash, fmt.Errorf("%w: ^{%s} is not supported (only ^{commit} and ^{/TEXT})", errUnsupportedRevision, arg)
	}
	pat, negate := strings.CutPrefix(pat, "!-")
	re, err := regexp.Compile(pat)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("^{/%s}: %v", arg[1:], err)
	}
	seen := map[plumbing.Hash]bool{}
	stack := []plumbing.Hash{c}
	for len(stack) > 0 {
		h := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[h] {
			continue
		}
		seen[h] = true
		ps, msg, err := r.commitParents(h)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		if re.Match(msg) != negate {
			return h, nil
		}
		for i := len(ps) - 1; i >= 0; i-- {
			stack = append(stack, ps[i])
		}
	}
	return plumbing.ZeroHash, fmt.Errorf("no commit message matches %q", pat)
}

// headerValue returns the value of the first header line "key value" of a
// commit or tag.
func headerValue(data []byte, key string) string {
	head, _, _ := bytes.Cut(data, []byte("\n\n"))
	for _, line := range bytes.Split(head, []byte("\n")) {
		if v, ok := bytes.CutPrefix(line, []byte(key+" ")); ok {
			return string(v)
		}
	}
	return ""
}
