package cli

import "github.com/agentgate/agentgate/mcp/wire"

// Version returns agentgate's version, e.g. "v1.2.3", a checkout's
// pseudo-version, or "devel" (see wire.Version: agentgate and
// agentgate-mcp share it; release builds set it with -ldflags "-X
// github.com/agentgate/agentgate/mcp/wire.version=v1.2.3").
func Version() string { return wire.Version() }

// generatedBy is the lockfile's generatedBy value: "agentgate@<version>".
func generatedBy() string { return "agentgate@" + Version() }
