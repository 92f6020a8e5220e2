package registry

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const pep691Type = "application/vnd.pypi.simple.v1+json"

// writeFile writes data to path, making its directories.
func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// configPath is where a test writes the file name: "~/" under r.Home,
// "./" under r.Dir, "/" under r.SystemDir.
func configPath(r *Resolver, name string) string {
	switch {
	case strings.HasPrefix(name, "~/"):
		return filepath.Join(r.Home, name[2:])
	case strings.HasPrefix(name, "./"):
		return filepath.Join(r.Dir, name[2:])
	}
	return filepath.Join(r.SystemDir, name[1:])
}

// checkResolved wants version want from registry from, or, when want is
// "", an error that contains source.
func checkResolved(t *testing.T, got Package, err error, want, from, source string) {
	t.Helper()
	if want == "" {
		if err == nil || !strings.Contains(err.Error(), source) {
			t.Fatalf("got %+v, %v; want an error containing %q", got, err, source)
		}
		return
	}
	if err != nil || got.Version != want || got.Registry != from {
		t.Fatalf("got %+v, %v; want %s from %s", got, err, want, from)
	}
}

// Three loopback indexes: "one" has tool 1.0, "two" has tool 2.0, "none"
// has no project at all (404 for every page).
func threeIndexes(t *testing.T) (one, two, none string) {
	a := newFakePyPI(t, map[string][]pyFile{"tool": {{name: "tool-1.0.tar.gz", body: "one"}}}, pep691Type)
	b := newFakePyPI(t, map[string][]pyFile{"tool": {{name: "tool-2.0.tar.gz", body: "two"}}}, pep691Type)
	c := newFakePyPI(t, map[string][]pyFile{}, pep691Type)
	return a.URL + "/simple", b.URL + "/simple", c.URL + "/simple"
}

// TestUVIndexes: uvx reads its indexes as uv does (docs.astral.sh/uv,
// "Configuration files", "Package indexes"): user- and system-level
// uv.toml only (a project's uv.toml and pyproject.toml are ignored by
// tool commands), the environment over the files, the command line over
// both; extra indexes before the default one; first-index by default
// (the first index that has the project decides), unsafe-first-match
// and unsafe-best-match on request.
func TestUVIndexes(t *testing.T) {
	one, two, none := threeIndexes(t)
	dead := "http://127.0.0.1:1/simple"
	forbid := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusUnauthorized) }))
	t.Cleanup(forbid.Close)
	type c struct {
		name   string
		env    map[string]string
		files  map[string]string // relative to home ("~/"), the project ("./") or the system root ("/")
		args   []string          // uvx args; the last is the spec
		want   string            // version
		from   string            // registry
		source string            // part of the error, when want is ""
	}
	for _, tc := range []c{
		{name: "user uv.toml default index", files: map[string]string{"~/.config/uv/uv.toml": "[[index]]\nurl = \"" + one + "\"\ndefault = true\n"}, args: []string{"tool"}, want: "1.0", from: one},
		{name: "user uv.toml index-url", files: map[string]string{"~/.config/uv/uv.toml": "index-url = \"" + two + "\"\n"}, args: []string{"tool"}, want: "2.0", from: two},
		{name: "XDG_CONFIG_HOME moves the user file", env: map[string]string{"XDG_CONFIG_HOME": "XDG"}, files: map[string]string{"~/XDG/uv/uv.toml": "index-url = \"" + two + "\"\n", "~/.config/uv/uv.toml": "index-url = \"" + dead + "\"\n"}, args: []string{"tool"}, want: "2.0", from: two},
		{name: "project uv.toml and pyproject.toml are not read by uvx", files: map[string]string{"./uv.toml": "index-url = \"" + dead + "\"\n", "./pyproject.toml": "[tool.uv]\nindex-url = \"" + dead + "\"\n", "~/.config/uv/uv.toml": "index-url = \"" + one + "\"\n"}, args: []string{"tool"}, want: "1.0", from: one},
		{name: "only a project uv.toml: no index", files: map[string]string{"./uv.toml": "index-url = \"" + one + "\"\n"}, args: []string{"tool"}, source: "no package index is configured for uvx"},
		{name: "system uv.toml", files: map[string]string{"/etc/uv/uv.toml": "index-url = \"" + one + "\"\n"}, args: []string{"tool"}, want: "1.0", from: one},
		{name: "XDG_CONFIG_DIRS system file first", env: map[string]string{"XDG_CONFIG_DIRS": "SYS/xdg"}, files: map[string]string{"/xdg/uv/uv.toml": "index-url = \"" + two + "\"\n", "/etc/uv/uv.toml": "index-url = \"" + one + "\"\n"}, args: []string{"tool"}, want: "2.0", from: two},
		{name: "user wins over system", files: map[string]string{"/etc/uv/uv.toml": "index-url = \"" + dead + "\"\n", "~/.config/uv/uv.toml": "index-url = \"" + two + "\"\n"}, args: []string{"tool"}, want: "2.0", from: two},
		{name: "environment wins over files", env: map[string]string{"UV_DEFAULT_INDEX": one}, files: map[string]string{"~/.config/uv/uv.toml": "index-url = \"" + dead + "\"\n"}, args: []string{"tool"}, want: "1.0", from: one},
		{name: "explicit and flat indexes are not searched", files: map[string]string{"~/.config/uv/uv.toml": "[[index]]\nurl = \"" + dead + "\"\nexplicit = true\n[[index]]\nurl = \"" + dead + "\"\nformat = \"flat\"\n[[index]]\nurl = \"" + two + "\"\ndefault = true\n"}, args: []string{"tool"}, want: "2.0", from: two},
		// Several indexes.
		{name: "UV_INDEX before the default: first-index takes the first that has the project", env: map[string]string{"UV_INDEX": one, "UV_DEFAULT_INDEX": two}, args: []string{"tool"}, want: "1.0", from: one},
		{name: "an index without the project (404) passes to the next", env: map[string]string{"UV_INDEX": "internal=" + none + " " + one, "UV_DEFAULT_INDEX": two}, args: []string{"tool"}, want: "1.0", from: one},
		{name: "first-index does not look further for a version", env: map[string]string{"UV_INDEX": one, "UV_DEFAULT_INDEX": two}, args: []string{"tool>=2"}, source: `no release that is not yanked satisfies ">=2"`},
		{name: "unsafe-first-match: the first index with a matching version", env: map[string]string{"UV_INDEX": one, "UV_DEFAULT_INDEX": two, "UV_INDEX_STRATEGY": "unsafe-first-match"}, args: []string{"tool>=2"}, want: "2.0", from: two},
		{name: "unsafe-best-match: the best version of all", files: map[string]string{"~/.config/uv/uv.toml": "index-strategy = \"unsafe-best-match\"\nextra-index-url = [\"" + one + "\"]\nindex-url = \"" + two + "\"\n"}, args: []string{"tool"}, want: "2.0", from: two},
		{name: "config [[index]] entries before the default", files: map[string]string{"~/.config/uv/uv.toml": "[[index]]\nname = \"a\"\nurl = \"" + one + "\"\n[[index]]\nname = \"b\"\nurl = \"" + two + "\"\ndefault = true\n"}, args: []string{"tool"}, want: "1.0", from: one},
		{name: "no index has the project", env: map[string]string{"UV_INDEX": none, "UV_DEFAULT_INDEX": none + "/"}, args: []string{"tool"}, source: `no project "tool" on any of the 2 configured indexes: ` + none + " (configured by UV_INDEX), " + none + "/ (configured by UV_DEFAULT_INDEX)"},
		// 401/403 end the search (uv since astral-sh/uv#12805), unless the
		// index lists the status in ignore-error-codes.
		{name: "a 401 stops first-index", env: map[string]string{"UV_INDEX": "FORBID", "UV_DEFAULT_INDEX": one}, args: []string{"tool"}, source: "HTTP 401"},
		{name: "ignore-error-codes passes a 401 on", files: map[string]string{"~/.config/uv/uv.toml": "[[index]]\nurl = \"FORBID\"\nignore-error-codes = [401]\n[[index]]\nurl = \"" + one + "\"\ndefault = true\n"}, args: []string{"tool"}, want: "1.0", from: one},
		// The command line.
		{name: "--index in args before UV_INDEX", env: map[string]string{"UV_INDEX": two, "UV_DEFAULT_INDEX": dead}, args: []string{"--index", one, "tool"}, want: "1.0", from: one},
		{name: "--index-strategy in args", env: map[string]string{"UV_INDEX": one, "UV_DEFAULT_INDEX": two}, args: []string{"--index-strategy=unsafe-best-match", "tool"}, want: "2.0", from: two},
		{name: "--config-file replaces the user file", files: map[string]string{"./ci-uv.toml": "index-url = \"" + two + "\"\n", "~/.config/uv/uv.toml": "index-url = \"" + dead + "\"\n"}, args: []string{"--config-file", "CI", "tool"}, want: "2.0", from: two},
		{name: "--no-config reads no file", files: map[string]string{"~/.config/uv/uv.toml": "index-url = \"" + one + "\"\n"}, args: []string{"--no-config", "tool"}, source: "no uv.toml (--no-config / UV_NO_CONFIG)"},
		{name: "UV_NO_CONFIG", env: map[string]string{"UV_NO_CONFIG": "1"}, files: map[string]string{"~/.config/uv/uv.toml": "index-url = \"" + one + "\"\n"}, args: []string{"tool"}, source: "no uv.toml (--no-config / UV_NO_CONFIG)"},
		{name: "a malformed user uv.toml", files: map[string]string{"~/.config/uv/uv.toml": "index-url = [\n"}, args: []string{"tool"}, source: "cannot read uv's config file"},
		{name: "an unknown strategy", env: map[string]string{"UV_INDEX_STRATEGY": "fastest", "UV_DEFAULT_INDEX": one}, args: []string{"tool"}, source: `unknown uv index strategy "fastest"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := npmResolver(t, nil)
			env := map[string]string{}
			for k, v := range tc.env {
				switch v {
				case "XDG":
					v = filepath.Join(r.Home, "XDG")
				case "SYS/xdg":
					v = filepath.Join(r.SystemDir, "xdg")
				}
				env[k] = v
			}
			for k, v := range env {
				env[k] = strings.ReplaceAll(v, "FORBID", forbid.URL+"/simple")
			}
			r.Env = envList(env)
			for name, data := range tc.files {
				writeFile(t, configPath(r, name), strings.ReplaceAll(data, "FORBID", forbid.URL+"/simple"))
			}
			args := append([]string(nil), tc.args...)
			for i, a := range args {
				if a == "CI" {
					args[i] = filepath.Join(r.Dir, "ci-uv.toml")
				}
			}
			spec := pySpec(t, "uvx", args...)
			got, err := r.Resolve(context.Background(), spec, args)
			checkResolved(t, got, err, tc.want, tc.from, tc.source)
		})
	}
}

// The error names the file and the [[index]] entry the index came from.
func TestUVIndexSource(t *testing.T) {
	r := npmResolver(t, nil)
	file := filepath.Join(r.Home, ".config", "uv", "uv.toml")
	writeFile(t, file, "[[index]]\nname = \"corp\"\nurl = \"http://127.0.0.1:1/simple\"\ndefault = true\n")
	_, err := r.Resolve(context.Background(), pySpec(t, "uvx", "tool"), []string{"tool"})
	if !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), "from http://127.0.0.1:1/simple (configured by "+file+" ([[index]] #1))") {
		t.Errorf("%v", err)
	}
}

// A named uv index takes its credentials from UV_INDEX_<NAME>_USERNAME
// and _PASSWORD (name upper-cased, other characters as "_"), as uv does;
// they are sent as HTTP Basic and never printed.
func TestUVIndexCredentials(t *testing.T) {
	inner := newFakePyPI(t, map[string][]pyFile{"tool": {{name: "tool-1.0.tar.gz", body: "x"}}}, pep691Type)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if u, p, ok := req.BasicAuth(); !ok || u != "bot" || p != "s3cret" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		resp, err := http.DefaultClient.Do(mustReq(t, req, inner.URL))
		if err != nil {
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
		w.WriteHeader(resp.StatusCode)
		buf := make([]byte, 1<<16)
		n, _ := resp.Body.Read(buf)
		w.Write(buf[:n])
	}))
	t.Cleanup(srv.Close)
	for _, env := range []map[string]string{
		{"UV_INDEX": "corp-idx=" + srv.URL + "/simple", "UV_INDEX_CORP_IDX_USERNAME": "bot", "UV_INDEX_CORP_IDX_PASSWORD": "s3cret"},
		{"UV_DEFAULT_INDEX": strings.Replace(srv.URL, "http://", "http://bot:s3cret@", 1) + "/simple"},
	} {
		r := npmResolver(t, env)
		got, err := r.Resolve(context.Background(), pySpec(t, "uvx", "tool"), []string{"tool"})
		if err != nil || got.Version != "1.0" || strings.Contains(got.Registry, "s3cret") {
			t.Errorf("%v: %+v %v", env, got, err)
		}
	}
	r := npmResolver(t, map[string]string{"UV_INDEX": "corp-idx=" + srv.URL + "/simple", "UV_INDEX_CORP_IDX_USERNAME": "bot", "UV_INDEX_CORP_IDX_PASSWORD": "wrong"})
	_, err := r.Resolve(context.Background(), pySpec(t, "uvx", "tool"), []string{"tool"})
	if !errors.Is(err, ErrAuth) || strings.Contains(err.Error(), "wrong") {
		t.Errorf("wrong password: %v", err)
	}
}

func mustReq(t *testing.T, in *http.Request, base string) *http.Request {
	req, err := http.NewRequest(in.Method, base+in.URL.Path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header = in.Header.Clone()
	return req
}

// TestPipIndexes: pipx run reads pip's configuration as pip does
// (pip.pypa.io, "Configuration"): PIP_INDEX_URL over every file; in the
// files, an [install] key over a [global] one, whatever file holds it,
// and the later file in pip's order over the earlier (global files, the
// user's legacy ~/.pip/pip.conf, the user's $XDG_CONFIG_HOME/pip/pip.conf,
// PIP_CONFIG_FILE); PIP_CONFIG_FILE=/dev/null reads none; extra indexes
// are all considered and the best version wins.
func TestPipIndexes(t *testing.T) {
	one, two, _ := threeIndexes(t)
	dead := "http://127.0.0.1:1/simple"
	for _, tc := range []struct {
		name   string
		env    map[string]string
		files  map[string]string
		args   []string
		want   string
		from   string
		source string
	}{
		{name: "user pip.conf [global]", files: map[string]string{"~/.config/pip/pip.conf": "[global]\nindex-url = " + one + "\n"}, want: "1.0", from: one},
		{name: "legacy user file", files: map[string]string{"~/.pip/pip.conf": "[global]\nindex_url: " + two + "\n"}, want: "2.0", from: two},
		{name: "new user file over legacy", files: map[string]string{"~/.pip/pip.conf": "[global]\nindex-url = " + dead + "\n", "~/.config/pip/pip.conf": "[global]\nindex-url = " + one + "\n"}, want: "1.0", from: one},
		{name: "[install] over [global] of a later file", files: map[string]string{"/etc/pip.conf": "[install]\nindex-url = " + two + "\n", "~/.config/pip/pip.conf": "[global]\nindex-url = " + dead + "\n"}, want: "2.0", from: two},
		{name: "user over global", files: map[string]string{"/etc/pip.conf": "[global]\nindex-url = " + dead + "\n", "~/.config/pip/pip.conf": "[global]\nindex-url = " + one + "\n"}, want: "1.0", from: one},
		{name: "PIP_CONFIG_FILE over the others, and the user's skipped", env: map[string]string{"PIP_CONFIG_FILE": "FILE"}, files: map[string]string{"./pip.conf": "[global]\nindex-url = " + two + "\n", "~/.config/pip/pip.conf": "[install]\nindex-url = " + dead + "\n"}, want: "2.0", from: two},
		{name: "PIP_CONFIG_FILE=/dev/null reads none", env: map[string]string{"PIP_CONFIG_FILE": os.DevNull}, files: map[string]string{"~/.config/pip/pip.conf": "[global]\nindex-url = " + one + "\n"}, source: "no pip.conf (PIP_CONFIG_FILE=" + os.DevNull + ")"},
		{name: "PIP_INDEX_URL over files", env: map[string]string{"PIP_INDEX_URL": two}, files: map[string]string{"~/.config/pip/pip.conf": "[install]\nindex-url = " + dead + "\n"}, want: "2.0", from: two},
		{name: "multi-line extra-index-url: the best version of all", files: map[string]string{"~/.config/pip/pip.conf": "# corp\n[global]\nindex-url = " + one + "\nextra-index-url =\n    " + two + "\n    " + one + "\n"}, want: "2.0", from: two},
		{name: "--pip-args index", args: []string{"--pip-args", "--no-cache-dir --index-url " + one}, files: map[string]string{"~/.config/pip/pip.conf": "[global]\nindex-url = " + dead + "\n"}, want: "1.0", from: one},
		{name: "uv's variables are not pip's", env: map[string]string{"UV_INDEX_URL": one}, source: "no package index is configured for pipx run"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := npmResolver(t, nil)
			env := map[string]string{}
			for k, v := range tc.env {
				if v == "FILE" {
					v = filepath.Join(r.Dir, "pip.conf")
				}
				env[k] = v
			}
			r.Env = envList(env)
			for name, data := range tc.files {
				writeFile(t, configPath(r, name), data)
			}
			args := append(append([]string{"run"}, tc.args...), "tool")
			spec := pySpec(t, "pipx", append(append([]string(nil), tc.args...), "tool")...)
			got, err := r.Resolve(context.Background(), spec, args)
			checkResolved(t, got, err, tc.want, tc.from, tc.source)
		})
	}
}

// readINI against configparser's rules as pip uses them.
func TestReadINI(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pip.conf")
	writeFile(t, path, "; comment\n# comment\nstray = 1\n[global]\nIndex_URL = https://a/simple ; not a comment\ntimeout: 60\nextra-index-url =\n  https://b/simple\n\thttps://c/simple\n[INSTALL]\n--no-cache-dir = true\n")
	kv, ok := readINI(path)
	want := map[string]string{
		"global.index-url":       "https://a/simple ; not a comment",
		"global.timeout":         "60",
		"global.extra-index-url": "https://b/simple\nhttps://c/simple",
		"INSTALL.no-cache-dir":   "true",
	}
	if !ok || len(kv) != len(want) {
		t.Fatalf("%v %q", ok, kv)
	}
	for k, v := range want {
		if kv[k] != v {
			t.Errorf("%s = %q, want %q", k, kv[k], v)
		}
	}
}
