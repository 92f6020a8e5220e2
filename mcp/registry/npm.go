package registry

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/agentgate/agentgate/mcp/launcher"
)

// npmAccept is the Accept header npm sends for the abbreviated
// ("corgi") packument.
const npmAccept = "application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8, */*"

// packument is the part of an abbreviated packument agentgate reads.
type packument struct {
	Name     string                      `json:"name"`
	DistTags map[string]string           `json:"dist-tags"`
	Versions map[string]packumentVersion `json:"versions"`
}

type packumentVersion struct {
	Version    string          `json:"version"`
	Deprecated json.RawMessage `json:"deprecated"`
	Dist       struct {
		Integrity string `json:"integrity"`
		Shasum    string `json:"shasum"`
		Tarball   string `json:"tarball"`
	} `json:"dist"`
}

func (r *Resolver) resolveNPM(ctx context.Context, spec launcher.PackageSpec, args []string) (Package, error) {
	f := &failer{spec: spec.String(), eco: launcher.EcoNPM}
	cfg := r.loadNPMConfig()
	src, err := r.npmSourceFor(ctx, spec, args, &cfg)
	if err != nil {
		return Package{}, f.fail(ErrNoRegistry, "%v", err)
	}
	if src.reg == "" {
		return Package{}, f.fail(ErrNoRegistry, "no registry is configured for %s: none of %s names one (a launcher that is not on PATH cannot be asked); set one of them", spec.Launcher, src.tried)
	}
	f.registry, f.source = redactString(src.reg), src.source
	base, err := url.Parse(src.reg)
	if err != nil || (base.Scheme != "https" && base.Scheme != "http") || base.Host == "" {
		return Package{}, f.fail(ErrNoRegistry, "the configured npm registry is not an http(s) URL")
	}
	if !strings.HasSuffix(base.Path, "/") {
		base.Path += "/"
		base.RawPath = ""
	}
	auth := src.auth
	if !src.ownAuth && spec.Launcher != "yarn dlx" {
		auth = npmAuth(cfg, base)
	}
	p, u, err := r.fetchPackument(ctx, f, base, spec.Name, auth)
	if err != nil {
		return Package{}, err
	}
	v, err := pickNPM(f, p, spec.Version)
	if err != nil {
		return Package{}, err
	}
	pv := p.Versions[v]
	integrity, err := npmIntegrity(f, u, v, pv)
	if err != nil {
		return Package{}, err
	}
	pkg := Package{Ecosystem: launcher.EcoNPM, Name: spec.Name, Version: v, Integrity: integrity, Registry: RedactURL(base)}
	// npm's cache is what npx and npm exec run from; bunx, pnpm and yarn
	// keep their own stores (not read).
	if pv.Dist.Tarball != "" && (spec.Launcher == "npx" || spec.Launcher == "npm exec") {
		cache := r.npmCacheDir(cfg)
		entry, err := checkNPMCache(cache, pv.Dist.Tarball, integrity)
		if err != nil {
			return Package{}, f.fail(ErrIntegrity, "%v", err)
		}
		pkg.Cache = entry
	}
	return pkg, nil
}

// fetchPackument asks the registry at base (its path ending in "/") for
// name's packument, with auth as its Authorization header ("" for none;
// base's user info as Basic credentials), and checks that it is one for
// name with published versions. u is the packument's URL.
func (r *Resolver) fetchPackument(ctx context.Context, f *failer, base *url.URL, name, auth string) (p packument, u *url.URL, err error) {
	// npm-package-arg's escapedName: the scope's slash as %2f.
	u = base.JoinPath()
	u.RawPath = base.EscapedPath() + strings.Replace(url.PathEscape(name), "%2F", "%2f", 1)
	u.Path, _ = url.PathUnescape(u.RawPath)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return p, u, f.fail(ErrSpec, "%v", err)
	}
	req.Header.Set("Accept", npmAccept)
	req.Header.Set("npm-command", "exec")
	if base.User != nil {
		req.SetBasicAuth(base.User.Username(), passwordOf(base.User))
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := r.fetch(f, req, r.maxBytes())
	if err != nil {
		return p, u, err
	}
	if resp.status/100 != 2 {
		if resp.status == http.StatusNotFound {
			return p, u, f.fail(ErrNotFound, "%s: no package %q on this registry (HTTP 404)", RedactURL(u), name)
		}
		return p, u, statusError(f, u, resp.status, "packument")
	}
	if err := json.Unmarshal(resp.body, &p); err != nil || p.Versions == nil && p.DistTags == nil {
		return p, u, f.fail(ErrProtocol, "%s: the answer is not an npm packument", RedactURL(u))
	}
	if p.Name != "" && p.Name != name {
		return p, u, f.fail(ErrProtocol, "%s: the packument is for %q, not %q", RedactURL(u), p.Name, name)
	}
	if len(p.Versions) == 0 {
		return p, u, f.fail(ErrNoVersion, "%s: %q has no published versions (unpublished)", RedactURL(u), name)
	}
	return p, u, nil
}

// npmIntegrity is the sha512 integrity of version v (pv) of the
// packument at u; an error when v is not a semver version or pv records
// no sha512.
func npmIntegrity(f *failer, u *url.URL, v string, pv packumentVersion) (string, error) {
	if !strictSemver(v) {
		return "", f.fail(ErrProtocol, "%s: the packument names version %q, which is not a semver version (npm publishes only versions of the form 1.2.3, 1.2.3-rc.1); agentgate does not pin it", RedactURL(u), v)
	}
	integrity := sha512Token(pv.Dist.Integrity)
	if integrity == "" {
		if pv.Dist.Integrity == "" && sha1SRI(pv.Dist.Shasum) != "" {
			return "", f.fail(ErrUnsupported, "%s: version %s was published before npm recorded sha512 integrity (only a SHA-1 shasum): agentgate locks sha512 only", RedactURL(u), v)
		}
		return "", f.fail(ErrProtocol, "%s: version %s has no sha512 dist.integrity", RedactURL(u), v)
	}
	return integrity, nil
}

// sha512Token is the sha512 entry of an SRI string ("" when none; the
// first when several).
func sha512Token(sri string) string {
	for _, tok := range strings.Fields(sri) {
		if d, ok := parseSRI(tok)["sha512"]; ok && len(d[0]) == 64 {
			return "sha512-" + base64.StdEncoding.EncodeToString(d[0])
		}
	}
	return ""
}

func passwordOf(u *url.Userinfo) string {
	p, _ := u.Password()
	return p
}

// pickNPM chooses the version npm would install for want, as
// npm-pick-manifest does (engines and publish dates aside): a dist-tag
// names its version; an exact version must be published; for a range
// (empty means "*"), the "latest" dist-tag's version when it satisfies
// the range (for "*" always) and is not deprecated, else the highest
// satisfying version, preferring versions that are not deprecated.
// Prereleases satisfy a range only as node-semver allows.
func pickNPM(f *failer, p packument, want string) (string, error) {
	want = strings.TrimSpace(want)
	if want == "" {
		want = "*"
	}
	if v, ok := parseSemver(want); ok {
		for _, k := range slices.Sorted(maps.Keys(p.Versions)) {
			if pv, _ := parseSemver(k); compareSemver(pv, v) == 0 {
				return k, nil
			}
		}
		return "", f.fail(ErrNoVersion, "version %s is not published (never released, or unpublished)%s", want, latestHint(p))
	}
	rng, isRange := parseRange(want)
	if !isRange {
		v, ok := p.DistTags[want]
		if !ok {
			return "", f.fail(ErrNoVersion, "no dist-tag %q (tags: %s)", want, strings.Join(slices.Sorted(maps.Keys(p.DistTags)), ", "))
		}
		if _, ok := p.Versions[v]; !ok {
			return "", f.fail(ErrProtocol, "dist-tag %q names version %s, which the packument does not list", want, v)
		}
		return v, nil
	}
	if latest, ok := p.DistTags["latest"]; ok {
		if pv, ok := p.Versions[latest]; ok && !deprecated(pv) {
			if lv, ok := parseSemver(latest); ok && (want == "*" || rng.satisfies(lv)) {
				return latest, nil
			}
		}
	}
	best := bestNPM(p, rng)
	if best == "" {
		return "", f.fail(ErrNoVersion, "no published version satisfies %q%s", want, latestHint(p))
	}
	return best, nil
}

// bestNPM is the highest version of p that satisfies rng, preferring
// versions that are not deprecated; "" when none satisfies it.
func bestNPM(p packument, rng semRange) string {
	best, bestDep := "", true
	var bestV semVersion
	for _, k := range slices.Sorted(maps.Keys(p.Versions)) {
		v, ok := parseSemver(k)
		if !ok || !rng.satisfies(v) {
			continue
		}
		dep := deprecated(p.Versions[k])
		if best == "" || bestDep && !dep || dep == bestDep && compareSemver(v, bestV) > 0 {
			best, bestDep, bestV = k, dep, v
		}
	}
	return best
}

func deprecated(v packumentVersion) bool {
	d := strings.TrimSpace(string(v.Deprecated))
	return d != "" && d != "null" && d != "false" && d != `""`
}

func latestHint(p packument) string {
	if l, ok := p.DistTags["latest"]; ok {
		return "; latest is " + l
	}
	return ""
}
