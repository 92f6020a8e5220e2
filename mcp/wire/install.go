package wire

// install.go: the one hint for an agentgate-mcp that is missing or not
// agentgate's match, which agentgate (internal/cli) and agentgate-mcp
// (its capture, auth and guard refusals) both print.

import (
	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"
)

// ModulePath is agentgate's module path, the one `go install` takes.
const ModulePath = "github.com/agentgate/agentgate"

// InstallHint is the hint for an agentgate-mcp that is missing, or that
// is not of agentgate's version or build: the command that installs
// agentgate, git-agentgate and agentgate-mcp together, into one directory
// (where agentgate looks for its helper first), as README.md's Install
// section says. version is the version to install them at: agentgate's
// (an agentgate-mcp refusing its agentgate names the agentgate's, the
// program the user ran).
//
// A released version (a semantic version, as `go install
// MODULE/cmd/...@v1.2.3` and the release archives give) is named:
//
//	install agentgate and agentgate-mcp together, from one version, into one directory: go install github.com/agentgate/agentgate/cmd/...@v1.2.3 (or the three binaries of one release archive: README.md, Install)
//
// Anything else (a build from a checkout: "devel", a pseudo-version
// stamped from the checkout's commit, "+dirty") gives the checkout
// commands, then the release:
//
//	install agentgate and agentgate-mcp together, from one checkout, into one directory: go install ./cmd/... (or go build -o DIR/ ./cmd/..., DIR being agentgate's directory); for the latest release: go install github.com/agentgate/agentgate/cmd/...@latest
func InstallHint(version string) string {
	const together = "install agentgate and agentgate-mcp together, "
	if isRelease(version) {
		return together + "from one version, into one directory: go install " + ModulePath + "/cmd/...@" + version +
			" (or the three binaries of one release archive: README.md, Install)"
	}
	return together + "from one checkout, into one directory: go install ./cmd/... (or go build -o DIR/ ./cmd/..., DIR being agentgate's directory); " +
		"for the latest release: go install " + ModulePath + "/cmd/...@latest"
}

// isRelease reports whether version is one `go install MODULE@VERSION`
// fetches as a release: a valid semantic version with a leading v, not a
// pseudo-version (which a build from a checkout is stamped with, its
// commit perhaps never pushed) and without build metadata ("+dirty").
func isRelease(version string) bool {
	return semver.IsValid(version) && semver.Build(version) == "" && !module.IsPseudoVersion(version)
}

// Hints is the fix for a peer of another version: InstallHint at the
// version of agentgate (the program the user ran), else, when agentgate
// gave none, at agentgate-mcp's.
func (e *VersionError) Hints() []string {
	if e.Agentgate != "" {
		return []string{InstallHint(e.Agentgate)}
	}
	return []string{InstallHint(e.Helper)}
}
