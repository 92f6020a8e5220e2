package registry

import (
	"archive/zip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"

	"github.com/agentgate/agentgate/mcp/launcher"

	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"
	"golang.org/x/mod/sumdb/dirhash"
)

// goEnv is the part of the go command's configuration resolution needs.
type goEnv struct {
	proxy, noproxy, modcache string
	source                   string // "GOPROXY" or "`go env GOPROXY`"
}

// goConfig reads GOPROXY, GONOPROXY (default GOPRIVATE) and GOMODCACHE
// from the environment when GOPROXY is set there, else from `go env`
// (which adds go's defaults and `go env -w` settings).
func (r *Resolver) goConfig(ctx context.Context) (goEnv, error) {
	if p := r.getenv("GOPROXY"); p != "" {
		e := goEnv{proxy: p, noproxy: r.getenv("GONOPROXY"), modcache: r.getenv("GOMODCACHE"), source: "GOPROXY"}
		if e.noproxy == "" {
			e.noproxy = r.getenv("GOPRIVATE")
		}
		if e.modcache == "" {
			gopath := r.getenv("GOPATH")
			if gopath == "" {
				gopath = filepath.Join(r.home(), "go")
			}
			e.modcache = filepath.Join(filepath.SplitList(gopath)[0], "pkg", "mod")
		}
		return e, nil
	}
	out, err := r.run(ctx, "go", "env", "GOPROXY", "GONOPROXY", "GOMODCACHE")
	if errors.Is(err, exec.ErrNotFound) {
		return goEnv{}, nil
	}
	if err != nil {
		return goEnv{}, err
	}
	lines := strings.Split(strings.ReplaceAll(out, "\r\n", "\n"), "\n")
	for len(lines) < 3 {
		lines = append(lines, "")
	}
	return goEnv{proxy: strings.TrimSpace(lines[0]), noproxy: strings.TrimSpace(lines[1]), modcache: strings.TrimSpace(lines[2]), source: "`go env GOPROXY`"}, nil
}

// goProxyEntry is one element of GOPROXY's list.
type goProxyEntry struct {
	url          string // "" for direct and off
	word         string // "direct", "off" or ""
	fallOnAnyErr bool   // followed by "|": any error moves on; "," moves on only after 404/410
}

// parseGOPROXY splits GOPROXY as the go command does: entries separated
// by "," or "|"; "direct" and "off" are words; a URL without a scheme is
// https.
func parseGOPROXY(s string) []goProxyEntry {
	var out []goProxyEntry
	for s != "" {
		i := strings.IndexAny(s, ",|")
		entry, sep := s, byte(0)
		if i >= 0 {
			entry, sep, s = s[:i], s[i], s[i+1:]
		} else {
			s = ""
		}
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		e := goProxyEntry{fallOnAnyErr: sep == '|'}
		switch entry {
		case "direct", "off":
			e.word = entry
		default:
			if !strings.Contains(entry, "://") && !filepath.IsAbs(entry) {
				entry = "https://" + entry
			}
			e.url = strings.TrimSuffix(entry, "/")
		}
		out = append(out, e)
	}
	return out
}

func (r *Resolver) resolveGo(ctx context.Context, spec launcher.PackageSpec) (Package, error) {
	f := &failer{spec: spec.String(), eco: launcher.EcoGo}
	env, err := r.goConfig(ctx)
	if err != nil {
		return Package{}, f.fail(ErrNoRegistry, "cannot read the go command's settings: %v", err)
	}
	if env.proxy == "" {
		return Package{}, f.fail(ErrNoRegistry, "GOPROXY is unset and the go command is not on PATH to give its default (`go env GOPROXY`); set GOPROXY")
	}
	f.registry, f.source = redactString(env.proxy), env.source
	var notFound []string
	for mod := spec.Name; mod != "." && mod != ""; mod = path.Dir(mod) {
		if module.CheckPath(mod) != nil {
			continue
		}
		if env.noproxy != "" && module.MatchPrefixPatterns(env.noproxy, mod) {
			return Package{}, f.fail(ErrUnsupported, "%s matches GONOPROXY/GOPRIVATE (%s): the go command fetches it from version control directly, which agentgate does not", mod, env.noproxy)
		}
		pkg, err := r.goModule(ctx, f, env, mod, spec)
		if errors.Is(err, ErrNotFound) {
			notFound = append(notFound, err.(*Error).Msg)
			continue
		}
		return pkg, err
	}
	if len(notFound) == 0 {
		return Package{}, f.fail(ErrSpec, "%q is not a valid module path", spec.Name)
	}
	return Package{}, f.fail(ErrNotFound, "no module provides package %s@%s: %s", spec.Name, spec.Version, strings.Join(notFound, "; "))
}

// goModule resolves spec's version in module mod and hashes its zip; the
// zip must hold the package (a .go file in its directory), else mod is
// not the module that provides it (ErrNotFound: try a shorter path).
func (r *Resolver) goModule(ctx context.Context, f *failer, env goEnv, mod string, spec launcher.PackageSpec) (Package, error) {
	emod, err := module.EscapePath(mod)
	if err != nil {
		return Package{}, f.fail(ErrNotFound, "%s: %v", mod, err)
	}
	version, err := r.goVersion(ctx, f, &env, mod, emod, spec.Version)
	if err != nil {
		return Package{}, err
	}
	if !semver.IsValid(version) || module.Check(mod, version) != nil {
		return Package{}, f.fail(ErrProtocol, "%s: the proxy answered version %q for %s", redactString(env.proxy), version, mod)
	}
	ev, _ := module.EscapeVersion(version)
	tmp, err := os.CreateTemp("", "agentgate-modzip-*.zip")
	if err != nil {
		return Package{}, f.fail(ErrUnreachable, "temporary file for the module zip: %v", err)
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	if err := r.goProxyCopy(ctx, f, env.proxy, emod+"/@v/"+ev+".zip", tmp); err != nil {
		return Package{}, err
	}
	if err := tmp.Close(); err != nil {
		return Package{}, f.fail(ErrUnreachable, "module zip: %v", err)
	}
	h1, err := dirhash.HashZip(tmp.Name(), dirhash.Hash1)
	if err != nil {
		return Package{}, f.fail(ErrProtocol, "%s@%s: the module zip is not a zip: %v", mod, version, err)
	}
	if rel := strings.TrimPrefix(strings.TrimPrefix(spec.Name, mod), "/"); !zipHasPackage(tmp.Name(), mod+"@"+version+"/", rel) {
		return Package{}, f.fail(ErrNotFound, "module %s@%s has no package %s", mod, version, spec.Name)
	}
	if err := goCacheCheck(env.modcache, emod, ev, h1); err != nil {
		return Package{}, f.fail(ErrIntegrity, "%v", err)
	}
	return Package{Ecosystem: launcher.EcoGo, Name: mod, Version: version, Integrity: h1, Registry: redactString(env.proxy)}, nil
}

// goVersion asks the proxies of env for the version of module mod
// (escaped: emod) that version names, as the go command does: latest,
// upgrade and patch the highest release of @v/list, else @latest; a
// canonical version (or a query that is no semver prefix) its .info; v1
// or v1.2 the highest release with that prefix. env.proxy becomes the
// proxy that answered.
func (r *Resolver) goVersion(ctx context.Context, f *failer, env *goEnv, mod, emod, version string) (string, error) {
	var info struct{ Version string }
	switch {
	case version == "latest" || version == "upgrade" || version == "patch":
		body, base, err := r.goProxyGet(ctx, f, *env, emod+"/@v/list", r.maxBytes())
		if err != nil {
			return "", err
		}
		if v := goLatest(string(body), ""); v != "" {
			env.proxy = base
			return v, nil
		}
		body, base, err = r.goProxyGet(ctx, f, *env, emod+"/@latest", r.maxBytes())
		if err != nil {
			return "", err
		}
		if json.Unmarshal(body, &info) != nil {
			return "", f.fail(ErrProtocol, "%s/%s/@latest: not a version info", redactString(base), emod)
		}
		env.proxy = base
	case semver.IsValid(version) && semver.Canonical(version) == version && !strings.Contains(version, "+") || !isSemverPrefix(version):
		ev, err := module.EscapeVersion(version)
		if err != nil {
			return "", f.fail(ErrSpec, "version %q: %v", version, err)
		}
		body, base, err := r.goProxyGet(ctx, f, *env, emod+"/@v/"+ev+".info", r.maxBytes())
		if err != nil {
			return "", err
		}
		if json.Unmarshal(body, &info) != nil {
			return "", f.fail(ErrProtocol, "%s/%s/@v/%s.info: not a version info", redactString(base), emod, ev)
		}
		env.proxy = base
	default: // v1, v1.2: the highest release with that prefix
		body, base, err := r.goProxyGet(ctx, f, *env, emod+"/@v/list", r.maxBytes())
		if err != nil {
			return "", err
		}
		info.Version, env.proxy = goLatest(string(body), version), base
		if info.Version == "" {
			return "", f.fail(ErrNoVersion, "module %s has no version matching %s", mod, version)
		}
	}
	return info.Version, nil
}

// isSemverPrefix reports whether q is a version prefix query ("v1",
// "v1.2"): the go command resolves those to the highest matching release.
func isSemverPrefix(q string) bool {
	return semver.IsValid(q) && semver.Canonical(q) != q && !strings.ContainsAny(q, "-+")
}

// goLatest picks, from a @v/list answer, the highest release (no
// prerelease) that has prefix (all when ""), else the highest prerelease,
// as the go command's "latest" query does.
func goLatest(list, prefix string) string {
	var rel, pre string
	for _, v := range strings.Fields(list) {
		if !semver.IsValid(v) || prefix != "" && semver.Compare(v, prefix) != 0 && !strings.HasPrefix(v, prefix+".") {
			continue
		}
		if semver.Prerelease(v) == "" {
			if rel == "" || semver.Compare(v, rel) > 0 {
				rel = v
			}
		} else if pre == "" || semver.Compare(v, pre) > 0 {
			pre = v
		}
	}
	if rel != "" {
		return rel
	}
	return pre
}

// goProxyGet walks the GOPROXY list for one path as the go command does:
// after a "," only 404 and 410 move on, after a "|" any error does;
// "direct" and "off" end the walk (agentgate does no VCS fetch). It
// returns the answer and the proxy that gave it.
func (r *Resolver) goProxyGet(ctx context.Context, f *failer, env goEnv, p string, limit int64) ([]byte, string, error) {
	var last error
	for _, e := range parseGOPROXY(env.proxy) {
		switch e.word {
		case "off":
			return nil, "", f.fail(ErrUnsupported, "GOPROXY reaches off: module lookup disabled")
		case "direct":
			if last != nil {
				return nil, "", last
			}
			return nil, "", f.fail(ErrUnsupported, "GOPROXY reaches direct: the go command would fetch from version control, which agentgate does not; put a module proxy first")
		}
		body, err := r.goGet(ctx, f, e.url+"/"+p, limit, nil)
		if err == nil {
			return body, e.url, nil
		}
		last = err
		if !e.fallOnAnyErr && !errors.Is(err, ErrNotFound) {
			return nil, "", err
		}
	}
	if last == nil {
		last = f.fail(ErrNoRegistry, "GOPROXY lists no proxy")
	}
	return nil, "", last
}

// goProxyCopy downloads p from the proxy that answered the version query.
func (r *Resolver) goProxyCopy(ctx context.Context, f *failer, base, p string, w io.Writer) error {
	_, err := r.goGet(ctx, f, base+"/"+p, MaxZipBytes, w)
	return err
}

// goGet fetches one URL; with w set the body streams to w (up to limit)
// and is not returned.
func (r *Resolver) goGet(ctx context.Context, f *failer, raw string, limit int64, w io.Writer) ([]byte, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, f.fail(ErrNoRegistry, "GOPROXY entry is not a URL")
	}
	if u.Scheme == "file" {
		return nil, f.fail(ErrUnsupported, "file:// GOPROXY entries are not read by agentgate")
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, f.fail(ErrNoRegistry, "GOPROXY entry: %v", err)
	}
	if u.User != nil {
		req.SetBasicAuth(u.User.Username(), passwordOf(u.User))
	} else if login, pw, ok := r.netrcAuth(u.Hostname()); ok {
		req.SetBasicAuth(login, pw)
	}
	if w == nil {
		resp, err := r.fetch(f, req, limit)
		if err != nil {
			return nil, err
		}
		if resp.status/100 != 2 {
			return nil, statusError(f, u, resp.status, path.Base(u.Path))
		}
		return resp.body, nil
	}
	resp, err := r.client().Do(req)
	if err != nil {
		return nil, f.fail(ErrUnreachable, "GET %s: %s", RedactURL(u), transportReason(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return nil, statusError(f, u, resp.StatusCode, path.Base(u.Path))
	}
	n, err := io.Copy(w, io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, f.fail(ErrUnreachable, "GET %s: %s", RedactURL(u), transportReason(err))
	}
	if n > limit {
		return nil, f.fail(ErrTooLarge, "GET %s: answer larger than %d bytes", RedactURL(u), limit)
	}
	return nil, nil
}

// zipHasPackage reports whether the module zip has a .go file directly in
// directory rel ("" for the module root).
func zipHasPackage(name, prefix, rel string) bool {
	z, err := zip.OpenReader(name)
	if err != nil {
		return false
	}
	defer z.Close()
	dir := strings.TrimSuffix(prefix+rel, "/") + "/"
	for _, zf := range z.File {
		if rest, ok := strings.CutPrefix(zf.Name, dir); ok && !strings.Contains(rest, "/") && strings.HasSuffix(rest, ".go") {
			return true
		}
	}
	return false
}

// goCacheCheck compares the go command's module cache with h1: when
// GOMODCACHE/cache/download/MOD/@v/VER.ziphash exists (the go command
// writes the zip's h1 there when it downloads it), it must equal h1.
func goCacheCheck(modcache, emod, ev, h1 string) error {
	if modcache == "" {
		return nil
	}
	p := filepath.Join(modcache, "cache", "download", filepath.FromSlash(emod), "@v", ev+".ziphash")
	data, err := os.ReadFile(p)
	if err != nil {
		return nil
	}
	if got := strings.TrimSpace(string(data)); got != h1 {
		return fmt.Errorf("the go module cache (%s) holds %s, the proxy's zip hashes to %s", p, got, h1)
	}
	return nil
}
