package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"slices"

	"github.com/agentgate/agentgate/internal/check"
	"github.com/agentgate/agentgate/internal/safetext"
	"github.com/agentgate/agentgate/mcp/config"
	"github.com/agentgate/agentgate/mcp/wire"
)

func init() {
	register(&command{
		name:    "auth",
		summary: "log in to remote servers that use OAuth; show or delete their stored tokens",
		usage: `Usage: agentgate auth login [NAME...]
       agentgate auth status [NAME...]
       agentgate auth logout [NAME...]

Remote (http, sse) servers may need an OAuth login before agentgate can
list their tools. login discovers the server's authorization server, opens
the authorization URL with $BROWSER (run with the URL as its argument) or
the OS opener, always prints the URL, waits for the redirect to a loopback
port, and stores the token. A server configured with
grant = "client_credentials" in agentgate.toml gets its token without a
browser. status shows which servers have a stored token, its client and
expiry; never the token. logout deletes stored tokens. Without NAME, every
remote server of the repository's configs.

Tokens are kept in the OS credential store, else in
$XDG_CONFIG_HOME/agentgate/tokens.json (mode 0600); see docs/AUTH.md.
lock, diff, ci and the hook use stored tokens and refresh them; they open a
browser only when stdin and stderr are terminals and CI is unset.

Exit codes: 0 done, 2 invalid usage or configs, 3 a login failed or was
refused (nothing is stored for that server).

Examples:
  agentgate auth login
  agentgate auth login linear
  agentgate auth status
  agentgate auth logout linear`,
		run: runAuth,
	})
}

// authActions are the first arguments `agentgate auth` takes.
var authActions = []string{"login", "status", "logout"}

func runAuth(e *env, fs *flag.FlagSet, args []string) error {
	if len(args) == 0 || !slices.Contains(authActions, args[0]) {
		got := "nothing"
		if len(args) > 0 {
			got = fmt.Sprintf("%q", args[0])
		}
		return invalid(fmt.Errorf("want login, status or logout, got %s", got), "run 'agentgate auth -h' for usage")
	}
	action, names := args[0], args[1:]
	ws, err := openWorkspace(e, false, true, "", "auth")
	if err != nil {
		return err
	}
	selected, err := selectServers(ws.Project, names)
	if err != nil {
		return err
	}
	var remote []config.Server
	for _, s := range selected {
		if s.Transport == config.StreamableHTTP || s.Transport == config.SSE {
			remote = append(remote, s)
		} else if len(names) > 0 {
			return invalid(fmt.Errorf("server %q (%s) is a stdio server; OAuth is for remote (http, sse) servers", safetext.VisibleLine(s.Name), check.Where(s)),
				"name a remote server, or leave the names out to take every remote server")
		}
	}
	if len(remote) == 0 {
		fmt.Fprintf(e.stderr, "agentgate: no remote (http, sse) server is configured; nothing to do\n")
		return nil
	}
	var resolved []config.Resolved
	var failures []check.Failure
	for _, s := range remote {
		r, f := check.ResolveServer(e.engine(), ws.Project, s)
		if f != nil {
			failures = append(failures, *f)
			continue
		}
		resolved = append(resolved, r)
	}
	for _, f := range failures {
		printFailure(e, f)
	}
	code := ExitOK
	if len(failures) > 0 {
		code = failureCode(failures)
	}
	if len(resolved) > 0 {
		ctx := e.ctx
		if ctx == nil {
			ctx = context.Background()
		}
		path, herr := wire.FindHelper(e.getenv)
		helperCode := 0
		if herr == nil {
			helperCode, herr = wire.Helper{Path: path, Dir: ws.Root}.RunAuth(ctx, wire.NewAuthRequest(action, resolved), e.stdout, e.stderr)
		}
		if herr != nil {
			var he *wire.HelperError
			if !errors.As(herr, &he) {
				he = &wire.HelperError{Path: path, Msg: herr.Error(), Kind: wire.ErrHelperFailed}
			}
			printHelperError(e, he)
			return silent(ExitUnverified)
		}
		code = max(code, helperCode)
	}
	if code != ExitOK {
		return silent(code)
	}
	return nil
}
