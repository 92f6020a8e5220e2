package cli

import (
	"runtime/debug"
)

// version is set at build time with
//
//	go build -ldflags "-X github.com/agentgate/agentgate/internal/cli.version=v1.2.3"
//
// When empty, the module version from the build info is used (set by
// `go install github.com/agentgate/agentgate/cmd/agentgate@v1.2.3`), and
// for a development build (built from a checkout) it is "devel".
var version string

// Version returns agentgate's version, e.g. "v1.2.3" or "devel".
func Version() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

// generatedBy is the lockfile's generatedBy value: "agentgate@<version>".
func generatedBy() string { return "agentgate@" + Version() }
