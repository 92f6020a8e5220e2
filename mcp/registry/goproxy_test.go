package registry

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/mcp/launcher"

	"github.com/agentgate/agentgate/internal/testing/testenv"
)

// goModFiles are the files of one fake module version (paths relative to
// the module root).
type goModFiles map[string]string

// h1Of is go.sum's h1 as golang.org/x/mod/sumdb/dirhash documents Hash1:
// SHA-256 over the lines "hex(sha256(file))  mod@ver/name\n" sorted by
// name, base64, prefixed "h1:". Written out here, not called from dirhash.
func h1Of(prefix string, files goModFiles) string {
	var names []string
	for n := range files {
		names = append(names, prefix+n)
	}
	slices.Sort(names)
	h := sha256.New()
	for _, n := range names {
		fmt.Fprintf(h, "%x  %s\n", sha256.Sum256([]byte(files[strings.TrimPrefix(n, prefix)])), n)
	}
	return "h1:" + base64.StdEncoding.EncodeToString(h.Sum(nil))
}

func zipOf(t *testing.T, prefix string, files goModFiles) []byte {
	var b bytes.Buffer
	z := zip.NewWriter(&b)
	for n, c := range files {
		w, err := z.Create(prefix + n)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(c))
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// newGoProxy serves mods ("module@version" -> files) as a GOPROXY does;
// status forces a status for every request when non-zero.
func newGoProxy(t *testing.T, mods map[string]goModFiles, status *int) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if status != nil && *status != 0 {
			w.WriteHeader(*status)
			return
		}
		p := strings.TrimPrefix(r.URL.Path, "/")
		mod, rest, ok := strings.Cut(p, "/@")
		if !ok {
			http.NotFound(w, r)
			return
		}
		var versions []string
		for k := range mods {
			if m, v, _ := strings.Cut(k, "@"); m == mod {
				versions = append(versions, v)
			}
		}
		if len(versions) == 0 {
			http.Error(w, "not found: "+mod, http.StatusGone)
			return
		}
		switch {
		case rest == "v/list":
			fmt.Fprintln(w, strings.Join(versions, "\n"))
		case rest == "latest":
			slices.Sort(versions)
			fmt.Fprintf(w, `{"Version":%q}`, versions[len(versions)-1])
		case strings.HasSuffix(rest, ".info"):
			v := strings.TrimSuffix(strings.TrimPrefix(rest, "v/"), ".info")
			if v == "main" {
				v = "v0.0.0-20260101000000-abcdefabcdef"
			}
			if _, ok := mods[mod+"@"+v]; !ok {
				http.Error(w, "unknown revision", http.StatusNotFound)
				return
			}
			fmt.Fprintf(w, `{"Version":%q,"Time":"2026-01-01T00:00:00Z"}`, v)
		case strings.HasSuffix(rest, ".zip"):
			v := strings.TrimSuffix(strings.TrimPrefix(rest, "v/"), ".zip")
			files, ok := mods[mod+"@"+v]
			if !ok {
				http.NotFound(w, r)
				return
			}
			w.Write(zipOf(t, mod+"@"+v+"/", files))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func goSpec(t *testing.T, arg string) launcher.PackageSpec {
	t.Helper()
	p, err := launcher.RecognizePackage("go", []string{"run", arg})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestGoProxy(t *testing.T) {
	mods := map[string]goModFiles{
		"example.com/tool@v1.2.3":                             {"go.mod": "module example.com/tool\n", "cmd/srv/main.go": "package main\n", "lib.go": "package tool\n"},
		"example.com/tool@v1.3.0":                             {"go.mod": "module example.com/tool\n", "cmd/srv/main.go": "package main // 1.3\n"},
		"example.com/tool@v1.4.0-rc.1":                        {"go.mod": "module example.com/tool\n", "cmd/srv/main.go": "package main // rc\n"},
		"example.com/tool@v0.9.0":                             {"go.mod": "module example.com/tool\n", "cmd/srv/main.go": "package main // 0.9\n"},
		"example.com/tool/cmd/other@v1.0.0":                   {"go.mod": "module example.com/tool/cmd/other\n", "x.go": "package main\n"},
		"example.com/pre@v0.1.0-beta":                         {"go.mod": "module example.com/pre\n", "main.go": "package main\n"},
		"example.com/head@v0.0.0-20260101000000-abcdefabcdef": {"go.mod": "module example.com/head\n", "main.go": "package main\n"},
	}
	srv := newGoProxy(t, mods, nil)
	r := npmResolver(t, map[string]string{"GOPROXY": srv.URL, "GOMODCACHE": t.TempDir()})
	cases := []struct{ arg, mod, ver string }{
		{"example.com/tool/cmd/srv@v1.2.3", "example.com/tool", "v1.2.3"}, // module found by its prefix
		{"example.com/tool/cmd/srv@latest", "example.com/tool", "v1.3.0"}, // highest release, not the rc
		{"example.com/tool/cmd/srv@v1.4.0-rc.1", "example.com/tool", "v1.4.0-rc.1"},
		{"example.com/tool/cmd/srv@v0", "example.com/tool", "v0.9.0"}, // prefix query
		{"example.com/tool/cmd/srv@v1.2", "example.com/tool", "v1.2.3"},
		{"example.com/tool/cmd/other@latest", "example.com/tool/cmd/other", "v1.0.0"},       // the longest module wins
		{"example.com/pre@latest", "example.com/pre", "v0.1.0-beta"},                        // only prereleases: the highest
		{"example.com/head@main", "example.com/head", "v0.0.0-20260101000000-abcdefabcdef"}, // a branch, through .info
		{"example.com/tool@v1.2.3", "example.com/tool", "v1.2.3"},
	}
	for _, c := range cases {
		got, err := r.Resolve(context.Background(), goSpec(t, c.arg), nil)
		want := Package{Ecosystem: "go", Name: c.mod, Version: c.ver, Integrity: h1Of(c.mod+"@"+c.ver+"/", mods[c.mod+"@"+c.ver]), Registry: srv.URL}
		if err != nil || got != want {
			t.Errorf("%s:\n got %+v %v\nwant %+v", c.arg, got, err, want)
		}
	}
	for _, c := range []struct {
		arg  string
		kind error
		msg  string
	}{
		{"example.com/tool/cmd/srv@v9.9.9", ErrNotFound, "no module provides package example.com/tool/cmd/srv@v9.9.9"},
		{"example.com/tool/cmd/none@v1.2.3", ErrNotFound, "module example.com/tool@v1.2.3 has no package example.com/tool/cmd/none"},
		{"example.com/nothing/here@latest", ErrNotFound, "no module provides package"},
		{"example.com/tool@v7", ErrNoVersion, "no version matching v7"},
	} {
		_, err := r.Resolve(context.Background(), goSpec(t, c.arg), nil)
		if !errors.Is(err, c.kind) || !strings.Contains(err.Error(), c.msg) || !strings.Contains(err.Error(), "from "+srv.URL+" (configured by GOPROXY)") {
			t.Errorf("%s: %v", c.arg, err)
		}
	}
}

func TestGoProxyList(t *testing.T) {
	mods := map[string]goModFiles{"example.com/m@v1.0.0": {"go.mod": "module example.com/m\n", "m.go": "package main\n"}}
	good := newGoProxy(t, mods, nil)
	empty := newGoProxy(t, map[string]goModFiles{}, nil)
	e500 := 500
	broken := newGoProxy(t, mods, &e500)
	spec := goSpec(t, "example.com/m@v1.0.0")
	want := h1Of("example.com/m@v1.0.0/", mods["example.com/m@v1.0.0"])
	for _, c := range []struct {
		proxy, private string
		kind           error
		registry, msg  string
	}{
		{proxy: empty.URL + "," + good.URL, registry: good.URL},  // 410 falls through ","
		{proxy: broken.URL + "|" + good.URL, registry: good.URL}, // any error falls through "|"
		{proxy: broken.URL + "," + good.URL, kind: ErrHTTP, msg: "HTTP 500"},
		{proxy: empty.URL + ",direct", kind: ErrNotFound, msg: "not found"},
		{proxy: "direct", kind: ErrUnsupported, msg: "GOPROXY reaches direct"},
		{proxy: "off", kind: ErrUnsupported, msg: "module lookup disabled"},
		{proxy: good.URL, private: "example.com", kind: ErrUnsupported, msg: "matches GONOPROXY/GOPRIVATE (example.com)"},
	} {
		r := npmResolver(t, map[string]string{"GOPROXY": c.proxy, "GOPRIVATE": c.private})
		got, err := r.Resolve(context.Background(), spec, nil)
		if c.kind == nil {
			if err != nil || got.Integrity != want || got.Registry != c.registry {
				t.Errorf("%s: %+v %v", c.proxy, got, err)
			}
			continue
		}
		if !errors.Is(err, c.kind) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %v, want %v %q", c.proxy, err, c.kind, c.msg)
		}
	}
	// No GOPROXY and no go command: no registry, and the message says so.
	r := npmResolver(t, map[string]string{})
	if _, err := r.Resolve(context.Background(), spec, nil); !errors.Is(err, ErrNoRegistry) || !strings.Contains(err.Error(), "go env GOPROXY") {
		t.Errorf("no proxy: %v", err)
	}
	// The go command's answer is used otherwise.
	r = npmResolver(t, map[string]string{}) // a Resolver asks go once
	r.Run = func(_ context.Context, name string, args ...string) (string, error) {
		return good.URL + "\n\n" + t.TempDir(), nil
	}
	if got, err := r.Resolve(context.Background(), spec, nil); err != nil || got.Integrity != want {
		t.Errorf("go env: %+v %v", got, err)
	}
}

// The go module cache's ziphash for the version must agree.
func TestGoModCacheCheck(t *testing.T) {
	mods := map[string]goModFiles{"example.com/Up@v1.0.0": {"go.mod": "module example.com/Up\n", "m.go": "package main\n"}}
	// The proxy protocol escapes upper case as !lower: only that path is
	// served.
	srv2 := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/example.com/!up/@v/v1.0.0.info":
			w.Write([]byte(`{"Version":"v1.0.0"}`))
		case "/example.com/!up/@v/v1.0.0.zip":
			w.Write(zipOf(t, "example.com/Up@v1.0.0/", mods["example.com/Up@v1.0.0"]))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv2.Close)
	cache := t.TempDir()
	r := npmResolver(t, map[string]string{"GOPROXY": srv2.URL, "GOMODCACHE": cache})
	spec := goSpec(t, "example.com/Up@v1.0.0")
	want := h1Of("example.com/Up@v1.0.0/", mods["example.com/Up@v1.0.0"])
	zh := filepath.Join(cache, "cache", "download", "example.com", "!up", "@v", "v1.0.0.ziphash")
	write(t, zh, want)
	if got, err := r.Resolve(context.Background(), spec, nil); err != nil || got.Integrity != want {
		t.Fatalf("%+v %v", got, err)
	}
	write(t, zh, "h1:"+strings.Repeat("A", 43)+"=")
	if _, err := r.Resolve(context.Background(), spec, nil); !errors.Is(err, ErrIntegrity) || !strings.Contains(err.Error(), want) {
		t.Errorf("mismatch: %v", err)
	}
}

// The real module proxy this machine's go command uses, for a module this
// repository depends on: the h1 must be go.sum's.
func TestGoProxyReal(t *testing.T) {
	if testing.Short() {
		t.Skip("network")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		testenv.Missing(t, "go is not on PATH")
	}
	proxy, err := exec.Command(goBin, "env", "GOPROXY").Output()
	if err != nil || strings.TrimSpace(string(proxy)) == "off" {
		testenv.Missing(t, "go env GOPROXY is off: no module proxy to ask")
	}
	sum, err := os.Open(filepath.Join(testenv.RepoRoot(t), "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	defer sum.Close()
	var ver, h1 string
	sc := bufio.NewScanner(sum)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 3 && f[0] == "golang.org/x/mod" && !strings.HasSuffix(f[1], "/go.mod") {
			ver, h1 = f[1], f[2]
		}
	}
	if h1 == "" {
		t.Fatal("go.sum has no golang.org/x/mod zip hash")
	}
	r := &Resolver{Dir: testenv.RepoRoot(t)}
	got, err := r.Resolve(context.Background(), goSpec(t, "golang.org/x/mod/sumdb/dirhash@"+ver), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "golang.org/x/mod" || got.Version != ver || got.Integrity != h1 {
		t.Errorf("got %+v, go.sum says golang.org/x/mod %s %s", got, ver, h1)
	}
}

func TestParseGOPROXY(t *testing.T) {
	got := parseGOPROXY("proxy.example,https://b.example/p/|direct, off")
	want := []goProxyEntry{
		{url: "https://proxy.example"}, {url: "https://b.example/p", fallOnAnyErr: true}, {word: "direct"}, {word: "off"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("%+v", got)
	}
}
