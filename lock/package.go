package lock

// package.go: the package a stdio server runs, as a version 2 lockfile
// pins it (docs/spec/lockfile-v2.md, "Packages").

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
)

// Package ecosystems, as written in a lockfile's package.ecosystem.
const (
	EcosystemNPM  = "npm"
	EcosystemPyPI = "pypi"
	EcosystemOCI  = "oci"
	EcosystemGo   = "go"
	EcosystemFile = "file"
)

// Package is the package a stdio server runs, pinned: what the launcher
// would run today, resolved to one immutable artefact. Remote servers have
// none. The JSON member names are fixed by the format; the writer puts
// them in the order ecosystem, name, version, integrity, registry.
//
// Per ecosystem (Validate checks these forms):
//
//   - npm: Name is the package name (scoped names keep their scope; the
//     real name of an npm: alias), Version the exact semver version,
//     Integrity the registry's dist.integrity for that version as
//     published: "sha512-" and the standard base64 of the 64-byte digest of
//     the tarball.
//   - pypi: Name is the PEP 503 normalised name, Version the exact version,
//     Integrity "sha256-" and the standard base64 of the SHA-256 of the
//     version's file list: one line per distribution file the index lists
//     for that version (yanked files excluded), `<sha256 hex>  <filename>`
//     followed by "\n", sorted by filename as bytes, exactly what
//     `sha256sum *` prints in a directory holding those files.
//   - oci: Name is the image repository as written (without tag or
//     digest), Version the tag that was resolved ("" when the spec names
//     only a digest), Integrity the manifest digest the tag resolved to, as
//     the registry names it ("sha256:" and 64 lowercase hex digits; an
//     image index's digest for a multi-platform image).
//   - go: Name is the module path, Version the exact module version
//     ("v1.2.3", or a pseudo-version), Integrity the module's go.sum hash
//     ("h1:" and the standard base64 of a SHA-256).
//   - file: Name is the script's or binary's path relative to the
//     repository root, slash-separated, Version "", Integrity "sha256-"
//     and the standard base64 of the SHA-256 of the file's bytes (the
//     Subresource Integrity form; `openssl dgst -sha256 -binary FILE |
//     base64` computes it).
type Package struct {
	Ecosystem string `json:"ecosystem"` // one of the Ecosystem constants
	Name      string `json:"name"`      // the package name, as the ecosystem spells it (see above)
	Version   string `json:"version"`   // the exact version resolved; "" for a file
	Integrity string `json:"integrity"` // the hash of what runs, in the ecosystem's form (see above)
	// Registry is the registry the version was resolved from (a base URL
	// without credentials), "" (omitted) when the launcher's default.
	Registry string `json:"registry,omitempty"`
}

// String is the package as a diff names it: "name@version" ("name" for a
// file or a version-less OCI spec), with ":" before an OCI tag.
func (p Package) String() string {
	switch {
	case p.Version == "":
		return p.Name
	case p.Ecosystem == EcosystemOCI:
		return p.Name + ":" + p.Version
	case p.Ecosystem == EcosystemPyPI:
		return p.Name + "==" + p.Version
	}
	return p.Name + "@" + p.Version
}

// Validate checks that p has the form its ecosystem requires (see
// Package): a known ecosystem, a non-empty name, a version where the
// ecosystem has one (none for a file), and an integrity string of the
// ecosystem's kind with a digest of the right length. The error names the
// member (ecosystem, name, version, integrity) at its start.
func (p *Package) Validate() error {
	if p.Name == "" {
		return fmt.Errorf("name: must not be empty")
	}
	switch p.Ecosystem {
	case EcosystemNPM, EcosystemPyPI, EcosystemGo:
		if p.Version == "" {
			return fmt.Errorf("version: must not be empty for the %s ecosystem", p.Ecosystem)
		}
	case EcosystemFile:
		if p.Version != "" {
			return fmt.Errorf("version: must be empty for a file (its integrity pins it)")
		}
		if strings.HasPrefix(p.Name, "/") || p.Name == ".." || strings.HasPrefix(p.Name, "../") || strings.Contains(p.Name, "\\") {
			return fmt.Errorf("name: want a slash-separated path relative to the repository root, got %q", p.Name)
		}
	case EcosystemOCI:
	default:
		return fmt.Errorf("ecosystem: want one of npm, pypi, oci, go, file, got %q", p.Ecosystem)
	}
	if err := validIntegrity(p.Ecosystem, p.Integrity); err != nil {
		return fmt.Errorf("integrity: %v", err)
	}
	return nil
}

// validIntegrity checks an integrity string's form for ecosystem.
func validIntegrity(ecosystem, s string) error {
	b64 := func(prefix string, size int, what string) error {
		enc, ok := strings.CutPrefix(s, prefix)
		if ok {
			if d, err := base64.StdEncoding.Strict().DecodeString(enc); err == nil && len(d) == size {
				return nil
			}
		}
		return fmt.Errorf("want %s (%q and the standard base64 of a %d-byte digest), got %q", what, prefix, size, clip(s))
	}
	switch ecosystem {
	case EcosystemNPM:
		return b64("sha512-", 64, "the registry's dist.integrity")
	case EcosystemPyPI:
		return b64("sha256-", 32, "the SHA-256 of the version's file list")
	case EcosystemFile:
		return b64("sha256-", 32, "the file's SHA-256")
	case EcosystemGo:
		return b64("h1:", 32, "the go.sum hash")
	case EcosystemOCI:
		if h, ok := strings.CutPrefix(s, "sha256:"); ok && isHex64(h) {
			return nil
		}
		if h, ok := strings.CutPrefix(s, "sha512:"); ok && len(h) == 128 {
			if _, err := hex.DecodeString(h); err == nil && strings.ToLower(h) == h {
				return nil
			}
		}
		return fmt.Errorf("want the manifest digest (\"sha256:\" and 64 lowercase hex digits), got %q", clip(s))
	}
	return nil
}

// samePackage reports whether a and b pin the same package (both nil, or
// equal in every member).
func samePackage(a, b *Package) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}

// appendPackage appends p as the value of a server's "package" member,
// its members at indent+2 spaces.
func appendPackage(b []byte, p *Package, indent int) []byte {
	b = append(b, '{')
	b = appendKey(b, indent+2, "ecosystem", true)
	b = appendString(b, p.Ecosystem)
	b = appendKey(b, indent+2, "name", false)
	b = appendString(b, p.Name)
	b = appendKey(b, indent+2, "version", false)
	b = appendString(b, p.Version)
	b = appendKey(b, indent+2, "integrity", false)
	b = appendString(b, p.Integrity)
	if p.Registry != "" {
		b = appendKey(b, indent+2, "registry", false)
		b = appendString(b, p.Registry)
	}
	b = append(b, '\n')
	b = append(b, strings.Repeat(" ", indent)...)
	return append(b, '}')
}

// PackageDiff is a change of the package a server runs. Old or New is nil
// when that side pins none (only Old can be: see ComparePackages).
// Fields names the members that differ, in the order ecosystem, name,
// version, integrity.
type PackageDiff struct {
	Old, New *Package
	Fields   []string
}

// ComparePackages returns how the package pinned for one server changed
// from old to new, or nil when it did not in a way that matters:
//
//   - a different ecosystem, name, version or integrity is a change (a
//     new release behind the same tools is drift);
//   - a package pinned before and none now (the command no longer runs a
//     package agentgate can attribute) is a change, with New nil;
//   - none pinned before (a server locked before packages were pinned,
//     or a version 1 lockfile) is no change: the next `agentgate lock`
//     records it, as an upgrade of the format is not drift;
//   - a different registry alone is no change: the same integrity is the
//     same artefact.
func ComparePackages(old, new *Package) *PackageDiff {
	if old == nil {
		return nil
	}
	if new == nil {
		return &PackageDiff{Old: old}
	}
	var fields []string
	for _, f := range []struct{ name, a, b string }{
		{"ecosystem", old.Ecosystem, new.Ecosystem}, {"name", old.Name, new.Name},
		{"version", old.Version, new.Version}, {"integrity", old.Integrity, new.Integrity},
	} {
		if f.a != f.b {
			fields = append(fields, f.name)
		}
	}
	if fields == nil {
		return nil
	}
	return &PackageDiff{Old: old, New: new, Fields: fields}
}
