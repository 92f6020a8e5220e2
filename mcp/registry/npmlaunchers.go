package registry

// npmlaunchers.go: the registry each npm-ecosystem launcher fetches from,
// read from that launcher's own configuration (docs/config.md, "Package
// registries", names the versions followed): npx and npm exec read npm's;
// pnpm dlx reads npm's files and variables plus pnpm's global rc; bunx
// reads bunfig.toml, then npm's files; yarn dlx (Yarn 2+) reads only
// .yarnrc.yml files and YARN_* variables, never .npmrc.

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentgate/agentgate/internal/lazyre"
	"github.com/agentgate/agentgate/mcp/launcher"

	"github.com/BurntSushi/toml"
	"go.yaml.in/yaml/v3"
)

// npmSource is where one npm package is fetched from.
type npmSource struct {
	reg, source string
	// auth is the Authorization header value the launcher's own config
	// gives for reg (bunfig.toml, .yarnrc.yml); "" means npm's rules
	// (npmAuth over the .npmrc layers) apply, except for yarn.
	auth    string
	ownAuth bool
	tried   string // what was read, for the error when reg is ""
}

// npmScopeOf is the scope of an npm name ("@scope"), or "".
func npmScopeOf(name string) string {
	if scope, _, ok := strings.Cut(name, "/"); ok && strings.HasPrefix(scope, "@") {
		return scope
	}
	return ""
}

// npmSourceFor returns the registry spec's launcher would fetch from.
// cfg is npm's configuration (loadNPMConfig); for pnpm dlx the layers
// pnpm adds are inserted into it, so that credentials are looked up in
// what the launcher reads.
func (r *Resolver) npmSourceFor(ctx context.Context, spec launcher.PackageSpec, args []string, cfg *npmConfig) (npmSource, error) {
	if spec.Launcher == "yarn dlx" {
		return r.yarnSource(ctx, spec)
	}
	scope := npmScopeOf(spec.Name)
	var names []string
	if scope != "" {
		names = append(names, "--"+scope+":registry")
	}
	if reg, src := launcherOption(spec, args, append(names, "--registry")...); reg != "" {
		return npmSource{reg: reg, source: src}, nil
	}
	asks := [][]string{{"npm", "config", "get"}}
	tried := "NPM_CONFIG_REGISTRY, the project's and the user's .npmrc, `npm config get registry`"
	switch spec.Launcher {
	case "bunx":
		if s, ok, err := r.bunSource(spec.Name); err != nil || ok {
			return s, err
		}
		tried = "BUN_CONFIG_REGISTRY, NPM_CONFIG_REGISTRY, bunfig.toml ([install] registry, [install.scopes]), the project's and the user's .npmrc, `npm config get registry` (bun's built-in default is npm's)"
	case "pnpm dlx":
		// pnpm also reads the .npmrc of the workspace root (the nearest
		// directory up with pnpm-workspace.yaml), after the project's.
		if ws := pnpmWorkspaceRoot(r.dirOrWD()); ws != "" && ws != npmLocalPrefix(r.dirOrWD()) {
			if l, ok := r.readNPMRC(filepath.Join(ws, ".npmrc")); ok {
				cfg.layers = slices.Insert(cfg.layers, r.projectLayer(*cfg), l)
			}
		}
		if rc := r.pnpmGlobalRC(); rc != "" {
			if l, ok := r.readNPMRC(rc); ok {
				cfg.layers = append(cfg.layers, l)
			}
		}
		asks = [][]string{{"pnpm", "config", "get"}, {"npm", "config", "get"}}
		tried = "NPM_CONFIG_REGISTRY, the project's and the user's .npmrc, pnpm's global rc, `pnpm config get registry`, `npm config get registry`"
	}
	reg, src, err := r.npmRegistry(ctx, *cfg, spec.Name, asks)
	if err != nil {
		return npmSource{}, fmt.Errorf("cannot read %s's registry setting: %v", spec.Launcher, err)
	}
	return npmSource{reg: reg, source: src, tried: tried}, nil
}

// bunSource reads Bun's registry settings (bun.sh docs, "bunfig.toml",
// "Scopes and registries", ".npmrc support"; Bun 1.2/1.3):
// BUN_CONFIG_REGISTRY, then NPM_CONFIG_REGISTRY / npm_config_registry,
// then [install.scopes] for a scoped name and [install] registry, in the
// project's bunfig.toml (the server's working directory) over the user's
// ($XDG_CONFIG_HOME/.bunfig.toml, else ~/.bunfig.toml). A registry is a
// URL string (credentials in its userinfo) or a table {url, token} /
// {url, username, password}; "$VAR" and "${VAR}" in its strings are
// expanded. ok is false when none of these names a registry (the .npmrc
// files come next, as npm reads them).
func (r *Resolver) bunSource(name string) (npmSource, bool, error) {
	for _, v := range []string{"BUN_CONFIG_REGISTRY", "NPM_CONFIG_REGISTRY", "npm_config_registry"} {
		if as, s := r.envAs(v); s != "" {
			return npmSource{reg: s, source: as}, true, nil
		}
	}
	dir := r.dirOrWD()
	user := filepath.Join(r.home(), ".bunfig.toml")
	if x := r.getenv("XDG_CONFIG_HOME"); filepath.IsAbs(x) {
		user = filepath.Join(x, ".bunfig.toml")
	}
	scope := npmScopeOf(name)
	for _, file := range []string{filepath.Join(dir, "bunfig.toml"), user} {
		var doc struct {
			Install struct {
				Registry any            `toml:"registry"`
				Scopes   map[string]any `toml:"scopes"`
			} `toml:"install"`
		}
		_, err := toml.DecodeFile(file, &doc)
		switch {
		case errors.Is(err, os.ErrNotExist):
			continue
		case err != nil:
			return npmSource{}, false, fmt.Errorf("cannot read Bun's config %s: %v", file, err)
		}
		if scope != "" {
			for _, k := range []string{scope, strings.TrimPrefix(scope, "@")} {
				if v, ok := doc.Install.Scopes[k]; ok {
					s, err := r.bunRegistry(v)
					if err != nil {
						return npmSource{}, false, fmt.Errorf("%s: [install.scopes] %q: %v", file, k, err)
					}
					s.source = fmt.Sprintf("%s ([install.scopes] %q)", file, k)
					return s, true, nil
				}
			}
		}
		if doc.Install.Registry != nil {
			s, err := r.bunRegistry(doc.Install.Registry)
			if err != nil {
				return npmSource{}, false, fmt.Errorf("%s: [install] registry: %v", file, err)
			}
			s.source = file + " ([install] registry)"
			return s, true, nil
		}
	}
	return npmSource{}, false, nil
}

// bunRegistry reads one bunfig registry value.
func (r *Resolver) bunRegistry(v any) (npmSource, error) {
	expand := func(s string) string { return os.Expand(s, r.getenv) }
	switch t := v.(type) {
	case string:
		return npmSource{reg: expand(t)}, nil
	case map[string]any:
		get := func(k string) string { s, _ := t[k].(string); return expand(s) }
		s := npmSource{reg: get("url"), ownAuth: true}
		if s.reg == "" {
			return npmSource{}, errors.New("a table without url")
		}
		switch {
		case get("token") != "":
			s.auth = "Bearer " + get("token")
		case get("username") != "" || get("password") != "":
			s.auth = "Basic " + base64.StdEncoding.EncodeToString([]byte(get("username")+":"+get("password")))
		default:
			s.ownAuth = false
		}
		return s, nil
	}
	return npmSource{}, fmt.Errorf("a %T, not a URL string or a table", v)
}

// projectLayer is the index in c.layers where a workspace .npmrc goes:
// after the environment and the project's .npmrc, before the user's.
func (r *Resolver) projectLayer(c npmConfig) int {
	i := 0
	for i < len(c.layers) && (strings.HasPrefix(strings.ToLower(c.layers[i].source), "npm_config_") || c.layers[i].source == filepath.Join(npmLocalPrefix(r.dirOrWD()), ".npmrc")) {
		i++
	}
	return i
}

// pnpmWorkspaceRoot is the nearest directory from dir up that holds
// pnpm-workspace.yaml, or "".
func pnpmWorkspaceRoot(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "pnpm-workspace.yaml")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// pnpmGlobalRC is pnpm's global config file (pnpm.io, "Settings (.npmrc)",
// pnpm 9/10): $XDG_CONFIG_HOME/pnpm/rc, else ~/.config/pnpm/rc on Linux,
// ~/Library/Preferences/pnpm/rc on macOS, %LOCALAPPDATA%\pnpm\config\rc
// on Windows.
func (r *Resolver) pnpmGlobalRC() string {
	if x := r.getenv("XDG_CONFIG_HOME"); filepath.IsAbs(x) {
		return filepath.Join(x, "pnpm", "rc")
	}
	switch r.goos() {
	case "darwin":
		return filepath.Join(r.home(), "Library", "Preferences", "pnpm", "rc")
	case "windows":
		if la := r.getenv("LOCALAPPDATA"); la != "" {
			return filepath.Join(la, "pnpm", "config", "rc")
		}
		return ""
	}
	return filepath.Join(r.home(), ".config", "pnpm", "rc")
}

// yarnrc is the part of a .yarnrc.yml agentgate reads (yarnpkg.com,
// "Settings (.yarnrc.yml)", Yarn 4).
type yarnrc struct {
	NPMRegistryServer string `yaml:"npmRegistryServer"`
	NPMAuthToken      string `yaml:"npmAuthToken"`
	NPMAuthIdent      string `yaml:"npmAuthIdent"`
	NPMScopes         map[string]struct {
		NPMRegistryServer string `yaml:"npmRegistryServer"`
		NPMAuthToken      string `yaml:"npmAuthToken"`
		NPMAuthIdent      string `yaml:"npmAuthIdent"`
	} `yaml:"npmScopes"`
	NPMRegistries map[string]struct {
		NPMAuthToken string `yaml:"npmAuthToken"`
		NPMAuthIdent string `yaml:"npmAuthIdent"`
	} `yaml:"npmRegistries"`
}

// yarnSource reads Yarn's settings as `yarn dlx` does (Yarn 2+; Yarn 1
// has no dlx): dlx runs in a temporary project holding a copy of the
// .yarnrc.yml of the project the command runs in (the nearest directory
// from the working directory up that holds a yarn.lock), and Yarn also
// reads the user's ~/.yarnrc.yml; the project's settings win.
// YARN_NPM_REGISTRY_SERVER wins over both. For a scoped name,
// npmScopes.<scope>.npmRegistryServer comes first. .npmrc and npm's
// variables are not read: Yarn 2+ ignores them. "${VAR}" and
// "${VAR:-default}" in values are expanded, as Yarn does. With nothing
// set, `yarn config get npmRegistryServer` gives Yarn's default.
// Credentials: npmScopes.<scope>.npmAuthToken / npmAuthIdent, then
// npmRegistries."//host/path" (or the full URL), then the top-level
// npmAuthToken / npmAuthIdent.
func (r *Resolver) yarnSource(ctx context.Context, spec launcher.PackageSpec) (npmSource, error) {
	files := append(r.projectYarnrc(), filepath.Join(r.home(), ".yarnrc.yml"))
	scope := strings.TrimPrefix(npmScopeOf(spec.Name), "@")
	rcs, names, err := r.readYarnrcs(files)
	if err != nil {
		return npmSource{}, err
	}
	s := npmSource{tried: "YARN_NPM_REGISTRY_SERVER, " + strings.Join(files, ", ") + " (npmScopes, npmRegistryServer), `yarn config get npmRegistryServer`", ownAuth: true}
	if v := r.getenv("YARN_NPM_REGISTRY_SERVER"); v != "" {
		s.reg, s.source = v, "YARN_NPM_REGISTRY_SERVER"
	} else {
		s.reg, s.source = yarnRegistry(rcs, names, scope)
	}
	if s.reg == "" {
		out, err := r.run(ctx, "yarn", "config", "get", "npmRegistryServer")
		switch {
		case errors.Is(err, exec.ErrNotFound):
		case err != nil:
			return npmSource{}, fmt.Errorf("cannot read yarn's registry setting: %v", err)
		case out != "" && out != "undefined":
			s.reg, s.source = strings.Trim(out, `"`), "`yarn config get npmRegistryServer`"
		}
	}
	if s.reg != "" {
		s.auth = yarnAuth(rcs, scope, s.reg)
	}
	return s, nil
}

// projectYarnrc is the project's .yarnrc.yml (none, or one): beside the
// first yarn.lock from the working directory up.
func (r *Resolver) projectYarnrc() []string {
	for d := r.dirOrWD(); ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "yarn.lock")); err == nil {
			return []string{filepath.Join(d, ".yarnrc.yml")}
		}
		if filepath.Dir(d) == d {
			return nil
		}
	}
}

// readYarnrcs reads the files that exist of files, with their variables
// expanded; names are their paths.
func (r *Resolver) readYarnrcs(files []string) (rcs []yarnrc, names []string, err error) {
	for _, file := range files {
		data, err := os.ReadFile(file)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		var rc yarnrc
		if err == nil {
			err = yaml.Unmarshal([]byte(r.expandYarn(string(data))), &rc)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("cannot read Yarn's config %s: %v", file, err)
		}
		rcs, names = append(rcs, rc), append(names, file)
	}
	return rcs, names, nil
}

// yarnRegistry is the registry the first of rcs that names one gives
// (npmScopes.<scope>.npmRegistryServer, else npmRegistryServer), and
// where it was found; "" when none does.
func yarnRegistry(rcs []yarnrc, names []string, scope string) (reg, source string) {
	for i, rc := range rcs {
		if sc, ok := rc.NPMScopes[scope]; scope != "" && ok && sc.NPMRegistryServer != "" {
			return sc.NPMRegistryServer, fmt.Sprintf("%s (npmScopes.%s.npmRegistryServer)", names[i], scope)
		} else if rc.NPMRegistryServer != "" {
			return rc.NPMRegistryServer, names[i] + " (npmRegistryServer)"
		}
	}
	return "", ""
}

// yarnAuth is the Authorization header for reg, the first that applies
// over rcs (the project's file first): npmScopes.<scope>, then
// npmRegistries."//host/path" (or the full URL), then the top level; ""
// when none does.
func yarnAuth(rcs []yarnrc, scope, reg string) string {
	host := strings.TrimSuffix(reg, "/")
	noScheme := host
	if i := strings.Index(host, "://"); i >= 0 {
		noScheme = "//" + host[i+3:]
	}
	for _, rc := range rcs {
		if sc, ok := rc.NPMScopes[scope]; scope != "" && ok {
			if a := yarnToken(sc.NPMAuthToken, sc.NPMAuthIdent); a != "" {
				return a
			}
		}
	}
	for _, rc := range rcs {
		for k, e := range rc.NPMRegistries {
			if k = strings.TrimSuffix(k, "/"); k == host || k == noScheme {
				if a := yarnToken(e.NPMAuthToken, e.NPMAuthIdent); a != "" {
					return a
				}
			}
		}
	}
	for _, rc := range rcs {
		if a := yarnToken(rc.NPMAuthToken, rc.NPMAuthIdent); a != "" {
			return a
		}
	}
	return ""
}

// yarnToken is the Authorization header of an npmAuthToken (Bearer) or
// an npmAuthIdent ("user:password", or already base64: Basic); "" for
// neither.
func yarnToken(tok, ident string) string {
	switch {
	case tok != "":
		return "Bearer " + tok
	case ident != "" && strings.Contains(ident, ":"):
		return "Basic " + base64.StdEncoding.EncodeToString([]byte(ident))
	case ident != "":
		return "Basic " + ident
	}
	return ""
}

var yarnEnvRE = lazyre.New(`\$\{([A-Za-z0-9_]+)(:?-([^}]*))?\}`)

// expandYarn replaces ${NAME}, ${NAME-default} and ${NAME:-default} as
// Yarn's configuration reader does (":-" also replaces an empty value).
func (r *Resolver) expandYarn(s string) string {
	return yarnEnvRE().ReplaceAllStringFunc(s, func(m string) string {
		sub := yarnEnvRE().FindStringSubmatch(m)
		v, set := r.lookupEnv(sub[1])
		switch {
		case sub[2] == "":
			return v
		case strings.HasPrefix(sub[2], ":-") && v == "", !set:
			return sub[3]
		}
		return v
	})
}
