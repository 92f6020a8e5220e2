package registry

import (
	"cmp"
	"strconv"
	"strings"

	"github.com/agentgate/agentgate/internal/lazyre"
	"golang.org/x/mod/semver"
)

// npm's version and range grammar (node-semver, which npm uses to pick a
// version, in its loose mode as npm-pick-manifest calls it). No Go semver
// library follows node-semver's range rules closely enough (prerelease
// matching by [major, minor, patch] tuple, x-ranges in comparators,
// hyphen ranges with partial bounds), and these rules decide which
// version npx runs, so they are written out here and tested against
// node-semver itself (semver_test.go runs npm's bundled copy).

// semVersion is a parsed semver version.
type semVersion struct {
	major, minor, patch uint64
	pre                 []string // prerelease identifiers; nil for a release
	raw                 string
}

const maxSafeInt = 1<<53 - 1

var looseVersionRE = lazyre.New(`^[v=\s]*(\d+)\.(\d+)\.(\d+)(?:-?((?:\d+|\d*[A-Za-z-][0-9A-Za-z-]*)(?:\.(?:\d+|\d*[A-Za-z-][0-9A-Za-z-]*))*))?(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?$`)

// strictSemver reports whether v is a version as SemVer 2.0.0
// (semver.org) writes it and as npm publishes it (npm publish cleans a
// version to this form before it reaches a packument): MAJOR.MINOR.PATCH
// without leading zeros, an optional prerelease and build, nothing else
// (no "v", "=", spaces or other characters). That is x/mod/semver's
// grammar without its "v" and its shorthands ("v1.2" for "v1.2.0"). A
// version agentgate records must match it.
func strictSemver(v string) bool {
	sv := "v" + v
	return semver.IsValid(sv) && strings.HasPrefix(sv, semver.Canonical(sv))
}

// parseSemver parses a version as node-semver's loose parser does.
func parseSemver(s string) (semVersion, bool) {
	m := looseVersionRE().FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return semVersion{}, false
	}
	v := semVersion{raw: s}
	for i, p := range []*uint64{&v.major, &v.minor, &v.patch} {
		n, err := strconv.ParseUint(m[i+1], 10, 64)
		if err != nil || n > maxSafeInt {
			return semVersion{}, false
		}
		*p = n
	}
	if m[4] != "" {
		v.pre = strings.Split(m[4], ".")
	}
	return v, true
}

// compareSemver orders versions by semver precedence (build ignored).
func compareSemver(a, b semVersion) int {
	if c := cmp.Or(cmp.Compare(a.major, b.major), cmp.Compare(a.minor, b.minor), cmp.Compare(a.patch, b.patch)); c != 0 {
		return c
	}
	switch {
	case len(a.pre) == 0 && len(b.pre) == 0:
		return 0
	case len(a.pre) == 0:
		return 1
	case len(b.pre) == 0:
		return -1
	}
	for i := 0; ; i++ {
		switch {
		case i == len(a.pre) && i == len(b.pre):
			return 0
		case i == len(a.pre):
			return -1
		case i == len(b.pre):
			return 1
		}
		x, y := a.pre[i], b.pre[i]
		xn, xerr := strconv.ParseUint(x, 10, 64)
		yn, yerr := strconv.ParseUint(y, 10, 64)
		switch {
		case xerr == nil && yerr == nil:
			if c := cmp.Compare(xn, yn); c != 0 {
				return c
			}
		case xerr == nil:
			return -1
		case yerr == nil:
			return 1
		default:
			if c := strings.Compare(x, y); c != 0 {
				return c
			}
		}
	}
}

// comparator is one "op version" test; op "" with any set matches all.
type comparator struct {
	op  string // "<", "<=", ">", ">=", "="
	v   semVersion
	any bool
}

func (c comparator) test(v semVersion) bool {
	if c.any {
		return true
	}
	d := compareSemver(v, c.v)
	switch c.op {
	case "<":
		return d < 0
	case "<=":
		return d <= 0
	case ">":
		return d > 0
	case ">=":
		return d >= 0
	}
	return d == 0
}

// semRange is a node-semver range: comparator sets joined by ||.
type semRange [][]comparator

// satisfies reports whether v is in r, without includePrerelease: a
// prerelease matches only a set that names a prerelease of the same
// [major, minor, patch].
func (r semRange) satisfies(v semVersion) bool {
	for _, set := range r {
		if testSet(set, v) {
			return true
		}
	}
	return false
}

func testSet(set []comparator, v semVersion) bool {
	for _, c := range set {
		if !c.test(v) {
			return false
		}
	}
	if len(v.pre) == 0 {
		return true
	}
	for _, c := range set {
		if !c.any && len(c.v.pre) > 0 && c.v.major == v.major && c.v.minor == v.minor && c.v.patch == v.patch {
			return true
		}
	}
	return false
}

// partial is a version with x-range holes: -1 marks x, X, * or absent.
type partial struct {
	major, minor, patch int64
	pre                 string
}

var partialRE = lazyre.New(`^[v=\s]*(\d+|[xX*])(?:\.(\d+|[xX*])(?:\.(\d+|[xX*])(?:-?((?:\d+|\d*[A-Za-z-][0-9A-Za-z-]*)(?:\.(?:\d+|\d*[A-Za-z-][0-9A-Za-z-]*))*))?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?)?)?$`)

func parsePartial(s string) (partial, bool) {
	m := partialRE().FindStringSubmatch(s)
	if m == nil {
		return partial{}, false
	}
	p := partial{major: -1, minor: -1, patch: -1, pre: m[4]}
	for i, dst := range []*int64{&p.major, &p.minor, &p.patch} {
		if m[i+1] == "" || m[i+1] == "x" || m[i+1] == "X" || m[i+1] == "*" {
			continue
		}
		n, err := strconv.ParseInt(m[i+1], 10, 64)
		if err != nil || n > maxSafeInt {
			return partial{}, false
		}
		*dst = n
	}
	// A hole stops the version: 1.x.3 is 1.x.x.
	if p.major < 0 {
		p.minor = -1
	}
	if p.minor < 0 {
		p.patch = -1
	}
	if p.patch < 0 {
		p.pre = ""
	}
	return p, true
}

// ver builds the comparator version M.m.p[-pre].
func ver(major, minor, patch int64, pre string) semVersion {
	v := semVersion{major: uint64(major), minor: uint64(minor), patch: uint64(patch)}
	if pre != "" {
		v.pre = strings.Split(pre, ".")
	}
	return v
}

var (
	hyphenRE  = lazyre.New(`^\s*(\S+)\s+-\s+(\S+)\s*$`)
	opSpaceRE = lazyre.New(`(~>?|\^|[<>]=?|=)\s+`)
	tokenRE   = lazyre.New(`^(~>?|\^|<=|>=|<|>|=)?(.*)$`)
)

// parseRange parses a node-semver range (loose). ok is false when npm's
// validRange would return null: npm then treats the spec as a dist-tag.
func parseRange(s string) (semRange, bool) {
	var r semRange
	for _, part := range strings.Split(strings.TrimSpace(s), "||") {
		if set := parseSet(strings.TrimSpace(part)); len(set) > 0 {
			r = append(r, set)
		}
	}
	return r, len(r) > 0
}

// parseSet parses one comparator set. As in node-semver's loose mode, a
// token that is not a comparator is dropped; a set left with none (but
// written with some) is no set at all (nil).
func parseSet(s string) []comparator {
	if m := hyphenRE().FindStringSubmatch(s); m != nil {
		from, ok1 := parsePartial(m[1])
		to, ok2 := parsePartial(m[2])
		if ok1 && ok2 {
			return hyphen(from, to)
		}
	}
	s = opSpaceRE().ReplaceAllStringFunc(s, strings.TrimSpace)
	toks := strings.Fields(s)
	if len(toks) == 0 {
		return []comparator{{any: true}}
	}
	var set []comparator
	for _, tok := range toks {
		m := tokenRE().FindStringSubmatch(tok)
		if p, ok := parsePartial(m[2]); ok {
			set = append(set, expand(m[1], p)...)
		}
	}
	return set
}

// expand turns one "op partial" into comparators, as node-semver's
// replaceCarets, replaceTildes and replaceXRanges do.
func expand(op string, p partial) []comparator {
	switch op {
	case "^":
		return expandCaret(p)
	case "~", "~>":
		return expandTilde(p)
	}
	return expandX(op, p)
}

func comp(op string, v semVersion) comparator { return comparator{op: op, v: v} }

// expandCaret is node-semver's replaceCaret: ^p allows changes that do
// not modify p's left-most non-zero part.
func expandCaret(p partial) []comparator {
	M, m, pt, pr := p.major, p.minor, p.patch, p.pre
	switch {
	case M < 0:
		return []comparator{{any: true}}
	case m < 0:
		return []comparator{comp(">=", ver(M, 0, 0, "")), comp("<", ver(M+1, 0, 0, "0"))}
	case pt < 0:
		if M == 0 {
			return []comparator{comp(">=", ver(M, m, 0, "")), comp("<", ver(M, m+1, 0, "0"))}
		}
		return []comparator{comp(">=", ver(M, m, 0, "")), comp("<", ver(M+1, 0, 0, "0"))}
	case M == 0 && m == 0:
		return []comparator{comp(">=", ver(M, m, pt, pr)), comp("<", ver(M, m, pt+1, "0"))}
	case M == 0:
		return []comparator{comp(">=", ver(M, m, pt, pr)), comp("<", ver(M, m+1, 0, "0"))}
	}
	return []comparator{comp(">=", ver(M, m, pt, pr)), comp("<", ver(M+1, 0, 0, "0"))}
}

// expandTilde is node-semver's replaceTilde: ~p allows patch-level
// changes when p names a minor version, else minor-level ones.
func expandTilde(p partial) []comparator {
	M, m, pt, pr := p.major, p.minor, p.patch, p.pre
	switch {
	case M < 0:
		return []comparator{{any: true}}
	case m < 0:
		return []comparator{comp(">=", ver(M, 0, 0, "")), comp("<", ver(M+1, 0, 0, "0"))}
	}
	lo := int64(0)
	if pt >= 0 {
		lo = pt
	}
	return []comparator{comp(">=", ver(M, m, lo, pr)), comp("<", ver(M, m+1, 0, "0"))}
}

// expandX is node-semver's replaceXRange for op ("", "=", "<", "<=", ">",
// ">=") and a partial that may have x parts.
func expandX(op string, p partial) []comparator {
	M, m, pt, pr := p.major, p.minor, p.patch, p.pre
	anyX := pt < 0
	if op == "=" && anyX {
		op = ""
	}
	switch {
	case M < 0:
		if op == ">" || op == "<" {
			return []comparator{comp("<", ver(0, 0, 0, "0"))} // matches nothing
		}
		return []comparator{{any: true}}
	case op != "" && anyX:
		return []comparator{xBound(op, p)}
	case m < 0:
		return []comparator{comp(">=", ver(M, 0, 0, "")), comp("<", ver(M+1, 0, 0, "0"))}
	case pt < 0:
		return []comparator{comp(">=", ver(M, m, 0, "")), comp("<", ver(M, m+1, 0, "0"))}
	}
	if op == "" {
		op = "="
	}
	return []comparator{comp(op, ver(M, m, pt, pr))}
}

// xBound is the one comparator of "op M.x" or "op M.m.x": > and <= move
// to the next minor (or major) version.
func xBound(op string, p partial) comparator {
	M, m := p.major, max(p.minor, 0)
	pre := ""
	switch op {
	case ">":
		op = ">="
		if p.minor < 0 {
			M, m = M+1, 0
		} else {
			m++
		}
	case "<=":
		op = "<"
		if p.minor < 0 {
			M++
		} else {
			m++
		}
	}
	if op == "<" {
		pre = "0"
	}
	return comp(op, ver(M, m, 0, pre))
}

// hyphen expands "from - to" as node-semver's hyphenReplace does.
func hyphen(from, to partial) []comparator {
	var set []comparator
	switch {
	case from.major < 0:
	case from.minor < 0:
		set = append(set, comparator{op: ">=", v: ver(from.major, 0, 0, "")})
	case from.patch < 0:
		set = append(set, comparator{op: ">=", v: ver(from.major, from.minor, 0, "")})
	default:
		set = append(set, comparator{op: ">=", v: ver(from.major, from.minor, from.patch, from.pre)})
	}
	switch {
	case to.major < 0:
	case to.minor < 0:
		set = append(set, comparator{op: "<", v: ver(to.major+1, 0, 0, "0")})
	case to.patch < 0:
		set = append(set, comparator{op: "<", v: ver(to.major, to.minor+1, 0, "0")})
	default:
		set = append(set, comparator{op: "<=", v: ver(to.major, to.minor, to.patch, to.pre)})
	}
	if len(set) == 0 {
		return []comparator{{any: true}}
	}
	return set
}
