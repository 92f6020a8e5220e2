// Package pep440 parses, normalises, compares and matches Python package
// versions as PEP 440 ("Version Identification and Dependency
// Specification", the text at packaging.python.org/specifications/
// version-specifiers) and the packaging library define them. It has no
// network and no dependencies: agentgate (verify, the offline hook, pin)
// and the registry resolver in agentgate-mcp share it.
//
// Parse accepts every spelling PEP 440's "Normalization" section allows
// (case, a leading "v", "-"/"_"/"." separators, alpha/beta/c/pre/preview/
// rev/r spellings, implicit pre/post/dev numbers, "1.0-1" as a
// post-release, leading zeros, surrounding whitespace); Compare orders as
// the specification's "Summary of permitted suffixes and relative
// ordering" does, and treats trailing zeros of the release as absent
// (1.0 == 1.0.0). Match implements "Version specifiers" (==, !=, ===, ~=,
// <=, >=, <, >, with == / != prefix matching on ".*"). NormalizeName is
// the other half of naming a Python package: PEP 503's project name
// normalisation.
//
// Written by hand: the one Go library (aquasecurity/go-pep440-version
// v0.0.1, 3 modules) keeps "1.0+ubuntu-1" and "1.0+0100" unnormalised and
// lets "<1.7" match 1.7a1, against the specification and our tests.
package pep440

import (
	"cmp"
	"math"
	"strconv"
	"strings"

	"github.com/agentgate/agentgate/internal/lazyre"
)

// Version is one parsed PEP 440 version.
type Version struct {
	epoch   int
	release []int // trailing zeros removed (1.0 == 1)
	written int   // number of release components as written
	preL    string
	preN    int
	hasPre  bool
	post    int    // -1: none
	dev     int    // -1: none
	local   string // normalised: lower case, "." separators, numbers without leading zeros
}

// The regular expression of PEP 440's appendix B ("Parsing version
// strings with regular expressions"), case-insensitive, anchored, with
// surrounding whitespace allowed.
var versionRE = lazyre.New(`(?i)^\s*v?(?:(?:([0-9]+)!)?([0-9]+(?:\.[0-9]+)*)([-_.]?(a|b|c|rc|alpha|beta|pre|preview)[-_.]?([0-9]+)?)?((?:-([0-9]+))|(?:[-_.]?(post|rev|r)[-_.]?([0-9]+)?))?([-_.]?(dev)[-_.]?([0-9]+)?)?)(?:\+([a-z0-9]+(?:[-_.][a-z0-9]+)*))?\s*$`)

// atoiSat parses a run of digits, saturating at math.MaxInt (an index may
// publish absurd numbers; they must still order above smaller ones).
func atoiSat(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return math.MaxInt
	}
	return n
}

// Valid reports whether s is one version as it may be recorded: any
// spelling Parse accepts ("1.0", "V1.0", "1.0-1", "1.0.RC1"), without the
// surrounding white space Parse tolerates; not a prefix match ("1.0.*")
// or a specifier set.
func Valid(s string) bool {
	_, ok := Parse(s)
	return ok && strings.TrimSpace(s) == s
}

// Parse parses a version; ok is false for text PEP 440 rejects.
func Parse(s string) (v Version, ok bool) {
	m := versionRE().FindStringSubmatch(s)
	if m == nil {
		return Version{}, false
	}
	v = Version{post: -1, dev: -1, local: normaliseLocal(m[13])}
	if m[1] != "" {
		v.epoch = atoiSat(m[1])
	}
	for _, p := range strings.Split(m[2], ".") {
		v.release = append(v.release, atoiSat(p))
	}
	v.written = len(v.release)
	for len(v.release) > 1 && v.release[len(v.release)-1] == 0 {
		v.release = v.release[:len(v.release)-1]
	}
	if m[3] != "" {
		v.hasPre = true
		switch l := strings.ToLower(m[4]); l {
		case "alpha":
			v.preL = "a"
		case "beta":
			v.preL = "b"
		case "c", "pre", "preview":
			v.preL = "rc"
		default:
			v.preL = l
		}
		if m[5] != "" {
			v.preN = atoiSat(m[5])
		}
	}
	switch {
	case m[7] != "":
		v.post = atoiSat(m[7])
	case m[8] != "":
		v.post = 0
		if m[9] != "" {
			v.post = atoiSat(m[9])
		}
	}
	if m[11] != "" {
		v.dev = 0
		if m[12] != "" {
			v.dev = atoiSat(m[12])
		}
	}
	return v, true
}

// normaliseLocal is PEP 440's local version normalisation: lower case,
// "-" and "_" become ".", and a numeric segment loses its leading zeros
// (it compares as a number).
func normaliseLocal(s string) string {
	if s == "" {
		return ""
	}
	segs := localSegments(strings.ToLower(s))
	for i, seg := range segs {
		if isDigits(seg) {
			segs[i] = strconv.Itoa(atoiSat(seg))
		}
	}
	return strings.Join(segs, ".")
}

func localSegments(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == '.' || r == '-' || r == '_' })
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// Prerelease reports whether v is a pre-release or a development release
// (PEP 440 "Handling of pre-releases" treats both alike).
func (v Version) Prerelease() bool { return v.hasPre || v.dev >= 0 }

// String is v's normalised form (PEP 440 "Normalization"), with the
// release components as written (1.0.0 stays 1.0.0): what packaging's
// str(Version(...)) prints.
func (v Version) String() string {
	var b strings.Builder
	if v.epoch != 0 {
		b.WriteString(strconv.Itoa(v.epoch) + "!")
	}
	for i := 0; i < max(v.written, 1); i++ {
		if i > 0 {
			b.WriteByte('.')
		}
		n := 0
		if i < len(v.release) {
			n = v.release[i]
		}
		b.WriteString(strconv.Itoa(n))
	}
	if v.hasPre {
		b.WriteString(v.preL + strconv.Itoa(v.preN))
	}
	if v.post >= 0 {
		b.WriteString(".post" + strconv.Itoa(v.post))
	}
	if v.dev >= 0 {
		b.WriteString(".dev" + strconv.Itoa(v.dev))
	}
	if v.local != "" {
		b.WriteString("+" + v.local)
	}
	return b.String()
}

// Key is a string equal for two versions exactly when Compare says they
// are equal: the normalised form without trailing zeros in the release.
func (v Version) Key() string {
	k := v
	k.written = len(k.release)
	return k.String()
}

// Compare orders versions as packaging's _cmpkey does: -1, 0 or +1.
func Compare(a, b Version) int {
	if c := cmp.Compare(a.epoch, b.epoch); c != 0 {
		return c
	}
	for i := 0; i < max(len(a.release), len(b.release)); i++ {
		x, y := 0, 0
		if i < len(a.release) {
			x = a.release[i]
		}
		if i < len(b.release) {
			y = b.release[i]
		}
		if c := cmp.Compare(x, y); c != 0 {
			return c
		}
	}
	// pre: a dev-only release sorts before any pre-release; no pre sorts
	// after every pre-release.
	preKey := func(v Version) (int, string, int) {
		switch {
		case !v.hasPre && v.post < 0 && v.dev >= 0:
			return -1, "", 0
		case !v.hasPre:
			return 1, "", 0
		}
		return 0, v.preL, v.preN
	}
	ar, al, an := preKey(a)
	br, bl, bn := preKey(b)
	if c := cmp.Or(cmp.Compare(ar, br), cmp.Compare(al, bl), cmp.Compare(an, bn)); c != 0 {
		return c
	}
	if c := cmp.Compare(a.post, b.post); c != 0 {
		return c
	}
	devKey := func(v Version) int {
		if v.dev < 0 {
			return math.MaxInt
		}
		return v.dev
	}
	if c := cmp.Compare(devKey(a), devKey(b)); c != 0 {
		return c
	}
	return compareLocal(a.local, b.local)
}

// compareLocal: no local sorts first; segments compare numerically when
// both are numbers, a number after a string, else as strings; a longer
// label after its prefix.
func compareLocal(a, b string) int {
	if a == "" || b == "" {
		return cmp.Compare(len(a), len(b)) // "" first
	}
	as, bs := localSegments(a), localSegments(b)
	for i := 0; i < min(len(as), len(bs)); i++ {
		x, xn := as[i], isDigits(as[i])
		y, yn := bs[i], isDigits(bs[i])
		var c int
		switch {
		case xn && yn:
			c = cmp.Compare(atoiSat(x), atoiSat(y))
		case xn:
			c = 1
		case yn:
			c = -1
		default:
			c = strings.Compare(x, y)
		}
		if c != 0 {
			return c
		}
	}
	return cmp.Compare(len(as), len(bs))
}

// Equal reports whether a and b are the same version under PEP 440 (both
// must parse; ok is false otherwise).
func Equal(a, b string) (equal, ok bool) {
	x, ok1 := Parse(a)
	y, ok2 := Parse(b)
	if !ok1 || !ok2 {
		return false, false
	}
	return Compare(x, y) == 0, true
}

// specifier is one clause ("op version").
type specifier struct {
	op       string
	v        Version
	raw      string // the version text (for === and ~=)
	wildcard bool   // ==X.* / !=X.*
	prefix   []int  // the release as written, for wildcards and ~=
}

// Specifiers is a comma-separated specifier set; a version matches it
// when it matches every clause.
type Specifiers []specifier

var specRE = lazyre.New(`^\s*(~=|===|==|!=|<=|>=|<|>)\s*([^\s;,]+)\s*$`)

// ParseSpecifiers parses a specifier set such as ">=1.2,<2" or "~=1.4";
// ok is false when any clause is not PEP 440 (a wildcard only with == and
// !=, ~= needs at least two release components, === takes any text).
func ParseSpecifiers(s string) (Specifiers, bool) {
	var out Specifiers
	for _, part := range strings.Split(s, ",") {
		m := specRE().FindStringSubmatch(part)
		if m == nil {
			return nil, false
		}
		sp := specifier{op: m[1], raw: m[2]}
		if sp.op == "===" {
			out = append(out, sp)
			continue
		}
		text := m[2]
		if t, ok := strings.CutSuffix(text, ".*"); ok {
			if sp.op != "==" && sp.op != "!=" {
				return nil, false
			}
			sp.wildcard, text = true, t
		}
		v, ok := Parse(text)
		if !ok {
			return nil, false
		}
		sp.prefix = make([]int, v.written) // the release as written: 1.0.* is [1 0]
		copy(sp.prefix, v.release)
		switch {
		case sp.op == "~=" && len(sp.prefix) < 2,
			sp.wildcard && (v.hasPre || v.post >= 0 || v.dev >= 0 || v.local != ""),
			v.local != "" && sp.op != "==" && sp.op != "!=":
			return nil, false
		}
		sp.v = v
		out = append(out, sp)
	}
	return out, true
}

// Match reports whether v, written raw, satisfies every clause, as PEP 440's
// version matching rules define them: a candidate's local label is
// ignored unless the clause names one, === compares the text.
func (specs Specifiers) Match(v Version, raw string) bool {
	for _, s := range specs {
		if !s.match(v, raw) {
			return false
		}
	}
	return true
}

func (s specifier) match(v Version, raw string) bool {
	noLocal := v
	noLocal.local = ""
	switch s.op {
	case "===":
		return strings.EqualFold(strings.TrimSpace(raw), s.raw)
	case "==", "!=":
		var eq bool
		switch {
		case s.wildcard:
			eq = v.epoch == s.v.epoch && prefixEq(v.release, s.prefix)
		case s.v.local == "":
			eq = Compare(noLocal, s.v) == 0
		default:
			eq = Compare(v, s.v) == 0
		}
		return eq == (s.op == "==")
	case "~=":
		// ~=X.Y.Z is >=X.Y.Z, ==X.Y.*
		return Compare(noLocal, s.v) >= 0 && v.epoch == s.v.epoch && prefixEq(v.release, s.prefix[:len(s.prefix)-1])
	case ">=":
		return Compare(noLocal, s.v) >= 0
	case "<=":
		return Compare(noLocal, s.v) <= 0
	case ">":
		// >V excludes post-releases of V unless V is one.
		if Compare(noLocal, s.v) <= 0 {
			return false
		}
		return !(s.v.post < 0 && v.post >= 0 && sameBase(v, s.v))
	case "<":
		// <V excludes pre-releases of V unless V is one.
		if Compare(noLocal, s.v) >= 0 {
			return false
		}
		return !(!s.v.Prerelease() && v.Prerelease() && sameBase(v, s.v))
	}
	return false
}

// prefixEq reports whether release (zero-padded) starts with prefix.
func prefixEq(release, prefix []int) bool {
	for i, p := range prefix {
		r := 0
		if i < len(release) {
			r = release[i]
		}
		if r != p {
			return false
		}
	}
	return true
}

func sameBase(a, b Version) bool {
	return a.epoch == b.epoch && prefixEq(a.release, b.release) && prefixEq(b.release, a.release)
}
