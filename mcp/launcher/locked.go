package launcher

import (
	"strings"

	"github.com/agentgate/agentgate/mcp/pep440"
)

// locked.go: a recognised spec against the package a lockfile pins (the
// lockfile's package member: ecosystem, name, version, integrity), the
// one comparison verify, the hook, pin and guard make.

// Runs reports whether p runs the package a lockfile pins as ecosystem
// and name: the same ecosystem and name; a Go package path may lie
// inside the locked module. Files compare by their root-relative path,
// which only the caller knows (a server's cwd): not here.
func (p PackageSpec) Runs(ecosystem, name string) bool {
	if p.Ecosystem != ecosystem {
		return false
	}
	if p.Ecosystem == EcoGo {
		return p.Name == name || strings.HasPrefix(p.Name, name+"/")
	}
	return p.Name == name
}

// VersionDiffers reports whether the exact spec p names another version
// than the locked version and integrity of the package it runs (Runs):
// npm and Go compare versions (npm's loose "v"/"=" prefix ignored); PyPI
// compares under PEP 440 after == or @ (mcp/pep440: 1.0 == 1.0.0, case, a
// "v" prefix, pre/post/dev spellings) and as text, case-insensitively,
// after === (arbitrary equality); OCI the digest with the locked integrity
// (and the tag, when both have one). locked and written are the two
// versions (or digests) as a message shows them.
func (p PackageSpec) VersionDiffers(version, integrity string) (locked, written string, differs bool) {
	switch p.Ecosystem {
	case EcoOCI:
		tag, digest, _ := strings.Cut(p.Version, "@")
		if digest != integrity {
			return integrity, digest, true
		}
		if tag != "" && version != "" && tag != version {
			return version, tag, true
		}
		return "", "", false
	case EcoNPM:
		v := strings.TrimLeft(p.Version, "v=")
		return version, v, v != version
	case EcoPyPI:
		if !strings.Contains(p.Raw, "===") {
			if eq, ok := pep440.Equal(p.Version, version); ok {
				return version, p.Version, !eq
			}
		}
		return version, p.Version, !strings.EqualFold(strings.TrimSpace(p.Version), strings.TrimSpace(version))
	}
	return version, p.Version, p.Version != version
}
