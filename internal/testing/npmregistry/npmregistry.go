// Package npmregistry is a loopback npm registry for tests: the two kinds
// of GET the npm client sends, `/<name>` (a scope's slash escaped as
// %2f) for the packument and the tarball URL the packument names, served
// from package directories packed with the real `npm pack`. The real npx
// installs and runs from it when npm_config_registry points at URL.
//
// testdata holds agentgate-test-mailer 1.0.0 and 1.0.1 (Mailer100,
// Mailer101): a dependency-free stdio MCP server whose two versions list
// the same tool, byte for byte, and whose tools/call answers differ
// ("mailer 1.0.0: sent ..." and "mailer 1.0.1: sent, with a copy to
// bcc@attacker.invalid, ..."): the patch release with the same surface.
package npmregistry

import (
	"crypto/sha1"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
)

// The test package and its two versions (directories under testdata).
const (
	Mailer    = "agentgate-test-mailer"
	Mailer100 = "mailer-1.0.0"
	Mailer101 = "mailer-1.0.1"
)

// Dir is the directory of a test package's sources under testdata
// (Mailer100, Mailer101).
func Dir(t testing.TB, pkg string) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "testdata", pkg)
}

// Version is one packed package version.
type Version struct {
	Name, Version string
	Bin           map[string]string // package.json's bin
	Tarball       []byte
	// Integrity is "sha512-" and the standard base64 of the SHA-512 of
	// Tarball, computed here (what the registry publishes as
	// dist.integrity).
	Integrity string
}

// Registry is a running loopback registry.
type Registry struct {
	URL string // "http://127.0.0.1:PORT/", with the slash npm's registry setting has

	srv      *httptest.Server
	mu       sync.Mutex
	versions map[string]map[string]Version // name -> version -> packed
	latest   map[string]string
	toNPM    map[string]map[string]Version // what requests from npm (User-Agent npm/...) get instead
	requests []string
}

// Start packs each package directory (Pack) and serves them (Serve);
// the server stops at the end of the test.
func Start(t testing.TB, dirs ...string) *Registry {
	t.Helper()
	vs, err := Pack(t.TempDir(), dirs...)
	if err != nil {
		t.Fatal(err)
	}
	r := Serve(vs)
	t.Cleanup(r.Close)
	return r
}

// Pack packs each package directory with `npm pack` (npm must be on
// PATH) into out, and checks that the integrity npm reports is the
// SHA-512 of the tarball.
func Pack(out string, dirs ...string) ([]Version, error) {
	npm, err := exec.LookPath("npm")
	if err != nil {
		return nil, fmt.Errorf("npmregistry: npm is not on PATH (install Node.js and npm): %v", err)
	}
	var vs []Version
	for _, dir := range dirs {
		cache, err := os.MkdirTemp(out, "cache")
		if err != nil {
			return nil, err
		}
		cmd := exec.Command(npm, "pack", "--json", "--pack-destination", out)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "npm_config_cache="+cache, "npm_config_update_notifier=false", "npm_config_loglevel=error")
		b, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("npmregistry: npm pack in %s: %v", dir, err)
		}
		var packed []struct{ Name, Version, Filename, Integrity string }
		if err := json.Unmarshal(b, &packed); err != nil || len(packed) != 1 {
			return nil, fmt.Errorf("npmregistry: npm pack --json in %s: %v\n%s", dir, err, b)
		}
		p := packed[0]
		tgz, err := os.ReadFile(filepath.Join(out, p.Filename))
		if err != nil {
			return nil, err
		}
		var manifest struct{ Bin map[string]string }
		if b, err := os.ReadFile(filepath.Join(dir, "package.json")); err != nil || json.Unmarshal(b, &manifest) != nil {
			return nil, fmt.Errorf("npmregistry: %s/package.json: %v", dir, err)
		}
		sum := sha512.Sum512(tgz)
		v := Version{Name: p.Name, Version: p.Version, Bin: manifest.Bin, Tarball: tgz, Integrity: "sha512-" + base64.StdEncoding.EncodeToString(sum[:])}
		if v.Integrity != p.Integrity {
			return nil, fmt.Errorf("npmregistry: npm pack says %s, the tarball hashes to %s", p.Integrity, v.Integrity)
		}
		vs = append(vs, v)
	}
	return vs, nil
}

// Serve serves vs on a loopback port until Close; the latest dist-tag of
// each name is the version given last for it.
func Serve(vs []Version) *Registry {
	r := &Registry{versions: map[string]map[string]Version{}, latest: map[string]string{}}
	for _, v := range vs {
		if r.versions[v.Name] == nil {
			r.versions[v.Name] = map[string]Version{}
		}
		r.versions[v.Name][v.Version] = v
		r.latest[v.Name] = v.Version
	}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	r.URL = r.srv.URL + "/"
	return r
}

// Close stops the server.
func (r *Registry) Close() { r.srv.Close() }

// Get returns the packed version of name.
func (r *Registry) Get(t testing.TB, name, version string) Version {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	v, ok := r.versions[name][version]
	if !ok {
		t.Fatalf("npmregistry: no %s@%s", name, version)
	}
	return v
}

// SetLatest points name's latest dist-tag at version: a new release.
func (r *Registry) SetLatest(name, version string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.latest[name] = version
}

// Republish makes the registry answer name@version with the tarball and
// integrity of other (a registry that swaps a version's bytes and
// publishes their real integrity: npm's own check passes).
func (r *Registry) Republish(name, version string, other Version) {
	r.mu.Lock()
	defer r.mu.Unlock()
	v := other
	v.Version = version
	r.versions[name][version] = v
}

// RepublishToNPM is Republish for the requests npm itself sends (its
// User-Agent starts with "npm/") only: a registry that answers npm
// otherwise than any other client.
func (r *Registry) RepublishToNPM(name, version string, other Version) {
	r.mu.Lock()
	defer r.mu.Unlock()
	v := other
	v.Version = version
	if r.toNPM == nil {
		r.toNPM = map[string]map[string]Version{}
	}
	if r.toNPM[name] == nil {
		r.toNPM[name] = map[string]Version{}
	}
	r.toNPM[name][version] = v
}

// Requests returns the paths requested so far, in order, and forgets
// them.
func (r *Registry) Requests() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.requests
	r.requests = nil
	return out
}

func tarballPath(name, version string) string {
	_, base, _ := strings.Cut(name, "/")
	if base == "" {
		base = name
	}
	return "/" + name + "/-/" + base + "-" + version + ".tgz"
}

func (r *Registry) serve(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.requests = append(r.requests, req.URL.EscapedPath())
	versions := r.versions
	if strings.HasPrefix(req.Header.Get("User-Agent"), "npm/") && r.toNPM != nil {
		versions = map[string]map[string]Version{}
		for name, vs := range r.versions {
			versions[name] = maps.Clone(vs)
			maps.Copy(versions[name], r.toNPM[name])
		}
	}
	for name, vs := range versions {
		for _, v := range vs {
			if req.URL.Path == tarballPath(name, v.Version) {
				w.Header().Set("Content-Type", "application/octet-stream")
				w.Write(v.Tarball)
				return
			}
		}
	}
	name, err := url.PathUnescape(strings.TrimPrefix(req.URL.EscapedPath(), "/"))
	vs, ok := versions[name]
	if err != nil || !ok {
		http.NotFound(w, req)
		return
	}
	packument := map[string]any{}
	for _, k := range slices.Sorted(maps.Keys(vs)) {
		v := vs[k]
		sum := sha1.Sum(v.Tarball)
		packument[k] = map[string]any{
			"name": name, "version": k,
			"bin":  v.Bin,
			"dist": map[string]any{"integrity": v.Integrity, "shasum": hex.EncodeToString(sum[:]), "tarball": r.srv.URL + tarballPath(name, k)},
		}
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"name": name, "dist-tags": map[string]string{"latest": r.latest[name]}, "versions": packument})
}

// Env returns the variables that make npm and npx use this registry and
// a cache of the test's own (cache), with no user config, no update
// check and no audit: append them to a command's environment.
func (r *Registry) Env(t testing.TB, cache string) []string {
	t.Helper()
	rc := filepath.Join(t.TempDir(), "npmrc")
	if err := os.WriteFile(rc, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	return []string{
		"npm_config_registry=" + r.URL, "npm_config_cache=" + cache, "npm_config_userconfig=" + rc,
		"npm_config_update_notifier=false", "npm_config_audit=false", "npm_config_fund=false", "npm_config_loglevel=error",
	}
}
