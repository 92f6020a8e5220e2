package registry

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/mcp/launcher"
)

// Docker's normalisation (distribution/reference): the expectations are
// the names `docker pull` prints for these references.
func TestParseOCIRef(t *testing.T) {
	cases := []struct{ ref, domain, path, tag, digest string }{
		{"alpine", "docker.io", "library/alpine", "latest", ""},
		{"alpine:3.20", "docker.io", "library/alpine", "3.20", ""},
		{"mcp/fetch", "docker.io", "mcp/fetch", "latest", ""},
		{"docker.io/mcp/fetch:1", "docker.io", "mcp/fetch", "1", ""},
		{"index.docker.io/alpine", "docker.io", "library/alpine", "latest", ""},
		{"ghcr.io/o/img:1.2", "ghcr.io", "o/img", "1.2", ""},
		{"localhost/img", "localhost", "img", "latest", ""},
		{"localhost:5000/a/b:v1", "localhost:5000", "a/b", "v1", ""},
		{"quay.io/x/y@sha256:" + strings.Repeat("ab", 32), "quay.io", "x/y", "", "sha256:" + strings.Repeat("ab", 32)},
		{"registry/img", "docker.io", "registry/img", "latest", ""},
	}
	for _, c := range cases {
		spec, err := launcher.RecognizePackage("docker", []string{"run", "-i", "--rm", c.ref})
		if err != nil {
			t.Fatalf("%s: %v", c.ref, err)
		}
		got := parseOCIRef(spec.Name, spec.Version)
		if got != (ociRef{c.domain, c.path, c.tag, c.digest}) {
			t.Errorf("%s: %+v", c.ref, got)
		}
	}
}

type fakeOCI struct {
	srv       *httptest.Server
	manifests map[string][]byte // "repo:tag" -> manifest bytes
	private   map[string]bool   // repos that need user:pass at the token endpoint
	noHead    bool              // HEAD answers without Docker-Content-Digest
	lie       bool              // GET's Docker-Content-Digest names other bytes
	basic     bool              // a Basic challenge instead of Bearer
}

const ociUser, ociPass = "alice", "pa55-w0rd"

func newFakeOCI(t *testing.T, tlsOn bool) *fakeOCI {
	f := &fakeOCI{manifests: map[string][]byte{}, private: map[string]bool{}}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/token" {
			scope := r.URL.Query().Get("scope")
			repo := strings.TrimSuffix(strings.TrimPrefix(scope, "repository:"), ":pull")
			u, p, ok := r.BasicAuth()
			if r.URL.Query().Get("service") != "fake-registry" || f.private[repo] && !(ok && u == ociUser && p == ociPass) {
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
			w.Write([]byte(`{"token":"tok-` + repo + `"}`))
			return
		}
		rest, ok := strings.CutPrefix(r.URL.Path, "/v2/")
		repo, tag, ok2 := strings.Cut(rest, "/manifests/")
		if !ok || !ok2 {
			http.NotFound(w, r)
			return
		}
		if f.basic {
			if u, p, ok := r.BasicAuth(); !ok || u != ociUser || p != ociPass {
				w.Header().Set("WWW-Authenticate", `Basic realm="fake"`)
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
		} else if r.Header.Get("Authorization") != "Bearer tok-"+repo {
			scheme := "https"
			if r.TLS == nil {
				scheme = "http"
			}
			w.Header().Set("WWW-Authenticate", `Bearer realm="`+scheme+`://`+r.Host+`/token",service="fake-registry",scope="repository:`+repo+`:pull"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		if !strings.Contains(r.Header.Get("Accept"), "application/vnd.oci.image.index.v1+json") {
			http.Error(w, "no index in Accept", http.StatusNotAcceptable)
			return
		}
		m, ok := f.manifests[repo+":"+tag]
		if !ok {
			w.WriteHeader(http.StatusNotFound)
			return
		}
		sum := sha256.Sum256(m)
		d := "sha256:" + hex.EncodeToString(sum[:])
		if f.lie {
			d = "sha256:" + strings.Repeat("0", 64)
		}
		w.Header().Set("Content-Type", "application/vnd.oci.image.index.v1+json")
		if r.Method == http.MethodHead {
			if !f.noHead {
				w.Header().Set("Docker-Content-Digest", d)
			}
			return
		}
		w.Header().Set("Docker-Content-Digest", d)
		w.Write(m)
	})
	if tlsOn {
		f.srv = httptest.NewTLSServer(h)
	} else {
		f.srv = httptest.NewServer(h)
	}
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeOCI) host() string {
	return strings.TrimPrefix(strings.TrimPrefix(f.srv.URL, "https://"), "http://")
}

func ociSpec(t *testing.T, ref string) launcher.PackageSpec {
	t.Helper()
	p, err := launcher.RecognizePackage("docker", []string{"run", "-i", "--rm", ref, "serve"})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// manifestDigest is the OCI digest of b: "sha256:" + hex SHA-256 of the
// manifest's bytes (OCI image spec, descriptor.md).
func manifestDigest(b []byte) string {
	s := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(s[:])
}

func TestOCIResolve(t *testing.T) {
	index := []byte(`{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[]}`)
	private := []byte(`{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","layers":[]}`)
	for _, tlsOn := range []bool{true, false} {
		f := newFakeOCI(t, tlsOn)
		f.manifests["mcp/srv:latest"] = index
		f.manifests["mcp/srv:1.2"] = private
		f.manifests["corp/secret:v1"] = private
		f.private["corp/secret"] = true
		r := npmResolver(t, map[string]string{})
		r.Client = f.srv.Client()
		h := f.host()
		for ref, want := range map[string]Package{
			h + "/mcp/srv":        {Ecosystem: "oci", Name: h + "/mcp/srv", Version: "latest", Integrity: manifestDigest(index), Registry: h},
			h + "/mcp/srv:1.2":    {Ecosystem: "oci", Name: h + "/mcp/srv", Version: "1.2", Integrity: manifestDigest(private), Registry: h},
			h + "/mcp/srv:latest": {Ecosystem: "oci", Name: h + "/mcp/srv", Version: "latest", Integrity: manifestDigest(index), Registry: h},
		} {
			got, err := r.Resolve(context.Background(), ociSpec(t, ref), nil)
			if err != nil || got != want {
				t.Errorf("tls=%v %s:\n got %+v %v\nwant %+v", tlsOn, ref, got, err, want)
			}
		}
		// A private repository: the token endpoint wants Docker's
		// credentials; without them, ErrAuth naming docker login.
		_, err := r.Resolve(context.Background(), ociSpec(t, h+"/corp/secret:v1"), nil)
		if !errors.Is(err, ErrAuth) || !strings.Contains(err.Error(), "docker login "+h) {
			t.Errorf("tls=%v private without credentials: %v", tlsOn, err)
		}
		dockerCfg := t.TempDir()
		write(t, filepath.Join(dockerCfg, "config.json"), `{"auths":{"https://`+h+`":{"auth":"`+base64.StdEncoding.EncodeToString([]byte(ociUser+":"+ociPass))+`"}}}`)
		r.Env = []string{"DOCKER_CONFIG=" + dockerCfg}
		got, err := r.Resolve(context.Background(), ociSpec(t, h+"/corp/secret:v1"), nil)
		if err != nil || got.Integrity != manifestDigest(private) {
			t.Errorf("tls=%v private with credentials: %+v %v", tlsOn, got, err)
		}
		if err != nil && strings.Contains(err.Error(), ociPass) {
			t.Errorf("password printed: %v", err)
		}
	}
}

func TestOCIEdges(t *testing.T) {
	m := []byte(`{"schemaVersion":2,"mediaType":"application/vnd.docker.distribution.manifest.v2+json"}`)
	f := newFakeOCI(t, true)
	f.manifests["a/b:1"] = m
	f.manifests["a/b:bad"] = []byte(`<html>not a manifest</html>`)
	r := npmResolver(t, map[string]string{})
	r.Client = f.srv.Client()
	h := f.host()
	// HEAD without a digest: GET, and the digest of the bytes.
	f.noHead = true
	got, err := r.Resolve(context.Background(), ociSpec(t, h+"/a/b:1"), nil)
	if err != nil || got.Integrity != manifestDigest(m) {
		t.Errorf("GET fallback: %+v %v", got, err)
	}
	_, err = r.Resolve(context.Background(), ociSpec(t, h+"/a/b:bad"), nil)
	if !errors.Is(err, ErrProtocol) || !strings.Contains(err.Error(), "not an image manifest") {
		t.Errorf("bad manifest: %v", err)
	}
	// GET whose header names other bytes.
	f.lie = true
	_, err = r.Resolve(context.Background(), ociSpec(t, h+"/a/b:1"), nil)
	if !errors.Is(err, ErrProtocol) || !strings.Contains(err.Error(), "hash to "+manifestDigest(m)) {
		t.Errorf("lying digest: %v", err)
	}
	f.noHead, f.lie = false, false
	_, err = r.Resolve(context.Background(), ociSpec(t, h+"/a/b:2"), nil)
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), `no manifest for tag "2" of a/b`) || !strings.Contains(err.Error(), "oci package "+h+"/a/b:2 from "+h+" (configured by the image reference)") {
		t.Errorf("404: %v", err)
	}
	// Basic challenge with config.json username/password.
	f.basic = true
	_, err = r.Resolve(context.Background(), ociSpec(t, h+"/a/b:1"), nil)
	if !errors.Is(err, ErrAuth) {
		t.Errorf("basic without credentials: %v", err)
	}
	r.Home = t.TempDir()
	write(t, filepath.Join(r.Home, ".docker", "config.json"), `{"auths":{"`+h+`":{"username":"`+ociUser+`","password":"`+ociPass+`"}}}`)
	got, err = r.Resolve(context.Background(), ociSpec(t, h+"/a/b:1"), nil)
	if err != nil || got.Integrity != manifestDigest(m) {
		t.Errorf("basic with credentials: %+v %v", got, err)
	}
	// A digest in the reference is the integrity; nothing is asked.
	d := "sha256:" + strings.Repeat("cd", 32)
	got, err = r.Resolve(context.Background(), ociSpec(t, "127.0.0.1:1/x/y:v1@"+d), nil)
	if err != nil || got.Integrity != d || got.Version != "v1" {
		t.Errorf("digest ref: %+v %v", got, err)
	}
	// An unreachable registry names the host.
	_, err = r.Resolve(context.Background(), ociSpec(t, "127.0.0.1:1/x/y:v1"), nil)
	if !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), "from 127.0.0.1:1") {
		t.Errorf("unreachable: %v", err)
	}
}

// A credential helper named by credHelpers is run as Docker runs it.
func TestOCICredentialHelper(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the fake helper is a shell script")
	}
	f := newFakeOCI(t, true)
	m := []byte(`{"schemaVersion":2}`)
	f.manifests["corp/secret:v1"] = m
	f.private["corp/secret"] = true
	bin := t.TempDir()
	h := f.host()
	script := "#!/bin/sh\nread server\n[ \"$1\" = get ] && [ \"$server\" = \"" + h + "\" ] && printf '{\"ServerURL\":\"%s\",\"Username\":\"" + ociUser + "\",\"Secret\":\"" + ociPass + "\"}' \"$server\"\n"
	write(t, filepath.Join(bin, "docker-credential-fake"), script)
	if err := os.Chmod(filepath.Join(bin, "docker-credential-fake"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	r := npmResolver(t, map[string]string{})
	r.Client = f.srv.Client()
	write(t, filepath.Join(r.Home, ".docker", "config.json"), `{"credHelpers":{"`+h+`":"fake"}}`)
	got, err := r.Resolve(context.Background(), ociSpec(t, h+"/corp/secret:v1"), nil)
	if err != nil || got.Integrity != manifestDigest(m) {
		t.Errorf("%+v %v", got, err)
	}
}
