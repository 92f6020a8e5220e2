package registry

import (
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentgate/agentgate/mcp/launcher"
)

// integrityOf is the SRI sha512 of the text "name@version": the fake
// registry's tarball bytes.
func integrityOf(name, v string) string {
	s := sha512.Sum512([]byte(name + "@" + v))
	return "sha512-" + base64.StdEncoding.EncodeToString(s[:])
}

// fakePackument builds an abbreviated packument; deprecated lists
// versions marked deprecated.
func fakePackument(base, name string, tags map[string]string, versions []string, deprecated ...string) map[string]any {
	vs := map[string]any{}
	for _, v := range versions {
		short := name[strings.LastIndex(name, "/")+1:]
		m := map[string]any{"name": name, "version": v, "dist": map[string]any{
			"integrity": integrityOf(name, v),
			"shasum":    "0000000000000000000000000000000000000000",
			"tarball":   base + "/" + name + "/-/" + short + "-" + v + ".tgz",
		}}
		for _, d := range deprecated {
			if d == v {
				m["deprecated"] = "use something else"
			}
		}
		vs[v] = m
	}
	return map[string]any{"name": name, "dist-tags": tags, "versions": vs, "modified": "2026-01-01T00:00:00.000Z"}
}

type fakeNPM struct {
	srv      *httptest.Server
	packs    map[string]map[string]any // escaped path ("/pkg", "/@s%2fp") -> packument
	token    string                    // when set, every request needs "Bearer token"
	lastAuth atomic.Value
	accept   atomic.Value
}

func newFakeNPM(t *testing.T) *fakeNPM {
	f := &fakeNPM{packs: map[string]map[string]any{}}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.lastAuth.Store(r.Header.Get("Authorization"))
		f.accept.Store(r.Header.Get("Accept"))
		if f.token != "" && r.Header.Get("Authorization") != "Bearer "+f.token {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		p, ok := f.packs[r.URL.EscapedPath()]
		if !ok {
			http.Error(w, `{"error":"Not found"}`, http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", "application/vnd.npm.install-v1+json")
		_ = json.NewEncoder(w).Encode(p)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

// npmResolver reads only env, a fresh home and a fresh project dir; npm
// is "not installed" so that nothing outside the test is asked. It
// follows Linux's rules on every OS (GOOS "linux": where the user and
// system files are, case-sensitive variable names), so that the tests
// that place files under "~/.config/..." and "/etc/..." mean the same on
// Windows; TestConfigFilesPerOS checks each OS's own table.
func npmResolver(t *testing.T, env map[string]string) *Resolver {
	t.Helper()
	return &Resolver{
		GOOS: "linux",
		Dir:  t.TempDir(), Home: t.TempDir(), SystemDir: t.TempDir(),
		Env: envList(env),
		Run: func(context.Context, string, ...string) (string, error) {
			return "", exec.ErrNotFound
		},
		Timeout: 10 * time.Second,
	}
}

func npmSpec(t *testing.T, arg string) launcher.PackageSpec {
	t.Helper()
	p, err := launcher.RecognizePackage("npx", []string{"-y", arg})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestNPMPick(t *testing.T) {
	f := newFakeNPM(t)
	base := f.srv.URL
	f.packs["/pkg"] = fakePackument(base, "pkg",
		map[string]string{"latest": "1.2.0", "next": "2.0.0-rc.1", "beta": "1.9.0"},
		[]string{"0.9.0", "1.0.0", "1.1.0", "1.2.0", "1.3.0", "1.4.0", "1.5.0-beta.1", "1.9.0", "2.0.0-rc.1"}, "1.4.0")
	f.packs["/@scope%2fsrv"] = fakePackument(base, "@scope/srv", map[string]string{"latest": "3.1.4"}, []string{"3.1.4", "3.0.0"})
	f.packs["/dep"] = fakePackument(base, "dep", map[string]string{"latest": "2.0.0"}, []string{"1.0.0", "2.0.0", "2.1.0"}, "2.0.0", "2.1.0")
	r := npmResolver(t, map[string]string{"NPM_CONFIG_REGISTRY": base})
	cases := []struct{ arg, want string }{
		{"pkg", "1.2.0"},                     // no version: the latest tag
		{"pkg@latest", "1.2.0"},              // a dist-tag
		{"pkg@next", "2.0.0-rc.1"},           // a dist-tag may name a prerelease
		{"pkg@beta", "1.9.0"},                //
		{"pkg@1.1.0", "1.1.0"},               // exact
		{"pkg@v1.1.0", "1.1.0"},              // exact, loose
		{"pkg@^1.0.0", "1.2.0"},              // latest satisfies the range: npm takes latest, not the highest
		{"pkg@^1.3", "1.9.0"},                // highest non-deprecated satisfying; 1.5.0-beta.1 excluded
		{"pkg@>=1.3 <1.5", "1.3.0"},          // 1.4.0 is deprecated
		{"pkg@1.4", "1.4.0"},                 // only a deprecated one satisfies: it is taken
		{"pkg@1.5.0-beta.1", "1.5.0-beta.1"}, // a prerelease asked for by name
		{"pkg@>=1.5.0-beta.0 <1.6", "1.5.0-beta.1"},
		{"pkg@*", "1.2.0"},
		{"pkg@0.x || 2", "0.9.0"},
		{"@scope/srv", "3.1.4"},
		{"@scope/srv@~3.0", "3.0.0"},
		{"alias@npm:@scope/srv@3.0.0", "3.0.0"},
		{"dep@^2", "2.1.0"}, // every candidate deprecated: the highest
	}
	for _, c := range cases {
		spec := npmSpec(t, c.arg)
		got, err := r.Resolve(context.Background(), spec, nil)
		if err != nil {
			t.Errorf("%s: %v", c.arg, err)
			continue
		}
		want := Package{Ecosystem: "npm", Name: spec.Name, Version: c.want, Integrity: integrityOf(spec.Name, c.want), Registry: base + "/"}
		if got != want {
			t.Errorf("%s:\n got %+v\nwant %+v", c.arg, got, want)
		}
	}
	if a, _ := f.accept.Load().(string); !strings.HasPrefix(a, "application/vnd.npm.install-v1+json") {
		t.Errorf("Accept %q: not the abbreviated packument", a)
	}
}

func TestNPMErrors(t *testing.T) {
	f := newFakeNPM(t)
	base := f.srv.URL
	f.packs["/pkg"] = fakePackument(base, "pkg", map[string]string{"latest": "1.0.0"}, []string{"1.0.0", "1.1.0-rc.1"})
	f.packs["/gone"] = map[string]any{"name": "gone", "versions": map[string]any{}, "time": map[string]any{"unpublished": map[string]any{"time": "2026-01-01T00:00:00Z"}}}
	f.packs["/garbage"] = map[string]any{"hello": "world"}
	f.packs["/other"] = fakePackument(base, "different", map[string]string{"latest": "1.0.0"}, []string{"1.0.0"})
	f.packs["/badtag"] = map[string]any{"name": "badtag", "dist-tags": map[string]string{"latest": "9.9.9"}, "versions": map[string]any{"1.0.0": map[string]any{"dist": map[string]any{"integrity": "sha512-AAAA"}}}}
	f.packs["/old"] = map[string]any{"name": "old", "dist-tags": map[string]string{"latest": "0.1.0"}, "versions": map[string]any{"0.1.0": map[string]any{"dist": map[string]any{"shasum": "da39a3ee5e6b4b0d3255bfef95601890afd80709"}}}}
	multi := fakePackument(base, "multi", map[string]string{"latest": "1.0.0"}, []string{"1.0.0"})
	multi["versions"].(map[string]any)["1.0.0"].(map[string]any)["dist"].(map[string]any)["integrity"] = "sha1-2jmj7l5rSw0yVb/vlWAYkK/YBwk= " + integrityOf("multi", "1.0.0")
	f.packs["/multi"] = multi
	// Packuments whose dist-tag (and versions key) is not a version
	// (issue #24 item 17): a shell payload, an alias spec, a "v" prefix,
	// a quote, a leading zero, a space.
	bad := map[string]string{"shell": "1.0.0 && touch x", "alias": "npm:other@1.0.0", "vprefix": "v1.0.0",
		"quote": `1.0.0"`, "zero": "01.0.0", "space": " 1.0.0", "eq": "=1.0.0"}
	for name, v := range bad {
		f.packs["/"+name] = fakePackument(base, name, map[string]string{"latest": v}, []string{v})
	}
	r := npmResolver(t, map[string]string{"NPM_CONFIG_REGISTRY": base})
	for _, name := range slices.Sorted(maps.Keys(bad)) {
		// By the dist-tag: refused, naming the version.
		got, err := r.Resolve(context.Background(), npmSpec(t, name+"@latest"), nil)
		if !errors.Is(err, ErrProtocol) || !strings.Contains(err.Error(), "which is not a semver version") || !strings.Contains(err.Error(), strconv.Quote(bad[name])) {
			t.Errorf("%s@latest (dist-tag latest %q): got %+v, %v; want ErrProtocol naming the version", name, bad[name], got, err)
		}
		// By a range (no version is "*"): never a package either (what
		// node-semver's loose parser reads is refused above; the rest
		// satisfies no range).
		for _, arg := range []string{name, name + "@*", name + "@^1"} {
			if got, err := r.Resolve(context.Background(), npmSpec(t, arg), nil); err == nil {
				t.Errorf("%s (dist-tag latest %q): resolved to %+v", arg, bad[name], got)
			}
		}
	}
	if got, err := r.Resolve(context.Background(), npmSpec(t, "multi"), nil); err != nil || got.Integrity != integrityOf("multi", "1.0.0") {
		t.Errorf("multi-hash integrity: %+v %v", got, err)
	}
	cases := []struct {
		arg  string
		kind error
		msg  string
	}{
		{"old", ErrUnsupported, "only a SHA-1 shasum"},
		{"nope", ErrNotFound, `no package "nope"`},
		{"pkg@2.0.0", ErrNoVersion, "version 2.0.0 is not published"},
		{"pkg@^2", ErrNoVersion, `no published version satisfies "^2"; latest is 1.0.0`},
		{"pkg@^1.1", ErrNoVersion, `satisfies "^1.1"`}, // only a prerelease would
		{"pkg@canary", ErrNoVersion, `no dist-tag "canary" (tags: latest)`},
		{"gone", ErrNoVersion, "no published versions (unpublished)"},
		{"garbage", ErrProtocol, "not an npm packument"},
		{"other", ErrProtocol, `is for "different"`},
		{"badtag@latest", ErrProtocol, "names version 9.9.9"},
	}
	for _, c := range cases {
		_, err := r.Resolve(context.Background(), npmSpec(t, c.arg), nil)
		var e *Error
		if !errors.As(err, &e) || !errors.Is(err, c.kind) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: got %v, want %v containing %q", c.arg, err, c.kind, c.msg)
			continue
		}
		// The message names the spec and the configured registry and
		// where it was configured.
		if !strings.Contains(err.Error(), "npm package "+c.arg) || !strings.Contains(err.Error(), base+" (configured by NPM_CONFIG_REGISTRY)") {
			t.Errorf("%s: %v does not name the spec and the registry", c.arg, err)
		}
	}
}

func TestNPMStatus(t *testing.T) {
	var slow = make(chan struct{})
	t.Cleanup(func() { close(slow) })
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/e500":
			w.WriteHeader(500)
		case "/slow":
			select {
			case <-slow:
			case <-r.Context().Done():
			}
		case "/huge":
			w.Write([]byte(`{"name":"huge","versions":{"1.0.0":{"x":"`))
			chunk := strings.Repeat("a", 1<<16)
			for i := 0; i < 64; i++ {
				if _, err := w.Write([]byte(chunk)); err != nil {
					return
				}
			}
		case "/slowbody":
			w.Write([]byte(`{"name":`))
			w.(http.Flusher).Flush()
			select {
			case <-slow:
			case <-r.Context().Done():
			}
		}
	}))
	t.Cleanup(srv.Close)
	r := npmResolver(t, map[string]string{"NPM_CONFIG_REGISTRY": srv.URL})
	r.MaxBytes = 1 << 20
	r.Timeout = 300 * time.Millisecond
	cases := []struct {
		arg  string
		kind error
		msg  string
	}{
		{"e500", ErrHTTP, "HTTP 500"},
		{"slow", ErrUnreachable, "no answer in time"},
		{"slowbody", ErrUnreachable, "no complete answer in time"},
		{"huge", ErrTooLarge, "larger than 1048576 bytes"},
	}
	for _, c := range cases {
		_, err := r.Resolve(context.Background(), npmSpec(t, c.arg), nil)
		if !errors.Is(err, c.kind) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: got %v, want %v with %q", c.arg, err, c.kind, c.msg)
		}
	}
	// A closed port: unreachable, naming the configured registry.
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	r = npmResolver(t, map[string]string{"npm_config_registry": closed.URL + "/"})
	_, err := r.Resolve(context.Background(), npmSpec(t, "x"), nil)
	if !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), "from "+closed.URL+"/ (configured by npm_config_registry") {
		t.Errorf("closed port: %v", err)
	}
}

// The registry and the credentials come from the files npm reads, in
// npm's order; a token reaches the registry and never an error message.
func TestNPMConfigAndAuth(t *testing.T) {
	f := newFakeNPM(t)
	f.token = "s3cret-token-value"
	f.packs["/@corp%2ftool"] = fakePackument(f.srv.URL, "@corp/tool", map[string]string{"latest": "1.0.0"}, []string{"1.0.0"})
	f.packs["/pub"] = fakePackument(f.srv.URL, "pub", map[string]string{"latest": "1.0.0"}, []string{"1.0.0"})
	host := strings.TrimPrefix(f.srv.URL, "http://")
	env := map[string]string{"CORP_TOKEN": f.token}
	r := npmResolver(t, env)
	// Project .npmrc: the scope's registry with a ${VAR} token; the user
	// .npmrc: a default registry that does not exist.
	write(t, filepath.Join(r.Dir, ".npmrc"), "; project\n@corp:registry = "+f.srv.URL+"/\n//"+host+"/:_authToken=${CORP_TOKEN}\n")
	write(t, filepath.Join(r.Home, ".npmrc"), "registry=http://127.0.0.1:1/\n# comment\n")
	got, err := r.Resolve(context.Background(), npmSpec(t, "@corp/tool"), nil)
	if err != nil || got.Version != "1.0.0" || got.Registry != f.srv.URL+"/" {
		t.Fatalf("scoped: %+v %v", got, err)
	}
	if a := f.lastAuth.Load(); a != "Bearer "+f.token {
		t.Errorf("Authorization %q", a)
	}
	// An unscoped name uses registry= from the user's .npmrc (port 1).
	_, err = r.Resolve(context.Background(), npmSpec(t, "pub"), nil)
	if !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), filepath.Join(r.Home, ".npmrc")+" (registry)") {
		t.Errorf("unscoped: %v", err)
	}
	// The environment wins over both files.
	env["NPM_CONFIG_REGISTRY"] = f.srv.URL
	r.Env = envList(env)
	got, err = r.Resolve(context.Background(), npmSpec(t, "pub"), nil)
	if err != nil || got.Version != "1.0.0" {
		t.Errorf("env registry: %+v %v", got, err)
	}
	// A wrong token: ErrAuth, and the token is not printed.
	env["CORP_TOKEN"] = "wrong-token-value"
	r.Env = envList(env)
	_, err = r.Resolve(context.Background(), npmSpec(t, "pub"), nil)
	if !errors.Is(err, ErrAuth) || strings.Contains(err.Error(), "token-value") {
		t.Errorf("bad token: %v", err)
	}
	// ${VAR?} is empty when unset; ${VAR} stays as written (and is sent
	// as such: npm does the same).
	r2 := npmResolver(t, map[string]string{})
	write(t, filepath.Join(r2.Dir, ".npmrc"), "registry="+f.srv.URL+"/\n//"+host+"/:_authToken=${NOPE}\\${X}${ALSO?}\n")
	_, _ = r2.Resolve(context.Background(), npmSpec(t, "pub"), nil)
	if a := f.lastAuth.Load(); a != "Bearer ${NOPE}${X}" {
		t.Errorf("expansion: Authorization %q", a)
	}
}

func TestNPMAuthNerfDart(t *testing.T) {
	r := npmResolver(t, map[string]string{"T": "tok"})
	write(t, filepath.Join(r.Dir, ".npmrc"), strings.Join([]string{
		"//reg.test/:_authToken=root",
		"//reg.test/npm/private/:_authToken=${T}",
		"//basic.test/:_auth=dXNlcjpwYXNz",
		"//pw.test/a/:username=user",
		"//pw.test/a/:_password=" + base64.StdEncoding.EncodeToString([]byte("pa:ss")),
	}, "\n"))
	c := r.loadNPMConfig()
	for reg, want := range map[string]string{
		"https://reg.test/npm/private/":    "Bearer tok",
		"https://reg.test/npm/private/sub": "Bearer tok",
		"https://reg.test/npm/public/":     "Bearer root",
		"https://basic.test/x/":            "Basic dXNlcjpwYXNz",
		"https://pw.test/a/b/":             "Basic " + base64.StdEncoding.EncodeToString([]byte("user:pa:ss")),
		"https://pw.test/":                 "",
		"https://other.test/":              "",
	} {
		u := mustURL(t, reg)
		if got := npmAuth(c, u); got != want {
			t.Errorf("%s: %q, want %q", reg, got, want)
		}
	}
}

func TestNPMNoRegistry(t *testing.T) {
	r := npmResolver(t, map[string]string{})
	_, err := r.Resolve(context.Background(), npmSpec(t, "pkg"), nil)
	if !errors.Is(err, ErrNoRegistry) || !strings.Contains(err.Error(), "no registry is configured for npx: none of NPM_CONFIG_REGISTRY") {
		t.Errorf("%v", err)
	}
	// npm's own answer is used when no file or variable sets one.
	f := newFakeNPM(t)
	f.packs["/pkg"] = fakePackument(f.srv.URL, "pkg", map[string]string{"latest": "1.0.0"}, []string{"1.0.0"})
	var asked []string
	r = npmResolver(t, map[string]string{}) // a Resolver asks npm once
	r.Run = func(_ context.Context, name string, args ...string) (string, error) {
		asked = append(asked, name+" "+strings.Join(args, " "))
		if args[2] == "registry" {
			return f.srv.URL + "/", nil
		}
		return "undefined", nil
	}
	got, err := r.Resolve(context.Background(), npmSpec(t, "pkg"), nil)
	if err != nil || got.Version != "1.0.0" || !strings.Contains(fmt.Sprint(asked), "npm config get registry") {
		t.Errorf("%+v %v %v", got, err, asked)
	}
	// A second package: npm is not asked again.
	if _, err := r.Resolve(context.Background(), npmSpec(t, "pkg@1.0.0"), nil); err != nil || len(asked) != 1 {
		t.Errorf("second resolve: %v, npm asked %v", err, asked)
	}
}

// Resolvers that share Runs (one per server of a capture) ask npm once
// for the same directory and environment, and again for another
// environment.
func TestRunsShared(t *testing.T) {
	f := newFakeNPM(t)
	f.packs["/pkg"] = fakePackument(f.srv.URL, "pkg", map[string]string{"latest": "1.0.0"}, []string{"1.0.0"})
	var mu sync.Mutex
	var asked []string
	runs := &Runs{}
	base := npmResolver(t, map[string]string{})
	resolver := func(env []string) *Resolver {
		return &Resolver{Dir: base.Dir, Home: base.Home, SystemDir: base.SystemDir, Env: env, Timeout: base.Timeout, Runs: runs,
			Run: func(_ context.Context, name string, args ...string) (string, error) {
				mu.Lock()
				defer mu.Unlock()
				asked = append(asked, name+" "+strings.Join(args, " "))
				return f.srv.URL + "/", nil
			}}
	}
	for i, env := range [][]string{{"A=1"}, {"A=1"}, {"A=2"}} {
		if _, err := resolver(env).Resolve(context.Background(), npmSpec(t, "pkg"), nil); err != nil {
			t.Fatal(err)
		}
		if want := []int{1, 1, 2}[i]; len(asked) != want {
			t.Errorf("after server %d: npm asked %d times, want %d: %q", i+1, len(asked), want, asked)
		}
	}
}

// npm's cache: an index entry for the locked tarball with other bytes'
// integrity is reported; a content file that does not hash to its name is
// reported; a matching entry is named in Package.Cache.
func TestNPMCacheIntegrity(t *testing.T) {
	f := newFakeNPM(t)
	f.packs["/pkg"] = fakePackument(f.srv.URL, "pkg", map[string]string{"latest": "1.0.0"}, []string{"1.0.0"})
	tarball := f.srv.URL + "/pkg/-/pkg-1.0.0.tgz"
	cache := t.TempDir()
	r := npmResolver(t, map[string]string{"NPM_CONFIG_REGISTRY": f.srv.URL, "NPM_CONFIG_CACHE": cache})
	// No entry: nothing checked.
	got, err := r.Resolve(context.Background(), npmSpec(t, "pkg"), nil)
	if err != nil || got.Cache != "" {
		t.Fatalf("%+v %v", got, err)
	}
	// cacache's layout, from its documentation: index-v5/<sha256(key)
	// hex split 2/2/rest>, lines "<sha1(json) hex>\t<json>".
	key := "make-fetch-happen:request-cache:" + tarball
	kh := sha256.Sum256([]byte(key))
	hx := hex.EncodeToString(kh[:])
	index := filepath.Join(cache, "_cacache", "index-v5", hx[:2], hx[2:4], hx[4:])
	entry := func(integrity string) string {
		js := fmt.Sprintf(`{"key":%q,"integrity":%q,"time":1,"size":3,"metadata":{}}`, key, integrity)
		s := sha1.Sum([]byte(js))
		return hex.EncodeToString(s[:]) + "\t" + js
	}
	want := integrityOf("pkg", "1.0.0")
	write(t, index, "\n"+entry(want)+"\n")
	got, err = r.Resolve(context.Background(), npmSpec(t, "pkg"), nil)
	if err != nil || got.Cache != index {
		t.Fatalf("matching entry: %+v %v", got, err)
	}
	// The content file under the locked digest holds the tarball's bytes.
	d := sha512.Sum512([]byte("pkg@1.0.0"))
	dh := hex.EncodeToString(d[:])
	content := filepath.Join(cache, "_cacache", "content-v2", "sha512", dh[:2], dh[2:4], dh[4:])
	write(t, content, "pkg@1.0.0")
	if _, err := r.Resolve(context.Background(), npmSpec(t, "pkg"), nil); err != nil {
		t.Fatalf("genuine content: %v", err)
	}
	write(t, content, "tampered")
	_, err = r.Resolve(context.Background(), npmSpec(t, "pkg"), nil)
	if !errors.Is(err, ErrIntegrity) || !strings.Contains(err.Error(), "the cache was altered") {
		t.Errorf("altered content: %v", err)
	}
	os.Remove(content)
	// A later line for the key wins: a different integrity is a mismatch.
	other := integrityOf("pkg", "evil")
	write(t, index, entry(want)+"\n"+entry(other)+"\n")
	_, err = r.Resolve(context.Background(), npmSpec(t, "pkg"), nil)
	if !errors.Is(err, ErrIntegrity) || !strings.Contains(err.Error(), other) || !strings.Contains(err.Error(), want) {
		t.Errorf("mismatch: %v", err)
	}
	// A line whose checksum is wrong is ignored, as cacache ignores it.
	bad := []byte(entry(other))
	bad[0] ^= 1 // another first character: the checksum no longer matches
	write(t, index, entry(want)+"\n"+string(bad)+"\n")
	if _, err := r.Resolve(context.Background(), npmSpec(t, "pkg"), nil); err != nil {
		t.Errorf("corrupt line not ignored: %v", err)
	}
}

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// A registry option on the server's command line wins, as it does for
// npx; an option after the package belongs to the package's command.
func TestLauncherRegistryOption(t *testing.T) {
	f := newFakeNPM(t)
	f.packs["/pkg"] = fakePackument(f.srv.URL, "pkg", map[string]string{"latest": "1.0.0"}, []string{"1.0.0"})
	f.packs["/@s%2fp"] = fakePackument(f.srv.URL, "@s/p", map[string]string{"latest": "2.0.0"}, []string{"2.0.0"})
	r := npmResolver(t, map[string]string{"NPM_CONFIG_REGISTRY": "http://127.0.0.1:1/"})
	for _, c := range []struct {
		cmd  string
		args []string
		ok   bool
	}{
		{"npx", []string{"-y", "--registry", f.srv.URL, "pkg"}, true},
		{"npx", []string{"--registry=" + f.srv.URL, "-y", "pkg@1.0.0"}, true},
		{"npx", []string{"-y", "--@s:registry=" + f.srv.URL, "@s/p"}, true},
		{"npm", []string{"exec", "-y", "pkg", "--registry", f.srv.URL}, true}, // npm exec reads options anywhere
		{"npx", []string{"-y", "pkg", "--registry", f.srv.URL}, false},        // the server's own option
		{"npx", []string{"-y", "--@other:registry=" + f.srv.URL, "@s/p"}, false},
	} {
		spec, err := launcher.RecognizePackage(c.cmd, c.args)
		if err != nil {
			t.Fatal(err)
		}
		got, err := r.Resolve(context.Background(), spec, c.args)
		if c.ok != (err == nil) || c.ok && got.Registry != f.srv.URL+"/" {
			t.Errorf("%s %v: %+v %v", c.cmd, c.args, got, err)
		}
		if err != nil && !strings.Contains(err.Error(), "NPM_CONFIG_REGISTRY") {
			t.Errorf("%s %v: %v does not name the registry's source", c.cmd, c.args, err)
		}
	}
}

func envList(m map[string]string) []string {
	env := []string{}
	for k, v := range m {
		env = append(env, k+"="+v)
	}
	return env
}
