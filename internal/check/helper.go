package check

// helper.go: live capture runs in agentgate-mcp (see mcp/wire for why);
// this is where the engine starts it, and what to do when it fails.

import (
	"context"
	"errors"

	"github.com/agentgate/agentgate/mcp/config"
	"github.com/agentgate/agentgate/mcp/wire"
)

// runHelper captures servers in agentgate-mcp (found with wire.FindHelper
// in e's environment, run in e.Dir). It returns as soon as the results are
// read; agentgate-mcp, still stopping the servers, is handed to e.Detach.
// A failure of the helper itself is returned (CaptureResolved keeps it in
// Live.Helper, for the caller to print once).
func runHelper(e Env, ctx context.Context, servers []config.Resolved, opts wire.Options) ([]wire.Result, *wire.HelperError) {
	path, err := wire.FindHelper(e.Getenv)
	if err == nil {
		var results []wire.Result
		h := wire.Helper{Path: path, Dir: e.Dir, Detach: e.Detach}
		results, err = h.CaptureAll(ctx, servers, opts)
		if err == nil {
			return results, nil
		}
	}
	var he *wire.HelperError
	if !errors.As(err, &he) {
		he = &wire.HelperError{Path: path, Msg: err.Error(), Kind: wire.ErrHelperFailed}
	}
	return nil, he
}

// HelperHints suggests the fix for a failure of agentgate-mcp.
func HelperHints(e Env, he *wire.HelperError) []string {
	install := wire.InstallHint(e.Version)
	explicit := ""
	if p := e.Getenv(wire.HelperEnv); p != "" {
		explicit = wire.HelperEnv + " is set and names " + p + ": check that it is agentgate-mcp, or unset it"
	}
	var hints []string
	switch {
	case errors.Is(he, context.Canceled):
		return []string{"the run was interrupted; run it again"}
	case errors.Is(he, wire.ErrNoHelper):
		hints = []string{install,
			"agentgate runs live servers through agentgate-mcp; it looks for it in " + wire.HelperEnv + ", next to agentgate, then on PATH"}
	case he.Overloaded:
		hints = []string{"agentgate-mcp was killed or answered more than it may (often: out of memory on huge listings); " +
			"lower max-listing-bytes, max-tools or concurrency in agentgate.toml, and find the server with 'agentgate lock --server NAME'"}
	case errors.Is(he, wire.ErrHelperVersion):
		hints = []string{install}
	default:
		hints = []string{"agentgate-mcp is agentgate's capture helper: if it was replaced or damaged, " + install,
			"if it keeps failing, report it with the lines above"}
	}
	if explicit != "" {
		hints = append(hints, explicit)
	}
	return hints
}

// helperFailure is the failure of a server that agentgate-mcp did not
// capture because it failed itself: the helper's error (printed in full
// once, before) and its first hint, so that each server's entry (in ci's
// JSON report, say) stands on its own.
func helperFailure(e Env, s config.Server, he *wire.HelperError) Failure {
	f := Failure{Server: s.Name, File: Where(s), Class: Unverified}
	if errors.Is(he, context.Canceled) {
		f.Msg = "capture interrupted"
	} else {
		f.Msg = "not captured: " + he.Error()
	}
	if hints := HelperHints(e, he); len(hints) > 0 {
		f.Hints = hints[:1]
	}
	return f
}
