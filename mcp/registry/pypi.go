package registry

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/agentgate/agentgate/internal/lazyre"
	"github.com/agentgate/agentgate/mcp/launcher"

	"github.com/agentgate/agentgate/mcp/pep440"
)

// pypiAccept asks for the PEP 691 JSON form of the simple API only.
const pypiAccept = "application/vnd.pypi.simple.v1+json"

// PyPIIntegrity is the integrity agentgate records for a PyPI release
// (lock.Package, docs/spec/lockfile-v2.md): "sha256-" + standard base64 of
// the SHA-256 of the version's file list, one line "HEX  FILENAME\n" per
// distribution file of the version (wheels and sdists; yanked files left
// out), sorted by FILENAME as bytes, HEX the lowercase hex SHA-256 of the
// file as the index lists it: exactly what `sha256sum *` prints in a
// directory holding those files. (The digest is the one
// golang.org/x/mod/sumdb/dirhash's Hash1 computes over those files.)
// files maps each file name to its hex SHA-256.
func PyPIIntegrity(files map[string]string) (string, error) {
	names := make([]string, 0, len(files))
	for n := range files {
		if strings.ContainsAny(n, "\n/") {
			return "", fmt.Errorf("file name %q has a newline or slash", n)
		}
		names = append(names, n)
	}
	slices.Sort(names)
	h := sha256.New()
	for _, n := range names {
		fmt.Fprintf(h, "%s  %s\n", files[n], n)
	}
	return "sha256-" + base64.StdEncoding.EncodeToString(h.Sum(nil)), nil
}

// pep691 is the project page of the JSON simple API.
type pep691 struct {
	Meta struct {
		APIVersion string `json:"api-version"`
	} `json:"meta"`
	Name  string `json:"name"`
	Files []struct {
		Filename string            `json:"filename"`
		Hashes   map[string]string `json:"hashes"`
		Yanked   json.RawMessage   `json:"yanked"`
	} `json:"files"`
}

var sha256HexRE = lazyre.New(`^[0-9a-f]{64}$`)

type pyRelease struct {
	raw    string
	v      pep440.Version
	files  map[string]string // filename -> sha256 hex (not yanked)
	yanked []string          // yank reasons of yanked files
}

func (r *Resolver) resolvePyPI(ctx context.Context, spec launcher.PackageSpec, args []string) (Package, error) {
	f := &failer{spec: spec.String(), eco: launcher.EcoPyPI}
	ixs, err := r.pypiIndexes(spec, args)
	if err != nil {
		return Package{}, f.fail(ErrNoRegistry, "%v", err)
	}
	if len(ixs.list) == 0 {
		return Package{}, f.fail(ErrNoRegistry, "no package index is configured for %s: %s (the launcher's built-in default index is not assumed); set one of them to your index's simple API URL", spec.Launcher, ixs.read)
	}
	// Search the indexes in the launcher's order (ixs.strategy): a project
	// an index does not have (404) sends the search to the next one.
	type found struct {
		ix       pyIndex
		base     *url.URL
		releases map[string]*pyRelease
	}
	var pages []found
	var missing []string
	for _, ix := range ixs.list {
		fi := &failer{spec: f.spec, eco: f.eco, registry: redactString(ix.url), source: ix.source}
		base, releases, err := r.fetchPyPI(ctx, fi, spec, ix)
		if errors.Is(err, ErrNotFound) && len(ixs.list) > 1 {
			missing = append(missing, fmt.Sprintf("%s (configured by %s)", redactString(ix.url), ix.source))
			continue
		}
		if err != nil {
			return Package{}, err
		}
		pages = append(pages, found{ix, base, releases})
		if ixs.strategy == uvFirstIndex {
			break
		}
	}
	if len(pages) == 0 {
		f.registry, f.source = redactString(ixs.list[0].url), ixs.list[0].source
		return Package{}, f.fail(ErrNotFound, "no project %q on any of the %d configured indexes: %s", spec.Name, len(missing), strings.Join(missing, ", "))
	}
	// first-index: the first index that has the project decides.
	// unsafe-first-match: the first index with a release that satisfies
	// the spec. unsafe-best-match and pip: the best release of all, from
	// the first index that has it.
	var best *pyRelease
	var from found
	var firstErr error
	for _, pg := range pages {
		fi := &failer{spec: f.spec, eco: f.eco, registry: redactString(pg.ix.url), source: pg.ix.source}
		rel, err := pickPyPI(fi, pg.releases, spec)
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		if best == nil || ixs.strategy == uvBestMatch && pep440.Compare(rel.v, best.v) > 0 {
			best, from = rel, pg
			if ixs.strategy != uvBestMatch {
				break
			}
		}
	}
	if best == nil {
		return Package{}, firstErr
	}
	fi := &failer{spec: f.spec, eco: f.eco, registry: redactString(from.ix.url), source: from.ix.source}
	// A version agentgate records (and pin writes into a config) holds
	// none of the white space pep440.Parse tolerates.
	if !pep440.Valid(best.raw) {
		return Package{}, fi.fail(ErrProtocol, "%s: the index names version %q, which is not a PEP 440 version; agentgate does not pin it", RedactURL(from.base), best.raw)
	}
	integrity, err := PyPIIntegrity(best.files)
	if err != nil {
		return Package{}, fi.fail(ErrProtocol, "%s: %v", RedactURL(from.base), err)
	}
	return Package{Ecosystem: launcher.EcoPyPI, Name: spec.Name, Version: best.raw, Integrity: integrity, Registry: RedactURL(from.base)}, nil
}

// fetchPyPI reads spec's project page on index ix (PEP 691 JSON) and
// returns the index's base URL and its releases by version (pep440 Key).
// A project the index does not have is ErrNotFound.
func (r *Resolver) fetchPyPI(ctx context.Context, f *failer, spec launcher.PackageSpec, ix pyIndex) (*url.URL, map[string]*pyRelease, error) {
	base, err := url.Parse(ix.url)
	if err != nil || (base.Scheme != "https" && base.Scheme != "http") || base.Host == "" {
		return nil, nil, f.fail(ErrNoRegistry, "the index %s is not an http(s) URL", ix.source)
	}
	u := base.JoinPath(spec.Name) // PEP 503 normalised by config (pep440.NormalizeName)
	u.Path += "/"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, nil, f.fail(ErrSpec, "%v", err)
	}
	req.Header.Set("Accept", pypiAccept)
	if user, pw, ok := r.pyIndexAuth(ix, base); ok {
		req.SetBasicAuth(user, pw)
	}
	resp, err := r.fetch(f, req, r.maxBytes())
	if err != nil {
		return nil, nil, err
	}
	if resp.status/100 != 2 {
		if resp.status == http.StatusNotFound {
			return nil, nil, f.fail(ErrNotFound, "%s: no project %q on this index (HTTP 404)", RedactURL(u), spec.Name)
		}
		if slices.Contains(ix.ignore, resp.status) {
			return nil, nil, f.fail(ErrNotFound, "%s: HTTP %d, which ignore-error-codes counts as no project %q", RedactURL(u), resp.status, spec.Name)
		}
		return nil, nil, statusError(f, u, resp.status, "project page")
	}
	if mt, _, _ := mime.ParseMediaType(resp.header.Get("Content-Type")); mt != pypiAccept {
		return nil, nil, f.fail(ErrProtocol, "%s: answered %q, not the PEP 691 JSON simple API (%s)", RedactURL(u), mt, pypiAccept)
	}
	var page pep691
	if err := json.Unmarshal(resp.body, &page); err != nil || !strings.HasPrefix(page.Meta.APIVersion, "1.") {
		return nil, nil, f.fail(ErrProtocol, "%s: not a PEP 691 project page (meta.api-version 1.x)", RedactURL(u))
	}
	if page.Name != "" && pep440.NormalizeName(page.Name) != spec.Name {
		return nil, nil, f.fail(ErrProtocol, "%s: the page is for %q, not %q", RedactURL(u), page.Name, spec.Name)
	}
	releases, err := pyReleases(f, u, page, spec.Name)
	if err != nil {
		return nil, nil, err
	}
	return base, releases, nil
}

// pyReleases groups the files of a project page (at u) for name by
// release (pep440 Key), each file with its sha256; yanked files are left
// out, with the reason. A file of name's without a sha256 is an error,
// and so is a page with no release file.
func pyReleases(f *failer, u *url.URL, page pep691, name string) (map[string]*pyRelease, error) {
	releases := map[string]*pyRelease{}
	for _, file := range page.Files {
		raw, ok := pyFileVersion(file.Filename, name)
		if !ok {
			continue
		}
		v, ok := pep440.Parse(raw)
		if !ok {
			continue
		}
		key := v.Key()
		rel := releases[key]
		if rel == nil {
			rel = &pyRelease{raw: raw, v: v, files: map[string]string{}}
			releases[key] = rel
		}
		if reason, y := yanked(file.Yanked); y {
			rel.yanked = append(rel.yanked, reason)
			continue
		}
		h := strings.ToLower(file.Hashes["sha256"])
		if !sha256HexRE().MatchString(h) {
			return nil, f.fail(ErrProtocol, "%s: file %s has no sha256 hash", RedactURL(u), file.Filename)
		}
		rel.files[file.Filename] = h
	}
	if len(releases) == 0 {
		return nil, f.fail(ErrNoVersion, "%s: %q has no release files", RedactURL(u), name)
	}
	return releases, nil
}

// pickPyPI chooses the release: an exact version must exist and not be
// yanked (it keeps the spelling the spec gives it); otherwise (no version, "latest", or a specifier set) the
// highest release that is not yanked and satisfies it, a final release
// before any pre-release (a pre-release only when no final release
// matches, as uv's default "if-necessary" pre-release mode does).
func pickPyPI(f *failer, releases map[string]*pyRelease, spec launcher.PackageSpec) (*pyRelease, error) {
	want := strings.TrimSpace(spec.Version)
	if strings.HasSuffix(want, ".*") && !strings.ContainsAny(want[:1], "=<>!~") {
		want = "==" + want // ==1.1.* is a prefix match, not an exact version
	}
	if spec.Exact && !strings.HasPrefix(want, "==") || want != "" && want != "latest" && !strings.ContainsAny(want[:1], "=<>!~") {
		return pickExactPyPI(f, releases, want, strings.Contains(spec.Raw, "==="))
	}
	var specs pep440.Specifiers
	if want != "" && want != "latest" {
		var ok bool
		if specs, ok = pep440.ParseSpecifiers(want); !ok {
			return nil, f.fail(ErrSpec, "%q is not a PEP 440 version specifier", want)
		}
	}
	if best := bestPyPI(releases, specs); best != nil {
		return best, nil
	}
	if want == "" || want == "latest" {
		return nil, f.fail(ErrNoVersion, "every release is yanked")
	}
	return nil, f.fail(ErrNoVersion, "no release that is not yanked satisfies %q%s", want, pyLatestHint(releases))
}

// pickExactPyPI is pickPyPI for one version, want; arbitrary means the
// spec wrote ===, PEP 440's arbitrary equality: the text, not the version.
func pickExactPyPI(f *failer, releases map[string]*pyRelease, want string, arbitrary bool) (*pyRelease, error) {
	v, ok := pep440.Parse(want)
	switch {
	case !ok && arbitrary:
		return nil, f.fail(ErrUnsupported, "===%s names a version that is not PEP 440: agentgate resolves PEP 440 versions only", want)
	case !ok:
		return nil, f.fail(ErrSpec, "%q is not a PEP 440 version", want)
	}
	rel := releases[v.Key()]
	switch {
	case rel == nil, arbitrary && !strings.EqualFold(rel.raw, want):
		return nil, f.fail(ErrNoVersion, "version %s is not on the index%s", want, pyLatestHint(releases))
	case len(rel.files) == 0:
		return nil, f.fail(ErrNoVersion, "version %s is yanked (%s)%s", rel.raw, strings.Join(rel.yanked, "; "), pyLatestHint(releases))
	}
	// The version as the spec writes it (PEP 440-equal to the files'):
	// what verify compares offline and pin keeps.
	exact := *rel
	exact.raw = want
	return &exact, nil
}

// bestPyPI is the highest release that is not yanked and matches specs,
// a final release before any pre-release; nil when none matches.
func bestPyPI(releases map[string]*pyRelease, specs pep440.Specifiers) *pyRelease {
	var best, bestPre *pyRelease
	for _, rel := range releases {
		if len(rel.files) == 0 || !specs.Match(rel.v, rel.raw) {
			continue
		}
		p := &best
		if rel.v.Prerelease() {
			p = &bestPre
		}
		if *p == nil || pep440.Compare(rel.v, (*p).v) > 0 {
			*p = rel
		}
	}
	if best == nil {
		return bestPre
	}
	return best
}

func pyLatestHint(releases map[string]*pyRelease) string {
	var best *pyRelease
	for _, r := range releases {
		if len(r.files) > 0 && !r.v.Prerelease() && (best == nil || pep440.Compare(r.v, best.v) > 0) {
			best = r
		}
	}
	if best == nil {
		return ""
	}
	return "; latest is " + best.raw
}

// yanked reads PEP 592's "yanked": false, true or a reason string.
func yanked(raw json.RawMessage) (string, bool) {
	s := strings.TrimSpace(string(raw))
	switch {
	case s == "" || s == "false" || s == "null":
		return "", false
	case s == "true":
		return "no reason given", true
	}
	var reason string
	if json.Unmarshal(raw, &reason) == nil {
		if reason == "" {
			reason = "no reason given"
		}
		return reason, true
	}
	return "", true
}

// pyFileVersion extracts the version from a distribution file name of
// project name: a wheel (NAME-VER[-BUILD]-PY-ABI-PLAT.whl) or an sdist
// (NAME-VER.tar.gz / .zip, NAME possibly written with - . or _); other
// files (eggs, installers) are not counted.
func pyFileVersion(file, name string) (string, bool) {
	if base, ok := strings.CutSuffix(file, ".whl"); ok {
		parts := strings.Split(base, "-")
		if (len(parts) == 5 || len(parts) == 6) && pep440.NormalizeName(parts[0]) == name {
			return parts[1], true
		}
		return "", false
	}
	var base string
	for _, ext := range []string{".tar.gz", ".zip", ".tar.bz2", ".tar.xz", ".tgz", ".tar"} {
		if b, ok := strings.CutSuffix(file, ext); ok {
			base = b
			break
		}
	}
	if base == "" {
		return "", false
	}
	for i := len(base) - 1; i > 0; i-- {
		if base[i] == '-' && pep440.NormalizeName(base[:i]) == name {
			return base[i+1:], true
		}
	}
	return "", false
}
