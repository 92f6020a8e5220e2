package command

import (
	"sort"
	"strings"
)

// MergeEnv is a server's environment under goos's rules: base (agentgate's
// own) with add (the configured env) applied, a configured variable
// replacing an inherited one of the same name; names compare
// case-insensitively on Windows ("Path" replaces "PATH"), exactly
// elsewhere. The result is sorted by name (on Windows by upper-cased name,
// the order CreateProcess expects), so it does not depend on the order of
// either input.
func MergeEnv(goos string, base []string, add map[string]string) []string {
	key := func(k string) string { return k }
	if goos == "windows" {
		key = strings.ToUpper
	}
	type kv struct{ k, v string }
	m := map[string]kv{}
	for _, e := range base {
		if k, v, ok := strings.Cut(e, "="); ok {
			if goos == "windows" && k == "" {
				// "=C:=C:\dir": Windows' per-drive directories; kept.
				k, v, _ = strings.Cut(e[1:], "=")
				k = "=" + k
			}
			m[key(k)] = kv{k, v}
		}
	}
	for k, v := range add {
		m[key(k)] = kv{k, v}
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = m[k].k + "=" + m[k].v
	}
	return out
}

// Getenv returns the value of name in env under goos's rules (the last
// entry wins, as in os/exec; case-insensitive names on Windows).
func Getenv(goos string, env []string, name string) (string, bool) {
	_, v, ok := GetenvAs(goos, env, name)
	return v, ok
}

// GetenvAs is Getenv that also returns the name as env spells it: on
// Windows, where names are case-insensitive, a lookup of
// "npm_config_registry" finds NPM_CONFIG_REGISTRY, and a message must
// name the variable the user wrote.
func GetenvAs(goos string, env []string, name string) (key, val string, ok bool) {
	for i := len(env) - 1; i >= 0; i-- {
		k, v, ok := strings.Cut(env[i], "=")
		if !ok {
			continue
		}
		if k == name || (goos == "windows" && strings.EqualFold(k, name)) {
			return k, v, true
		}
	}
	return "", "", false
}
