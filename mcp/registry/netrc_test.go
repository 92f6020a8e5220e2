package registry

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
)

// .netrc credentials reach an index or proxy whose URL carries none, as
// uv, pip and the go command send them; the password is never printed.
func TestNetrc(t *testing.T) {
	const user, pass = "ci-bot", "n3trc-secret"
	mods := map[string]goModFiles{"example.com/m@v1.0.0": {"go.mod": "module example.com/m\n", "m.go": "package main\n"}}
	gp := newGoProxy(t, mods, nil)
	py := newFakePyPI(t, map[string][]pyFile{"tool": {{name: "tool-1.0.tar.gz", body: "t"}}}, "application/vnd.pypi.simple.v1+json")
	guard := func(h http.Handler) *httptest.Server {
		s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if u, p, ok := r.BasicAuth(); !ok || u != user || p != pass {
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
			h.ServeHTTP(w, r)
		}))
		t.Cleanup(s.Close)
		return s
	}
	gpAuth, pyAuth := guard(gp.Config.Handler), guard(py.Config.Handler)
	netrc := "macdef init\n  machine 127.0.0.1 login wrong password wrong\n\nmachine other.example login x password y\n" +
		"machine 127.0.0.1\n  login " + user + "\n  password " + pass + "\n"
	for _, viaEnv := range []bool{false, true} {
		env := map[string]string{"GOPROXY": gpAuth.URL, "UV_INDEX_URL": pyAuth.URL + "/simple"}
		r := npmResolver(t, env)
		path := filepath.Join(r.Home, ".netrc")
		if viaEnv {
			path = filepath.Join(t.TempDir(), "creds")
			env["NETRC"] = path
			r.Env = envList(env)
		}
		// Without the file: refused, and said so.
		if _, err := r.Resolve(context.Background(), goSpec(t, "example.com/m@v1.0.0"), nil); !strings.Contains(err.Error(), "HTTP 401") {
			t.Errorf("no netrc: %v", err)
		}
		write(t, path, netrc)
		if got, err := r.Resolve(context.Background(), goSpec(t, "example.com/m@v1.0.0"), nil); err != nil || got.Version != "v1.0.0" {
			t.Errorf("go via netrc (env %v): %+v %v", viaEnv, got, err)
		}
		if got, err := r.Resolve(context.Background(), pySpec(t, "uvx", "tool"), nil); err != nil || got.Version != "1.0" {
			t.Errorf("pypi via netrc (env %v): %+v %v", viaEnv, got, err)
		}
	}
	// A default entry applies to any host; a wrong password is refused
	// without being printed.
	r := npmResolver(t, map[string]string{"UV_INDEX_URL": pyAuth.URL + "/simple"})
	write(t, filepath.Join(r.Home, ".netrc"), "default login "+user+" password wrong-"+pass+"\n")
	_, err := r.Resolve(context.Background(), pySpec(t, "uvx", "tool"), nil)
	if err == nil || !strings.Contains(err.Error(), "HTTP 401") || strings.Contains(err.Error(), pass) {
		t.Errorf("default entry: %v", err)
	}
}
