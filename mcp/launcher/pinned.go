package launcher

import (
	"fmt"
	"strings"
)

// PinnedArg returns the argument that runs exactly version of the package
// p names, written as p.Raw was: the version part replaced or added and
// everything else kept (a --package= or --from= prefix, an npm: alias,
// Python extras, an image's registry and tag). For OCI, digest is the
// manifest digest ("sha256:...", the lockfile's integrity), added after
// the tag, and version the tag to add when the image has none (may be
// ""); npm, PyPI and Go ignore digest. An exact spec is returned
// unchanged.
func (p PackageSpec) PinnedArg(version, digest string) (string, error) {
	raw := p.Raw
	if p.Exact || p.Ecosystem == EcoFile {
		return raw, nil
	}
	switch p.Ecosystem {
	case EcoNPM, EcoGo:
		if version == "" {
			return "", fmt.Errorf("no version to pin %s to", p.String())
		}
		head := raw
		if p.Version != "" {
			var ok bool
			if head, ok = strings.CutSuffix(raw, "@"+p.Version); !ok {
				return "", fmt.Errorf("cannot find the version %q in %q", p.Version, raw)
			}
		}
		return head + "@" + version, nil
	case EcoPyPI:
		if version == "" {
			return "", fmt.Errorf("no version to pin %s to", p.String())
		}
		prefix, spec := "", raw
		if strings.HasPrefix(raw, "-") {
			name, val, ok := strings.Cut(raw, "=")
			if !ok {
				return "", fmt.Errorf("cannot find the package in %q", raw)
			}
			prefix, spec = name+"=", val
		}
		m := pypiNameRE().FindStringIndex(spec)
		if m == nil || strings.TrimSpace(spec) != spec {
			return "", fmt.Errorf("cannot find the package in %q", raw)
		}
		op := "=="
		if strings.HasPrefix(spec[m[1]:], "@") {
			op = "@" // uvx tool@version: keep uv's own form
		}
		return prefix + spec[:m[1]] + op + version, nil
	case EcoOCI:
		if !ociDigestRE().MatchString(digest) {
			return "", fmt.Errorf("no manifest digest to pin %s to", p.String())
		}
		if p.Version == "" && version != "" {
			return raw + ":" + version + "@" + digest, nil
		}
		return raw + "@" + digest, nil
	}
	return "", fmt.Errorf("cannot pin %s packages", p.Ecosystem)
}
