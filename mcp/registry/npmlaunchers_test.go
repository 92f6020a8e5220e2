package registry

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/mcp/launcher"
)

// TestNPMLauncherRegistries: each npm-ecosystem launcher's registry is
// read from that launcher's own configuration: bunx from BUN_CONFIG_REGISTRY
// and bunfig.toml before .npmrc; pnpm dlx from .npmrc and pnpm's global rc,
// then `pnpm config get`; yarn dlx from YARN_NPM_REGISTRY_SERVER and the
// .yarnrc.yml of the project (the directory with yarn.lock) and home, never
// from .npmrc or npm's variables.
func TestNPMLauncherRegistries(t *testing.T) {
	a, b := newFakeNPM(t), newFakeNPM(t)
	for _, f := range []*fakeNPM{a, b} {
		f.packs["/pkg"] = fakePackument(f.srv.URL, "pkg", map[string]string{"latest": "1.0.0"}, []string{"1.0.0"})
		f.packs["/@corp%2fpkg"] = fakePackument(f.srv.URL, "@corp/pkg", map[string]string{"latest": "1.0.0"}, []string{"1.0.0"})
	}
	b.token = "t0k"
	A, B := a.srv.URL, b.srv.URL
	for _, tc := range []struct {
		name     string
		launcher string // the command and args before the spec
		pkg      string
		env      map[string]string
		files    map[string]string // "~/" home, "./" the project, "../" its parent
		answers  map[string]string // launcher command line -> its answer
		want     string            // registry base URL
		source   string            // substring of the error when want is ""
	}{
		{name: "bunx: project bunfig.toml", launcher: "bunx", pkg: "pkg", files: map[string]string{"./bunfig.toml": "[install]\nregistry = \"" + A + "\"\n"}, want: A},
		{name: "bunx: scoped registry table with a token from the environment", launcher: "bunx", pkg: "@corp/pkg", env: map[string]string{"TOK": "t0k"}, files: map[string]string{"./bunfig.toml": "[install]\nregistry = \"" + A + "\"\n[install.scopes]\n\"@corp\" = { url = \"" + B + "\", token = \"$TOK\" }\n"}, want: B},
		{name: "bunx: user bunfig before the project .npmrc", launcher: "bunx", pkg: "pkg", files: map[string]string{"~/.bunfig.toml": "[install]\nregistry = \"" + A + "\"\n", "./.npmrc": "registry=" + B + "\n"}, want: A},
		{name: "bunx: project bunfig before user bunfig", launcher: "bunx", pkg: "pkg", files: map[string]string{"~/.bunfig.toml": "[install]\nregistry = \"http://127.0.0.1:1/\"\n", "./bunfig.toml": "[install]\nregistry = \"" + A + "\"\n"}, want: A},
		{name: "bunx: BUN_CONFIG_REGISTRY before bunfig", launcher: "bunx", pkg: "pkg", env: map[string]string{"BUN_CONFIG_REGISTRY": A}, files: map[string]string{"./bunfig.toml": "[install]\nregistry = \"http://127.0.0.1:1/\"\n"}, want: A},
		{name: "bunx: .npmrc when bunfig names none", launcher: "bunx", pkg: "pkg", files: map[string]string{"./bunfig.toml": "[install]\nfrozenLockfile = true\n", "./.npmrc": "registry=" + A + "\n"}, want: A},
		{name: "bunx: npm's default when nothing is set", launcher: "bunx", pkg: "pkg", answers: map[string]string{"npm config get registry": A}, want: A},
		{name: "bunx: a malformed bunfig.toml", launcher: "bunx", pkg: "pkg", files: map[string]string{"./bunfig.toml": "[install\n"}, source: "cannot read Bun's config"},
		{name: "pnpm dlx: pnpm's global rc", launcher: "pnpm dlx", pkg: "pkg", files: map[string]string{"~/.config/pnpm/rc": "registry=" + A + "\n"}, answers: map[string]string{"npm config get registry": B}, want: A},
		{name: "pnpm dlx: the project .npmrc before the global rc", launcher: "pnpm dlx", pkg: "pkg", files: map[string]string{"~/.config/pnpm/rc": "registry=http://127.0.0.1:1/\n", "./.npmrc": "registry=" + A + "\n"}, want: A},
		{name: "pnpm dlx: the workspace root's .npmrc", launcher: "pnpm dlx", pkg: "pkg", files: map[string]string{"../pnpm-workspace.yaml": "packages: [proj]\n", "../.npmrc": "registry=" + A + "\n", "~/.npmrc": "registry=http://127.0.0.1:1/\n"}, want: A},
		{name: "pnpm dlx: the project's .npmrc before the workspace's", launcher: "pnpm dlx", pkg: "pkg", files: map[string]string{"../pnpm-workspace.yaml": "packages: [proj]\n", "../.npmrc": "registry=http://127.0.0.1:1/\n", "./package.json": "{}", "./.npmrc": "registry=" + A + "\n"}, want: A},
		{name: "pnpm dlx: a token in pnpm's global rc", launcher: "pnpm dlx", pkg: "pkg", files: map[string]string{"~/.config/pnpm/rc": "registry=" + B + "/\n//" + strings.TrimPrefix(B, "http://") + "/:_authToken=t0k\n"}, want: B},
		{name: "npx does not read the pnpm workspace's .npmrc", launcher: "npx -y", pkg: "pkg", files: map[string]string{"../pnpm-workspace.yaml": "packages: [proj]\n", "../.npmrc": "registry=http://127.0.0.1:1/\n"}, answers: map[string]string{"npm config get registry": A}, want: A},
		{name: "pnpm dlx: pnpm is asked before npm", launcher: "pnpm dlx", pkg: "pkg", answers: map[string]string{"pnpm config get registry": A, "npm config get registry": B}, want: A},
		{name: "npx does not read pnpm's rc", launcher: "npx -y", pkg: "pkg", files: map[string]string{"~/.config/pnpm/rc": "registry=http://127.0.0.1:1/\n"}, answers: map[string]string{"npm config get registry": A}, want: A},
		{name: "yarn dlx: the project's .yarnrc.yml, not .npmrc", launcher: "yarn dlx", pkg: "pkg", files: map[string]string{"./yarn.lock": "", "./.yarnrc.yml": "npmRegistryServer: \"" + A + "\"\n", "./.npmrc": "registry=http://127.0.0.1:1/\n"}, want: A},
		{name: "yarn dlx: the project is the directory with yarn.lock", launcher: "yarn dlx", pkg: "pkg", files: map[string]string{"../yarn.lock": "", "../.yarnrc.yml": "npmRegistryServer: " + A + "\n", "./.yarnrc.yml": "npmRegistryServer: http://127.0.0.1:1/\n"}, want: A},
		{name: "yarn dlx: without yarn.lock only the home .yarnrc.yml", launcher: "yarn dlx", pkg: "pkg", files: map[string]string{"./.yarnrc.yml": "npmRegistryServer: http://127.0.0.1:1/\n", "~/.yarnrc.yml": "npmRegistryServer: " + A + "\n"}, want: A},
		{name: "yarn dlx: project before home", launcher: "yarn dlx", pkg: "pkg", files: map[string]string{"./yarn.lock": "", "./.yarnrc.yml": "npmRegistryServer: " + A + "\n", "~/.yarnrc.yml": "npmRegistryServer: http://127.0.0.1:1/\n"}, want: A},
		{name: "yarn dlx: npmScopes with a token from ${VAR}", launcher: "yarn dlx", pkg: "@corp/pkg", env: map[string]string{"YTOK": "t0k"}, files: map[string]string{"./yarn.lock": "", "./.yarnrc.yml": "npmRegistryServer: " + A + "\nnpmScopes:\n  corp:\n    npmRegistryServer: " + B + "\n    npmAuthToken: \"${YTOK}\"\n"}, want: B},
		{name: "yarn dlx: npmRegistries token", launcher: "yarn dlx", pkg: "pkg", env: map[string]string{}, files: map[string]string{"~/.yarnrc.yml": "npmRegistryServer: " + B + "\nnpmRegistries:\n  \"" + strings.Replace(B, "http:", "", 1) + "\":\n    npmAuthToken: t0k\n"}, want: B},
		{name: "yarn dlx: YARN_NPM_REGISTRY_SERVER first", launcher: "yarn dlx", pkg: "pkg", env: map[string]string{"YARN_NPM_REGISTRY_SERVER": A}, files: map[string]string{"./yarn.lock": "", "./.yarnrc.yml": "npmRegistryServer: http://127.0.0.1:1/\n"}, want: A},
		{name: "yarn dlx: npm's variable is not yarn's", launcher: "yarn dlx", pkg: "pkg", env: map[string]string{"NPM_CONFIG_REGISTRY": "http://127.0.0.1:1/"}, answers: map[string]string{"yarn config get npmRegistryServer": A, "npm config get registry": "http://127.0.0.1:1/"}, want: A},
		{name: "yarn dlx: nothing and no yarn to ask", launcher: "yarn dlx", pkg: "pkg", source: "no registry is configured for yarn dlx: none of YARN_NPM_REGISTRY_SERVER"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := npmResolver(t, tc.env)
			r.Dir = filepath.Join(r.Dir, "proj")
			r.Run = func(_ context.Context, name string, args ...string) (string, error) {
				if v, ok := tc.answers[name+" "+strings.Join(args, " ")]; ok {
					return v, nil
				}
				return "", exec.ErrNotFound
			}
			if err := os.MkdirAll(r.Dir, 0o755); err != nil {
				t.Fatal(err)
			}
			for name, data := range tc.files {
				var path string
				switch {
				case strings.HasPrefix(name, "~/"):
					path = filepath.Join(r.Home, name[2:])
				case strings.HasPrefix(name, "../"):
					path = filepath.Join(filepath.Dir(r.Dir), name[3:])
				default:
					path = filepath.Join(r.Dir, name[2:])
				}
				writeFile(t, path, data)
			}
			fields := strings.Fields(tc.launcher)
			args := append(fields[1:len(fields):len(fields)], tc.pkg)
			spec, err := launcher.RecognizePackage(fields[0], args)
			if err != nil {
				t.Fatal(err)
			}
			got, err := r.Resolve(context.Background(), spec, args)
			if tc.want == "" {
				if err == nil || !strings.Contains(err.Error(), tc.source) {
					t.Fatalf("got %+v, %v; want an error containing %q", got, err, tc.source)
				}
				return
			}
			if err != nil || got.Registry != tc.want+"/" || got.Version != "1.0.0" {
				t.Fatalf("got %+v, %v; want from %s", got, err, tc.want)
			}
		})
	}
}

// npm reads the .npmrc of the project the command runs in: the nearest
// directory up from the working directory that holds package.json or
// node_modules (its local prefix), else the working directory itself.
func TestNPMLocalPrefix(t *testing.T) {
	root := t.TempDir()
	sub := filepath.Join(root, "tools", "srv")
	writeFile(t, filepath.Join(sub, "x"), "")
	if got := npmLocalPrefix(sub); got != sub {
		t.Errorf("no package.json anywhere: %s, want %s", got, sub)
	}
	writeFile(t, filepath.Join(root, "package.json"), "{}")
	if got := npmLocalPrefix(sub); got != root {
		t.Errorf("package.json at the root: %s, want %s", got, root)
	}
	writeFile(t, filepath.Join(root, "tools", "node_modules", "x"), "")
	if got := npmLocalPrefix(sub); got != filepath.Join(root, "tools") {
		t.Errorf("node_modules in tools: %s", got)
	}
	// Resolve reads the prefix's .npmrc.
	f := newFakeNPM(t)
	f.packs["/pkg"] = fakePackument(f.srv.URL, "pkg", map[string]string{"latest": "1.0.0"}, []string{"1.0.0"})
	writeFile(t, filepath.Join(root, "tools", ".npmrc"), "registry="+f.srv.URL+"/\n")
	r := npmResolver(t, nil)
	r.Dir = sub
	args := []string{"-y", "pkg"}
	spec, err := launcher.RecognizePackage("npx", args)
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.Resolve(context.Background(), spec, args)
	if err != nil || got.Registry != f.srv.URL+"/" {
		t.Errorf("%+v %v", got, err)
	}
}
