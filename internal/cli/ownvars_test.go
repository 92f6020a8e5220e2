package cli

import (
	"slices"
	"testing"

	"github.com/agentgate/agentgate/mcp/guardargs"

	"github.com/agentgate/agentgate/internal/check"
	"github.com/agentgate/agentgate/mcp/auth"
	"github.com/agentgate/agentgate/mcp/wire"
)

// TestOwnVariables: the variables a wrapper's env may not set
// (guardargs.OwnVariables, issue #24 finding 3) are every variable agentgate
// and agentgate-mcp read for their own settings, named where each is
// defined.
func TestOwnVariables(t *testing.T) {
	read := []string{wire.HelperEnv, auth.StoreEnv, check.TrustedRefEnv, "AGENTGATE_TIMEOUT"}
	slices.Sort(read)
	if !slices.Equal(guardargs.OwnVariables, read) {
		t.Errorf("guardargs.OwnVariables = %q, agentgate reads %q", guardargs.OwnVariables, read)
	}
}
