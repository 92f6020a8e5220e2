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
	type entry struct{ login, password string }
	var found, def *entry
	var cur *entry
	lines := strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		f := strings.Fields(lines[i])
		for j := 0; j < len(f); j++ {
			switch f[j] {
			case "machine":
				cur = nil
				if j+1 < len(f) {
					j++
					if f[j] == host && found == nil {
						found = &entry{}
						cur = found
					}
				}
			case "default":
				cur = nil
				if def == nil {
					def = &entry{}
					cur = def
				}
			case "login", "password", "account":
				if j+1 < len(f) {
					j++
					if cur != nil && f[j-1] == "login" {
						cur.login = f[j]
					} else if cur != nil && f[j-1] == "password" {
						cur.password = f[j]
					}
				}
			case "macdef":
				for i+1 < len(lines) && strings.TrimSpace(lines[i+1]) != "" {
					i++
				}
				j = len(f)
			}
		}
	}
	if found == nil {
		found = def
	}
	if found == nil {
		return "", "", false
	}
	return found.login, found.password, true
}
