package registry

import (
	"os"
	"path/filepath"
	"strings"
)

// Written by hand: the go command's netrc parser is internal to it, and
// jdx/go-netrc v1.0.0 does not skip macdef bodies, indexes past the end
// on a trailing "machine" and runs gpg for a .gpg name.

// netrcAuth returns the login and password .netrc holds for host (the
// "machine" entry, else "default"), as uv, pip and the go command use it
// for an index or proxy URL without credentials. The file is $NETRC, else
// ~/.netrc, or %USERPROFILE%\_netrc on Windows (the go command's rule:
// cmd/go/internal/auth/netrc.go; golang.org/x/tools/cmd/auth/netrcauth
// "uses a .netrc file (or _netrc file on Windows)"). Tokens are whitespace-separated;
// "macdef" bodies (up to a blank line) are skipped. No file or no entry:
// ok is false.
func (r *Resolver) netrcAuth(host string) (login, password string, ok bool) {
	name := r.getenv("NETRC")
	if name == "" {
		base := ".netrc"
		if r.goos() == "windows" {
			base = "_netrc"
		}
		name = filepath.Join(r.home(), base)
	}
	data, err := os.ReadFile(name)
	if err != nil {
		return "", "", false
	}
	p := netrcParser{host: host}
	lines := strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		if p.line(strings.Fields(lines[i])) {
			for i+1 < len(lines) && strings.TrimSpace(lines[i+1]) != "" {
				i++
			}
		}
	}
	e := p.found
	if e == nil {
		e = p.def
	}
	if e == nil {
		return "", "", false
	}
	return e.login, e.password, true
}

// netrcParser reads a .netrc line by line for host's entry.
type netrcParser struct {
	host       string
	found, def *netrcEntry // the first "machine host" entry, the first "default"
	cur        *netrcEntry // the entry the tokens now fill; nil for one not wanted
}

type netrcEntry struct{ login, password string }

// line reads one line's tokens (a token's value is the next token on the
// same line); macdef reports a "macdef", whose body (up to a blank line)
// the caller skips.
func (p *netrcParser) line(f []string) (macdef bool) {
	for j := 0; j < len(f); j++ {
		switch f[j] {
		case "machine":
			p.cur = nil
			if j+1 < len(f) {
				j++
				if f[j] == p.host && p.found == nil {
					p.found = &netrcEntry{}
					p.cur = p.found
				}
			}
		case "default":
			p.cur = nil
			if p.def == nil {
				p.def = &netrcEntry{}
				p.cur = p.def
			}
		case "login", "password", "account":
			if j+1 < len(f) {
				j++
				if p.cur != nil && f[j-1] == "login" {
					p.cur.login = f[j]
				} else if p.cur != nil && f[j-1] == "password" {
					p.cur.password = f[j]
				}
			}
		case "macdef":
			return true
		}
	}
	return false
}
