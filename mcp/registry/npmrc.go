package registry

import (
	"bufio"
	"context"
	"encoding/base64"
	"errors"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/agentgate/agentgate/internal/lazyre"
)

// npmConfig is the part of npm's configuration that decides where a
// package comes from and how npm authenticates: the layers npm reads, in
// its order of precedence (environment, project .npmrc, user .npmrc).
// npm's global and built-in layers are reached through `npm config get`.
type npmConfig struct {
	layers []npmLayer
}

type npmLayer struct {
	source string            // "NPM_CONFIG_*", or the file's path
	kv     map[string]string // keys as written (lower-cased for env), values with ${VAR} expanded
}

// loadNPMConfig reads the environment, the project's .npmrc (in
// npmLocalPrefix of Dir) and the user's .npmrc
// (NPM_CONFIG_USERCONFIG, else ~/.npmrc). Unreadable or absent files are
// skipped, as npm skips them.
func (r *Resolver) loadNPMConfig() npmConfig {
	var c npmConfig
	userconfig := ""
	for _, k := range []string{"registry", "cache", "userconfig"} {
		for _, name := range []string{"npm_config_" + k, "NPM_CONFIG_" + strings.ToUpper(k)} {
			if as, v := r.envAs(name); v != "" {
				if k == "userconfig" {
					userconfig = v
				} else {
					c.layers = append(c.layers, npmLayer{source: as, kv: map[string]string{k: v}})
				}
				break
			}
		}
	}
	dir := r.dirOrWD()
	if l, ok := r.readNPMRC(filepath.Join(npmLocalPrefix(dir), ".npmrc")); ok {
		c.layers = append(c.layers, l)
	}
	if userconfig == "" {
		userconfig = filepath.Join(r.home(), ".npmrc")
	}
	if l, ok := r.readNPMRC(userconfig); ok {
		c.layers = append(c.layers, l)
	}
	return c
}

// npmLocalPrefix is the project directory whose .npmrc npm reads for a
// command run in dir (@npmcli/config's local prefix): the nearest of dir
// and its parents that holds package.json or node_modules, else dir.
func npmLocalPrefix(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		for _, n := range []string{"package.json", "node_modules"} {
			if _, err := os.Stat(filepath.Join(d, n)); err == nil {
				return d
			}
		}
		if filepath.Dir(d) == d {
			return dir
		}
	}
}

// get returns the first layer's value for key, and that layer's source.
func (c npmConfig) get(key string) (val, source string, ok bool) {
	for _, l := range c.layers {
		if v, ok := l.kv[key]; ok {
			return v, l.source, true
		}
	}
	return "", "", false
}

// readNPMRC parses an .npmrc as npm's ini reader does: key = value lines,
// ; and # comments, optional quotes around a value; ${VAR} and ${VAR?}
// expanded from the environment (an unset ${VAR} stays as written, ${VAR?}
// becomes empty).
func (r *Resolver) readNPMRC(path string) (npmLayer, bool) {
	f, err := os.Open(path)
	if err != nil {
		return npmLayer{}, false
	}
	defer f.Close()
	l := npmLayer{source: path, kv: map[string]string{}}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == ';' || line[0] == '#' || line[0] == '[' {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(r.expandEnv(k)), strings.TrimSpace(v)
		if len(v) >= 2 && (v[0] == '"' && v[len(v)-1] == '"' || v[0] == '\'' && v[len(v)-1] == '\'') {
			v = v[1 : len(v)-1]
		}
		l.kv[k] = r.expandEnv(v)
	}
	return l, true
}

var envExprRE = lazyre.New(`(\\*)\$\{([^${}?]+)(\?)?\}`)

// expandEnv is @npmcli/config's env-replace: an odd number of backslashes
// escapes the reference.
func (r *Resolver) expandEnv(s string) string {
	return envExprRE().ReplaceAllStringFunc(s, func(m string) string {
		sub := envExprRE().FindStringSubmatch(m)
		esc, name, q := sub[1], sub[2], sub[3]
		if len(esc)%2 == 1 {
			return m[(len(esc)+1)/2:]
		}
		val, set := r.lookupEnv(name)
		if !set {
			if q == "?" {
				val = ""
			} else {
				val = "${" + name + "}"
			}
		}
		return esc[len(esc)/2:] + val
	})
}

// npmRegistry returns the registry npm would fetch name from, and where
// that setting came from: @scope:registry (for a scoped name) before
// registry, each from the files and environment first, then from `npm
// config get` (npm's global config and built-in default).
//
// asks are the commands that answer `<cmd> KEY` with the launcher's own
// value (`npm config get`; pnpm's first for pnpm dlx), tried in order.
func (r *Resolver) npmRegistry(ctx context.Context, c npmConfig, name string, asks [][]string) (reg, source string, err error) {
	var keys []string
	if scope := npmScopeOf(name); scope != "" {
		keys = append(keys, scope+":registry")
	}
	keys = append(keys, "registry")
	for _, k := range keys {
		if v, src, ok := c.get(k); ok && v != "" {
			if !strings.HasPrefix(strings.ToLower(src), "npm_config_") {
				src += " (" + k + ")" // a file: name the key
			}
			return v, src, nil
		}
		for _, ask := range asks {
			out, err := r.run(ctx, ask[0], append(ask[1:len(ask):len(ask)], k)...)
			switch {
			case errors.Is(err, exec.ErrNotFound):
				continue
			case err != nil:
				return "", "", err
			case out != "" && out != "undefined" && out != "null":
				return out, "`" + strings.Join(ask, " ") + " " + k + "`", nil
			}
		}
	}
	return "", "", nil
}

// npmAuth returns the Authorization header value npm would send to reg:
// the credentials of the longest nerf-darted prefix of reg
// ("//host[:port]/path/") that has any, as npm-registry-fetch finds them.
func npmAuth(c npmConfig, reg *url.URL) string {
	key := "//" + reg.Host + reg.EscapedPath()
	if !strings.HasSuffix(key, "/") {
		key += "/"
	}
	for len(key) > len("//") {
		if tok, _, ok := c.get(key + ":_authToken"); ok && tok != "" {
			return "Bearer " + tok
		}
		if a, _, ok := c.get(key + ":_auth"); ok && a != "" {
			return "Basic " + a
		}
		user, _, uok := c.get(key + ":username")
		pass, _, pok := c.get(key + ":_password")
		if uok && pok {
			p, err := base64.StdEncoding.DecodeString(pass)
			if err == nil {
				return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+string(p)))
			}
		}
		// Drop the last path segment (or the trailing slash).
		if strings.HasSuffix(key, "/") {
			key = key[:len(key)-1]
		} else {
			key = key[:strings.LastIndex(key, "/")+1]
		}
	}
	return ""
}

// npmCacheDir is npm's cache directory: the cache setting, else npm's
// default (%LocalAppData%/npm-cache on Windows, ~/.npm elsewhere).
func (r *Resolver) npmCacheDir(c npmConfig) string {
	if v, _, ok := c.get("cache"); ok && v != "" {
		if strings.HasPrefix(v, "~/") {
			v = filepath.Join(r.home(), v[2:])
		}
		return v
	}
	if r.goos() == "windows" {
		if la := r.getenv("LOCALAPPDATA"); la != "" {
			return filepath.Join(la, "npm-cache")
		}
	}
	return filepath.Join(r.home(), ".npm")
}
