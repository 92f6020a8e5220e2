package registry

import (
	"cmp"
	"math"
	"strconv"
	"strings"
)

// pyVersion is a PEP 440 version, compared as the packaging library
// compares them.
type pyVersion struct {
	epoch   int
	release []int // trailing zeros removed (1.0 == 1)
	preL    string
	preN    int
	hasPre  bool
	post    int // -1: none
	dev     int // -1: none
	local   string
}

var pep440RE = lazyRegexp(`(?i)^\s*v?(?:(?:([0-9]+)!)?([0-9]+(?:\.[0-9]+)*)([-_.]?(a|b|c|rc|alpha|beta|pre|preview)[-_.]?([0-9]+)?)?((?:-([0-9]+))|(?:[-_.]?(post|rev|r)[-_.]?([0-9]+)?))?([-_.]?(dev)[-_.]?([0-9]+)?)?)(?:\+([a-z0-9]+(?:[-_.][a-z0-9]+)*))?\s*$`)

func atoiSat(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return math.MaxInt
	}
	return n
}

// parsePEP440 parses a version; ok is false for one PEP 440 rejects.
func parsePEP440(s string) (pyVersion, bool) {
	m := pep440RE().FindStringSubmatch(s)
	if m == nil {
		return pyVersion{}, false
	}
	v := pyVersion{post: -1, dev: -1, local: strings.ToLower(m[13])}
	if m[1] != "" {
		v.epoch = atoiSat(m[1])
	}
	for _, p := range strings.Split(m[2], ".") {
		v.release = append(v.release, atoiSat(p))
	}
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

func (v pyVersion) prerelease() bool { return v.hasPre || v.dev >= 0 }

// comparePEP440 orders versions as packaging's _cmpkey does.
func comparePEP440(a, b pyVersion) int {
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
	preKey := func(v pyVersion) (int, string, int) {
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
	devKey := func(v pyVersion) int {
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
// both are numbers, a number after a string, else as strings.
func compareLocal(a, b string) int {
	if a == "" || b == "" {
		return cmp.Compare(len(a), len(b)) // "" first
	}
	split := func(s string) []string {
		return strings.FieldsFunc(s, func(r rune) bool { return r == '.' || r == '-' || r == '_' })
	}
	as, bs := split(a), split(b)
	for i := 0; i < min(len(as), len(bs)); i++ {
		x, xe := strconv.Atoi(as[i])
		y, ye := strconv.Atoi(bs[i])
		var c int
		switch {
		case xe == nil && ye == nil:
			c = cmp.Compare(x, y)
		case xe == nil:
			c = 1
		case ye == nil:
			c = -1
		default:
			c = strings.Compare(as[i], bs[i])
		}
		if c != 0 {
			return c
		}
	}
	return cmp.Compare(len(as), len(bs))
}

// pySpecifier is one PEP 440 clause ("op version").
type pySpecifier struct {
	op       string
	v        pyVersion
	raw      string // the version text (for === and wildcards)
	wildcard bool   // ==X.* / !=X.*
}

var pySpecRE = lazyRegexp(`^\s*(~=|===|==|!=|<=|>=|<|>)\s*([^\s;]+)\s*$`)

// parsePySpecifiers parses a comma-separated specifier set; ok is false
// when any clause is not PEP 440.
func parsePySpecifiers(s string) ([]pySpecifier, bool) {
	var out []pySpecifier
	for _, part := range strings.Split(s, ",") {
		m := pySpecRE().FindStringSubmatch(part)
		if m == nil {
			return nil, false
		}
		sp := pySpecifier{op: m[1], raw: m[2]}
		if sp.op == "===" {
			out = append(out, sp)
			continue
		}
		text := m[2]
		if strings.HasSuffix(text, ".*") && (sp.op == "==" || sp.op == "!=") {
			sp.wildcard, text = true, strings.TrimSuffix(text, ".*")
		}
		v, ok := parsePEP440(text)
		if !ok || sp.op == "~=" && len(strings.Split(pep440RE().FindStringSubmatch(text)[2], ".")) < 2 {
			return nil, false
		}
		sp.v = v
		if sp.wildcard {
			// Keep the written release length: ==1.0.* matches 1.0.x only.
			sp.v.release = nil
			for _, p := range strings.Split(pep440RE().FindStringSubmatch(text)[2], ".") {
				sp.v.release = append(sp.v.release, atoiSat(p))
			}
		}
		out = append(out, sp)
	}
	return out, true
}

// matches reports whether v (written raw) satisfies every clause, as
// PEP 440's version matching rules define them (local versions ignored
// except by ===).
func matchesPy(specs []pySpecifier, v pyVersion, raw string) bool {
	for _, s := range specs {
		if !s.match(v, raw) {
			return false
		}
	}
	return true
}

func (s pySpecifier) match(v pyVersion, raw string) bool {
	noLocal := v
	noLocal.local = ""
	switch s.op {
	case "===":
		return strings.EqualFold(strings.TrimSpace(raw), s.raw)
	case "==", "!=":
		eq := false
		if s.wildcard {
			eq = v.epoch == s.v.epoch && prefixEq(v.release, s.v.release)
		} else {
			target := s.v
			if target.local == "" {
				eq = comparePEP440(noLocal, target) == 0
			} else {
				eq = comparePEP440(v, target) == 0
			}
		}
		return eq == (s.op == "==")
	case "~=":
		// ~=X.Y.Z is >=X.Y.Z, ==X.Y.*
		full := pep440Release(s.raw)
		prefix := full[:len(full)-1]
		return comparePEP440(noLocal, s.v) >= 0 && v.epoch == s.v.epoch && prefixEq(v.release, prefix)
	case ">=":
		return comparePEP440(noLocal, s.v) >= 0
	case "<=":
		return comparePEP440(noLocal, s.v) <= 0
	case ">":
		// >V excludes post-releases of V unless V is one.
		if comparePEP440(noLocal, s.v) <= 0 {
			return false
		}
		if s.v.post < 0 && v.post >= 0 && sameBase(v, s.v) {
			return false
		}
		return true
	case "<":
		// <V excludes pre-releases of V unless V is one.
		if comparePEP440(noLocal, s.v) >= 0 {
			return false
		}
		if !s.v.prerelease() && v.prerelease() && sameBase(v, s.v) {
			return false
		}
		return true
	}
	return false
}

func pep440Release(text string) []int {
	m := pep440RE().FindStringSubmatch(text)
	var out []int
	for _, p := range strings.Split(m[2], ".") {
		out = append(out, atoiSat(p))
	}
	return out
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

func sameBase(a, b pyVersion) bool {
	return a.epoch == b.epoch && prefixEq(a.release, b.release) && prefixEq(b.release, a.release)
}
