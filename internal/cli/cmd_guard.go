package cli

// cmd_guard.go: `agentgate guard`, the stdio proxy that checks what an MCP
// client receives against agentgate.lock. It runs in agentgate-mcp (see
// mcp/guard); this finds the lockfile as every command does and hands the
// client's stdin and stdout to the helper.

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/agentgate/agentgate/mcp/guardargs"

	"github.com/agentgate/agentgate/gitint"
	"github.com/agentgate/agentgate/internal/check"
	"github.com/agentgate/agentgate/mcp/config"
	"github.com/agentgate/agentgate/mcp/wire"
)

func init() {
	register(&command{
		name:    "guard",
		summary: "run an MCP server behind a proxy that withholds what agentgate.lock does not pin",
		usage: `Usage: agentgate guard --server NAME [OPTIONS] -- COMMAND [ARGS...]
       agentgate guard --server NAME [OPTIONS] --url URL [--header K:V ...] [--transport http|sse]
OPTIONS: [--lockfile PATH] [--on-drift block|warn] [--allow-unlocked] [--allow-unpinned-package]
         [--ignore-member PATH]... [--max-listing-bytes N] [--max-tools N]

Guard is what an MCP client starts instead of the server: it starts the
server (COMMAND and ARGS, in the working directory, with guard's own
environment) and forwards every message both ways on stdin and stdout,
comparing every tools/list result (and, with a version 2 lockfile,
prompts/list, resources/templates/list, the initialize instructions, and
resources/list when the lockfile pins resources) with the server's entry
in agentgate.lock, for the whole session.

A tool that matches its pin passes byte for byte. A tool that drifted, or
that the lockfile does not pin, is withheld from the listing, and a
tools/call for it is answered by guard with an error and never reaches the
server (--on-drift withhold, the default); --on-drift block fails the whole
listing; --on-drift warn forwards everything and logs the differences.
Messages from the server that do not parse, repeat a member name or are
not JSON-RPC are refused. Every decision is one line on stderr; stdout
carries nothing but protocol. See docs/GUARD.md.

Before it starts a stdio server, guard compares the package its command
runs with the lockfile's (version 2): an unpinned spec (npx -y pkg, uvx
tool, docker run image:tag) runs the locked exact version instead (for
npx, checked against the locked integrity, offline when npm's cache holds
it); another version, package or an edited repository script is refused
(exit 3) unless --allow-unpinned-package.

Flags are read as every agentgate command reads them: -flag or --flag,
--flag=value or --flag value; they end at "--" or at the first argument
that is not a flag, and what follows is the server's command as given.
The OPTIONS are --allow-unlocked, --allow-unpinned-package (also
agentgate.toml's allow-unpinned-package), --ignore-member PATH (repeatable),
--max-listing-bytes N and --max-tools N; the last three default to the
server's settings in agentgate.toml (--ignore-member adds to its
ignore-members, the limits replace its own). agentgate wrap and
agentgate's reading of wrapped configs parse these flags with the same
parser, so a wrapper guard would refuse is an error there too.

The lockfile is read once, at start: --lockfile, else the repository's
(agentgate.toml's lockfile, default agentgate.lock at the root of the git
work tree containing the working directory; outside git, agentgate.lock in
the working directory).

Exit codes: 0 the client ended the session (it closed stdin, or sent
SIGINT or SIGTERM: guard stopped the server) or the server exited with
status 0; 2 bad flags, no lockfile, a damaged
lockfile, or a server the lockfile does not lock (unless --allow-unlocked);
3 the server did not start, was refused for running another package than
the lockfile pins, or ended the session (its stderr tail is printed),
agentgate-mcp is missing or of another version.

Examples:
  agentgate guard --server memory -- npx -y @modelcontextprotocol/server-memory@2026.1.26
  agentgate guard --server everything --on-drift block -- node ./server.js
  agentgate guard --server remote --url https://mcp.example.com/mcp --header "Authorization: Bearer ${TOKEN}"`,
		// The one definition of guard's flags, which agentgate-mcp guard
		// and wrap's see-through parse too (mcp/guardargs).
		flags: func(fs *flag.FlagSet) { new(guardargs.GuardArgs).Register(fs) },
		run:   runGuard,
	})
}

func runGuard(e *env, fs *flag.FlagSet, args []string) error {
	g := guardargs.GuardArgsOf(fs, args)
	if err := g.Check(); err != nil {
		return classify(ExitInvalid, err) // with its hints: what to write, and guard's usage
	}
	lockPath, st, err := guardLockfile(e, g.Lockfile)
	if err != nil {
		return err
	}
	// agentgate.toml's listing limits and ignore-members for the server,
	// unless the command line gives its own (--ignore-member adds to them).
	g.Lockfile = lockPath
	maxBytes, maxTools := st.MaxListingBytes, st.MaxTools
	var ignore []string
	g.AllowUnpinnedPackage = g.AllowUnpinnedPackage || st.AllowUnpinnedPackage
	if ss, ok := st.Servers[g.Server]; ok {
		ignore = ss.IgnoreMembers
		g.AllowUnpinnedPackage = g.AllowUnpinnedPackage || ss.AllowUnpinnedPackage
		maxBytes = cmp.Or(ss.MaxListingBytes, maxBytes)
		maxTools = cmp.Or(ss.MaxTools, maxTools)
	}
	g.IgnoreMembers = slices.Concat(ignore, g.IgnoreMembers)
	g.MaxListingBytes = cmp.Or(g.MaxListingBytes, maxBytes)
	g.MaxTools = cmp.Or(g.MaxTools, maxTools)
	hargs := g.Argv()
	path, err := wire.FindHelper(e.getenv)
	if err != nil {
		var he *wire.HelperError
		if !errors.As(err, &he) {
			he = &wire.HelperError{Msg: err.Error(), Kind: wire.ErrHelperFailed}
		}
		printHelperError(e, he)
		return silent(ExitUnverified)
	}
	code, err := wire.Helper{Path: path, Dir: e.dir}.RunGuard(e.ctx, hargs, os.Stdin, e.stdout, e.stderr)
	if err != nil {
		var he *wire.HelperError
		if errors.As(err, &he) && errors.Is(he, wire.ErrHelperFailed) {
			printHelperError(e, he)
		}
		return silent(ExitUnverified)
	}
	return silent(code)
}

// guardLockfile settles the lockfile guard reads as every command does
// (--lockfile, else agentgate.toml's lockfile at the work tree's root,
// else agentgate.lock there; outside git the working directory is the
// root), checked like any lockfile the repository names (checkLockPath),
// and returns it absolute with agentgate.toml's settings. Only
// agentgate.toml is read: a client config guard does not need cannot
// stop it.
func guardLockfile(e *env, lockFlag string) (string, config.Settings, error) {
	var st config.Settings
	repo, err := openGit(e)
	root := e.dir
	switch {
	case err == nil:
		root = repo.Root()
	case !errors.Is(err, gitint.ErrNotRepository):
		return "", st, classify(ExitUnverified, err)
	}
	if data, rerr := os.ReadFile(filepath.Join(root, config.SettingsFile)); rerr == nil {
		if st, err = config.ParseSettings(config.SettingsFile, data); err != nil {
			return "", st, classify(ExitInvalid, err)
		}
	} else if !errors.Is(rerr, os.ErrNotExist) {
		return "", st, invalid(fmt.Errorf("read %s: %v", config.SettingsFile, rerr))
	}
	ws := check.NewWorkspace(e.dir, repo, root, &config.Project{Root: root, Settings: st}, lockFlag)
	if repo != nil {
		if err := checkLockPath(ws, false); err != nil {
			return "", st, err
		}
	}
	return ws.LockPath, st, nil
}
