package registry

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/mcp/launcher"
)

// TestConfigFilesPerOS states, for each launcher, where its user and
// system config files are on Linux, macOS and Windows, and proves that
// agentgate reads each file where that OS's launcher does and nowhere
// else: every file is placed at one OS's path in a fresh home and
// system root, and read under each OS's rules (Resolver.GOOS); it is
// found exactly by the OSes whose path it is. It runs on every OS (the
// rules are an input, not the host's). Paths: "~/" is the user's home
// (%USERPROFILE% on Windows), "%APPDATA%/" and "%LOCALAPPDATA%/" the
// Windows folders (set in the environment), "/" the system root
// (Resolver.SystemDir; C:\ProgramData is "/ProgramData"). The sources are
// cited in the lookups' doc comments and in docs/config.md.
func TestConfigFilesPerOS(t *testing.T) {
	oses := []string{"linux", "darwin", "windows"}
	type tool struct {
		name  string
		paths map[string]string // OS -> where the file is
		data  string            // the file's content
		// also is a second path an OS reads, when the first one's
		// directory does not exist (pip on macOS).
		also map[string]string
		// found reads the file under r's rules: whether it was read from
		// path.
		found func(r *Resolver, path string) bool
	}
	npmrc := func(r *Resolver, path string) bool {
		v, src, ok := r.loadNPMConfig().get("registry")
		return ok && v == "http://127.0.0.1:9/" && src == path
	}
	uv := func(r *Resolver, path string) bool {
		for _, f := range r.uvConfigFiles() {
			if f == path {
				return true
			}
		}
		return false
	}
	pip := func(r *Resolver, path string) bool {
		m, _ := r.pipConfig()
		e, ok := m["global.index-url"]
		return ok && e.file == path && e.val == "http://127.0.0.1:9/simple"
	}
	tools := []tool{
		{"npm user .npmrc", map[string]string{"linux": "~/.npmrc", "darwin": "~/.npmrc", "windows": "~/.npmrc"}, "registry=http://127.0.0.1:9/\n", nil, npmrc},
		{"uv user uv.toml", map[string]string{"linux": "~/.config/uv/uv.toml", "darwin": "~/.config/uv/uv.toml", "windows": "%APPDATA%/uv/uv.toml"}, "", nil, uv},
		{"uv system uv.toml", map[string]string{"linux": "/etc/uv/uv.toml", "darwin": "/etc/uv/uv.toml", "windows": "/ProgramData/uv/uv.toml"}, "", nil, uv},
		{"uv XDG system uv.toml", map[string]string{"linux": "/etc/xdg/uv/uv.toml", "darwin": "/etc/xdg/uv/uv.toml", "windows": "/ProgramData/uv/uv.toml"}, "", nil, uv},
		{"pip user config", map[string]string{"linux": "~/.config/pip/pip.conf", "darwin": "~/Library/Application Support/pip/pip.conf", "windows": "%APPDATA%/pip/pip.ini"}, "[global]\nindex-url = http://127.0.0.1:9/simple\n", map[string]string{"darwin": "~/.config/pip/pip.conf"}, pip},
		{"pip legacy user config", map[string]string{"linux": "~/.pip/pip.conf", "darwin": "~/.pip/pip.conf", "windows": "~/pip/pip.ini"}, "[global]\nindex-url = http://127.0.0.1:9/simple\n", nil, pip},
		{"pip global config", map[string]string{"linux": "/etc/pip.conf", "darwin": "/Library/Application Support/pip/pip.conf", "windows": "/ProgramData/pip/pip.ini"}, "[global]\nindex-url = http://127.0.0.1:9/simple\n", nil, pip},
		{"pip XDG global config", map[string]string{"linux": "/etc/xdg/pip/pip.conf", "darwin": "/Library/Application Support/pip/pip.conf", "windows": "/ProgramData/pip/pip.ini"}, "[global]\nindex-url = http://127.0.0.1:9/simple\n", nil, pip},
		{"pnpm global rc", map[string]string{"linux": "~/.config/pnpm/rc", "darwin": "~/Library/Preferences/pnpm/rc", "windows": "%LOCALAPPDATA%/pnpm/config/rc"}, "", nil, func(r *Resolver, path string) bool {
			return r.pnpmGlobalRC() == path
		}},
		{"netrc", map[string]string{"linux": "~/.netrc", "darwin": "~/.netrc", "windows": "~/_netrc"}, "machine h login u password p\n", nil, func(r *Resolver, _ string) bool {
			l, p, ok := r.netrcAuth("h")
			return ok && l == "u" && p == "p"
		}},
		{"bun user bunfig", map[string]string{"linux": "~/.bunfig.toml", "darwin": "~/.bunfig.toml", "windows": "~/.bunfig.toml"}, "[install]\nregistry = \"http://127.0.0.1:9/\"\n", nil, func(r *Resolver, path string) bool {
			s, ok, err := r.bunSource("pkg")
			return err == nil && ok && s.reg == "http://127.0.0.1:9/" && strings.HasPrefix(s.source, path+" ")
		}},
	}
	for _, tl := range tools {
		for _, placed := range oses {
			t.Run(tl.name+"/at "+placed+"'s path", func(t *testing.T) {
				for _, reader := range oses {
					r := npmResolver(t, nil)
					r.GOOS = reader
					r.Env = envList(map[string]string{
						"APPDATA":      filepath.Join(r.Home, "AppData", "Roaming"),
						"LOCALAPPDATA": filepath.Join(r.Home, "AppData", "Local"),
					})
					where := tl.paths[placed]
					var path string
					switch {
					case strings.HasPrefix(where, "%APPDATA%/"):
						path = filepath.Join(r.Home, "AppData", "Roaming", filepath.FromSlash(where[len("%APPDATA%/"):]))
					case strings.HasPrefix(where, "%LOCALAPPDATA%/"):
						path = filepath.Join(r.Home, "AppData", "Local", filepath.FromSlash(where[len("%LOCALAPPDATA%/"):]))
					default:
						path = configPath(r, where)
					}
					data := tl.data
					if data == "" {
						data = "index-url = \"http://127.0.0.1:9/simple\"\n"
					}
					writeFile(t, path, data)
					want := tl.paths[reader] == where || tl.also[reader] == where
					if got := tl.found(r, path); got != want {
						t.Errorf("%s placed at %s (%s): read under %s's rules = %v, want %v", tl.name, where, path, reader, got, want)
					}
				}
			})
		}
	}
}

// On Windows a variable has one value whatever its spelling; the error
// names it as the environment spells it (NPM_CONFIG_REGISTRY), not as
// agentgate looked it up first (npm_config_registry). Under Linux's rules
// the lower-case spelling is another variable and the upper-case one is
// named as it is.
func TestRegistryVariableNamedAsWritten(t *testing.T) {
	for _, goos := range []string{"windows", "linux"} {
		for _, name := range []string{"npx", "bunx"} {
			r := npmResolver(t, map[string]string{"NPM_CONFIG_REGISTRY": "http://127.0.0.1:1/"})
			r.GOOS = goos
			args := []string{"-y", "pkg@1.0.0"}
			if name == "bunx" {
				args = []string{"pkg@1.0.0"}
			}
			spec, err := launcher.RecognizePackage(name, args)
			if err != nil {
				t.Fatal(err)
			}
			_, err = r.Resolve(context.Background(), spec, args)
			if err == nil || !strings.Contains(err.Error(), "(configured by NPM_CONFIG_REGISTRY)") {
				t.Errorf("%s, %s: %v; want the registry configured by NPM_CONFIG_REGISTRY", goos, name, err)
			}
		}
	}
}
