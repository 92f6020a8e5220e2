package registry

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/agentgate/agentgate/internal/lazyre"
	"github.com/agentgate/agentgate/mcp/launcher"

	"github.com/agentgate/agentgate/mcp/remote"
)

// Docker's defaults for a reference that names no registry (the
// distribution/reference rules docker run applies).
const (
	dockerDomain    = "docker.io"
	dockerAPIHost   = "registry-1.docker.io"        // where docker.io's registry API answers
	dockerIndexAuth = "https://index.docker.io/v1/" // docker.io's key in config.json and for credential helpers
)

// ociAccept is what docker pull accepts for a manifest: indexes and
// manifest lists first (a multi-platform image's digest is its index's).
var ociAccept = strings.Join([]string{
	"application/vnd.oci.image.index.v1+json",
	"application/vnd.docker.distribution.manifest.list.v2+json",
	"application/vnd.oci.image.manifest.v1+json",
	"application/vnd.docker.distribution.manifest.v2+json",
}, ", ")

// ociRef is a reference split as Docker splits it.
type ociRef struct {
	domain string // as named (docker.io for none)
	path   string // repository path on the registry (library/x for docker.io's one-component names)
	tag    string
	digest string
}

// Written by hand, as are the token flow and the credential helpers below:
// go-containerregistry would add 8 modules and 274 KB to agentgate-mcp, read
// Docker's config from this process's environment instead of the
// launcher's (Resolver.Env, Home), and return its own errors in place of
// ErrNotFound/ErrAuth and the hint to run docker login (docs/ARCHITECTURE.md).
//
// parseOCIRef applies Docker's normalisation (distribution/reference
// ParseNormalizedNamed): the first component is a registry when it
// contains "." or ":" or is "localhost"; otherwise the registry is
// docker.io; docker.io's one-component names are under library/;
// index.docker.io is docker.io; no tag and no digest means "latest".
func parseOCIRef(name, version string) ociRef {
	r := ociRef{domain: dockerDomain, path: name}
	if i := strings.IndexByte(name, '/'); i >= 0 {
		first := name[:i]
		if strings.ContainsAny(first, ".:") || first == "localhost" {
			r.domain, r.path = first, name[i+1:]
		}
	}
	if r.domain == "index.docker.io" {
		r.domain = dockerDomain
	}
	if r.domain == dockerDomain && !strings.Contains(r.path, "/") {
		r.path = "library/" + r.path
	}
	r.tag, r.digest, _ = strings.Cut(version, "@")
	if r.tag == "" && r.digest == "" {
		r.tag = "latest"
	}
	return r
}

var digestRE = lazyre.New(`^sha256:[0-9a-f]{64}$`)

func (r *Resolver) resolveOCI(ctx context.Context, spec launcher.PackageSpec) (Package, error) {
	ref := parseOCIRef(spec.Name, spec.Version)
	f := &failer{spec: spec.String(), eco: launcher.EcoOCI, registry: ref.domain}
	if ref.domain == dockerDomain {
		f.source = "Docker's default registry"
	} else {
		f.source = "the image reference"
	}
	pkg := Package{Ecosystem: launcher.EcoOCI, Name: spec.Name, Version: ref.tag, Registry: ref.domain}
	if ref.digest != "" {
		// The reference pins the manifest by its digest: docker runs
		// exactly that, whatever the tag says now.
		pkg.Integrity = ref.digest
		return pkg, nil
	}
	host := ref.domain
	if host == dockerDomain {
		host = dockerAPIHost
	}
	c := &ociClient{r: r, f: f, host: host, domain: ref.domain, repo: ref.path}
	d, err := c.manifestDigest(ctx, ref.tag)
	if err != nil {
		return Package{}, err
	}
	pkg.Integrity = d
	return pkg, nil
}

type ociClient struct {
	r            *Resolver
	f            *failer
	host, domain string
	repo         string
	scheme       string // "https", or "http" for a loopback registry that does not speak TLS
	auth         string // Authorization header once a challenge was answered
}

// manifestDigest asks for the manifest of tag: HEAD first (the digest is
// the Docker-Content-Digest header), else GET, whose body's SHA-256 is
// the digest (and must equal the header when one is sent).
func (c *ociClient) manifestDigest(ctx context.Context, tag string) (string, error) {
	path := "/v2/" + c.repo + "/manifests/" + tag
	resp, u, err := c.do(ctx, http.MethodHead, path)
	if err != nil {
		return "", err
	}
	if resp.status/100 == 2 {
		if d := resp.header.Get("Docker-Content-Digest"); digestRE().MatchString(d) {
			return d, nil
		}
	}
	if resp.status == http.StatusNotFound {
		return "", c.f.fail(ErrNotFound, "%s: no manifest for tag %q of %s (HTTP 404)", u, tag, c.repo)
	}
	resp, u, err = c.do(ctx, http.MethodGet, path)
	if err != nil {
		return "", err
	}
	if resp.status/100 != 2 {
		if resp.status == http.StatusNotFound {
			return "", c.f.fail(ErrNotFound, "%s: no manifest for tag %q of %s (HTTP 404)", u, tag, c.repo)
		}
		return "", statusError(c.f, mustParse(u), resp.status, "manifest")
	}
	var m struct {
		SchemaVersion int    `json:"schemaVersion"`
		MediaType     string `json:"mediaType"`
	}
	if json.Unmarshal(resp.body, &m) != nil || m.SchemaVersion == 0 {
		return "", c.f.fail(ErrProtocol, "%s: the answer is not an image manifest", u)
	}
	sum := sha256.Sum256(resp.body)
	d := "sha256:" + hex.EncodeToString(sum[:])
	if h := resp.header.Get("Docker-Content-Digest"); h != "" && h != d {
		return "", c.f.fail(ErrProtocol, "%s: Docker-Content-Digest %s, but the manifest's bytes hash to %s", u, h, d)
	}
	return d, nil
}

// do sends one request, answering a 401 challenge once (Bearer: a token
// from the realm for repository:REPO:pull; Basic: the configured
// credentials). The first request to a loopback registry falls back to
// plain HTTP when TLS fails, as Docker treats 127.0.0.0/8 as an insecure
// registry.
func (c *ociClient) do(ctx context.Context, method, path string) (response, string, error) {
	if c.scheme == "" {
		c.scheme = "https"
		resp, u, err := c.send(ctx, method, path)
		if err == nil || !errors.Is(err, ErrUnreachable) || !remote.IsLoopback(c.host) || ctx.Err() != nil {
			return c.challenge(ctx, method, path, resp, u, err)
		}
		c.scheme = "http"
	}
	resp, u, err := c.send(ctx, method, path)
	return c.challenge(ctx, method, path, resp, u, err)
}

func (c *ociClient) challenge(ctx context.Context, method, path string, resp response, u string, err error) (response, string, error) {
	switch {
	case err != nil:
		return resp, u, err
	case resp.status == http.StatusForbidden || resp.status == http.StatusUnauthorized && c.auth != "":
		return resp, u, c.f.fail(ErrAuth, "%s: HTTP %d: no pull access to %s with the credentials configured (Docker's config.json)", u, resp.status, c.repo)
	case resp.status != http.StatusUnauthorized:
		return resp, u, nil
	}
	var ch remote.Challenge // the first challenge of the first header
	if chs := remote.ParseChallenges([]string{resp.header.Get("WWW-Authenticate")}); len(chs) > 0 {
		ch = chs[0]
	}
	user, secret, err := c.r.dockerCredentials(ctx, c.domain)
	if err != nil {
		return resp, u, c.f.fail(ErrAuth, "reading Docker credentials: %v", err)
	}
	switch strings.ToLower(ch.Scheme) {
	case "bearer":
		tok, err := c.token(ctx, ch, user, secret)
		if err != nil {
			return resp, u, err
		}
		c.auth = "Bearer " + tok
	case "basic":
		if user == "" {
			return resp, u, c.f.fail(ErrAuth, "%s: the registry wants a login and Docker's config.json has none for %s (docker login %s)", u, c.domain, c.domain)
		}
		c.auth = "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+secret))
	default:
		return resp, u, c.f.fail(ErrAuth, "%s: HTTP 401 without a Bearer or Basic challenge to answer", u)
	}
	resp, u, err = c.send(ctx, method, path)
	if err == nil && (resp.status == http.StatusUnauthorized || resp.status == http.StatusForbidden) {
		return resp, u, c.f.fail(ErrAuth, "%s: HTTP %d after authenticating: no pull access to %s with the credentials configured", u, resp.status, c.repo)
	}
	return resp, u, err
}

func (c *ociClient) send(ctx context.Context, method, path string) (response, string, error) {
	u := c.scheme + "://" + c.host + path
	req, err := http.NewRequestWithContext(ctx, method, u, nil)
	if err != nil {
		return response{}, u, c.f.fail(ErrSpec, "%v", err)
	}
	req.Header.Set("Accept", ociAccept)
	if c.auth != "" {
		req.Header.Set("Authorization", c.auth)
	}
	resp, err := c.r.fetch(c.f, req, c.r.maxBytes())
	return resp, u, err
}

// token runs the registry token flow (distribution's token
// authentication): GET realm?service=S&scope=repository:REPO:pull, with
// Basic credentials when there are some, answered by {"token"} or
// {"access_token"}.
func (c *ociClient) token(ctx context.Context, ch remote.Challenge, user, secret string) (string, error) {
	realm, err := url.Parse(ch.Param("realm"))
	if err != nil || (realm.Scheme != "https" && realm.Scheme != "http") || realm.Host == "" {
		return "", c.f.fail(ErrProtocol, "the registry's Bearer challenge has no usable realm")
	}
	if realm.Scheme == "http" && !remote.IsLoopback(realm.Hostname()) && user != "" {
		return "", c.f.fail(ErrAuth, "the token realm %s is plain HTTP: credentials are not sent there", RedactURL(realm))
	}
	q := realm.Query()
	if s := ch.Param("service"); s != "" {
		q.Set("service", s)
	}
	scope := ch.Param("scope")
	if scope == "" {
		scope = "repository:" + c.repo + ":pull"
	}
	q.Set("scope", scope)
	realm.RawQuery = q.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, realm.String(), nil)
	if err != nil {
		return "", c.f.fail(ErrProtocol, "token realm: %v", err)
	}
	if user != "" {
		req.SetBasicAuth(user, secret)
	}
	resp, err := c.r.fetch(c.f, req, 1<<20)
	if err != nil {
		return "", err
	}
	if resp.status/100 != 2 {
		if resp.status == http.StatusUnauthorized || resp.status == http.StatusForbidden {
			return "", c.f.fail(ErrAuth, "%s: HTTP %d: no token for %s (docker login %s)", RedactURL(realm), resp.status, scope, c.domain)
		}
		return "", statusError(c.f, realm, resp.status, "token")
	}
	var t struct {
		Token       string `json:"token"`
		AccessToken string `json:"access_token"`
	}
	if json.Unmarshal(resp.body, &t) != nil || t.Token == "" && t.AccessToken == "" {
		return "", c.f.fail(ErrProtocol, "%s: the answer holds no token", RedactURL(realm))
	}
	if t.Token != "" {
		return t.Token, nil
	}
	return t.AccessToken, nil
}

func mustParse(s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		return &url.URL{Opaque: s}
	}
	return u
}

// dockerCredentials reads Docker's config.json ($DOCKER_CONFIG/config.json,
// else ~/.docker/config.json) for domain: a credential helper named by
// credHelpers[domain] or credsStore (docker-credential-NAME get), else
// the auths entry whose key's host is domain (docker.io's key is
// https://index.docker.io/v1/), as "auth" (base64 user:password) or
// username and password. No file or no entry: no credentials.
func (r *Resolver) dockerCredentials(ctx context.Context, domain string) (user, secret string, err error) {
	dir := r.getenv("DOCKER_CONFIG")
	if dir == "" {
		dir = filepath.Join(r.home(), ".docker")
	}
	data, err := os.ReadFile(filepath.Join(dir, "config.json"))
	if err != nil {
		return "", "", nil
	}
	var cfg struct {
		Auths map[string]struct {
			Auth     string `json:"auth"`
			Username string `json:"username"`
			Password string `json:"password"`
		} `json:"auths"`
		CredsStore  string            `json:"credsStore"`
		CredHelpers map[string]string `json:"credHelpers"`
	}
	if err := json.Unmarshal(data, &cfg); err != nil {
		return "", "", fmt.Errorf("%s: not JSON", filepath.Join(dir, "config.json"))
	}
	server := domain
	if domain == dockerDomain {
		server = dockerIndexAuth
	}
	helper := cfg.CredHelpers[domain]
	if helper == "" {
		helper = cfg.CredsStore
	}
	if helper != "" {
		return credentialHelper(ctx, helper, server)
	}
	for k, a := range cfg.Auths {
		if authHost(k) != authHost(server) {
			continue
		}
		if a.Auth != "" {
			d, err := base64.StdEncoding.DecodeString(a.Auth)
			if err != nil {
				return "", "", fmt.Errorf("%s: auths[%q].auth is not base64", filepath.Join(dir, "config.json"), k)
			}
			u, p, _ := strings.Cut(string(d), ":")
			return u, p, nil
		}
		return a.Username, a.Password, nil
	}
	return "", "", nil
}

// authHost is Docker's ConvertToHostname: the key without scheme and path.
func authHost(k string) string {
	k = strings.TrimPrefix(strings.TrimPrefix(k, "https://"), "http://")
	h, _, _ := strings.Cut(k, "/")
	if h == "index.docker.io" || h == "registry-1.docker.io" {
		h = dockerDomain
	}
	return h
}

// credentialHelper runs docker-credential-NAME get with the server on
// stdin, as Docker does. A helper that knows no credentials for the
// server ("credentials not found") means none.
func credentialHelper(ctx context.Context, name, server string) (string, string, error) {
	bin, err := exec.LookPath("docker-credential-" + name)
	if err != nil {
		return "", "", fmt.Errorf("credential helper docker-credential-%s is not on PATH", name)
	}
	cmd := exec.CommandContext(ctx, bin, "get")
	cmd.Stdin = strings.NewReader(server)
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil {
		if strings.Contains(out.String(), "credentials not found") {
			return "", "", nil
		}
		return "", "", fmt.Errorf("docker-credential-%s get: %v", name, err)
	}
	var c struct{ Username, Secret string }
	if err := json.Unmarshal(out.Bytes(), &c); err != nil {
		return "", "", fmt.Errorf("docker-credential-%s get: the answer is not JSON", name)
	}
	if c.Username == "<token>" {
		// An identity token is exchanged through OAuth, which agentgate
		// does not do: ask anonymously.
		return "", "", nil
	}
	return c.Username, c.Secret, nil
}
