package cli

// cmd_guard.go: `agentgate guard`, the stdio proxy that checks what an MCP
// client receives against agentgate.lock. It runs in agentgate-mcp (see
// mcp/guard); this finds the lockfile as every command does and hands the
// client's stdin and stdout to the helper.

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/agentgate/agentgate/gitint"
	"github.com/agentgate/agentgate/mcp/config"
	"github.com/agentgate/agentgate/mcp/wire"
)

func init() {
	register(&command{
		name:    "guard",
		summary: "run an MCP server behind a proxy that withholds what agentgate.lock does not pin",
		usage: `Usage: agentgate guard --server NAME [--lockfile PATH] [--on-drift MODE] [--allow-unlocked] -- COMMAND [ARGS...]
       agentgate guard --server NAME --url URL [--header K:V ...] [--transport http|sse]

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

The lockfile is read once, at start: --lockfile, else the repository's
(agentgate.toml's lockfile, default agentgate.lock at the root of the git
work tree containing the working directory; outside git, agentgate.lock in
the working directory).

Exit codes: 0 the client ended the session (it closed stdin, or sent
SIGINT or SIGTERM: guard stopped the server) or the server exited with
status 0; 2 bad flags, no lockfile, a damaged
lockfile, or a server the lockfile does not lock (unless --allow-unlocked);
3 the server did not start or ended the session (its stderr tail is
printed), agentgate-mcp is missing or of another version.

Examples:
  agentgate guard --server memory -- npx -y @modelcontextprotocol/server-memory@2026.1.26
  agentgate guard --server everything --on-drift block -- node ./server.js
  agentgate guard --server remote --url https://mcp.example.com/mcp --header "Authorization: Bearer ${TOKEN}"`,
		flags: func(fs *flag.FlagSet) {
			fs.String("server", "", "the server's `name` in agentgate.lock (as in the client config)")
			fs.String("lockfile", "", "lockfile `path` (default: the repository's, see above)")
			fs.String("on-drift", "withhold", "what to do with a listing that differs from the lockfile: withhold, block or warn")
			fs.Bool("allow-unlocked", false, "run the server even without a lockfile entry for it (its listings then pass unchecked)")
			fs.String("url", "", "a remote server's `URL` (streamable HTTP, or SSE with --transport sse)")
			fs.Var(new(stringList), "header", "an HTTP header `K:V` for --url (repeatable)")
			fs.String("transport", "", "the remote transport: http or sse (default: streamable HTTP, then SSE on a 4xx other than 401/403)")
		},
		run: runGuard,
	})
}

func runGuard(e *env, fs *flag.FlagSet, args []string) error {
	lockFlag := flagValue[string](fs, "lockfile")
	server := flagValue[string](fs, "server")
	if server == "" {
		return invalid(errors.New("--server is required: the server's name in agentgate.lock"), "run 'agentgate guard -h' for usage")
	}
	lockPath, limits, err := guardLockfile(e, lockFlag, server)
	if err != nil {
		return err
	}
	hargs := []string{"--server", server, "--lockfile", lockPath, "--on-drift", flagValue[string](fs, "on-drift")}
	if flagValue[bool](fs, "allow-unlocked") {
		hargs = append(hargs, "--allow-unlocked")
	}
	hargs = append(hargs, limits...)
	if u := flagValue[string](fs, "url"); u != "" {
		hargs = append(hargs, "--url", u)
	}
	for _, h := range *fs.Lookup("header").Value.(*stringList) {
		hargs = append(hargs, "--header", h)
	}
	if t := flagValue[string](fs, "transport"); t != "" {
		hargs = append(hargs, "--transport", t)
	}
	if len(args) > 0 {
		hargs = append(append(hargs, "--"), args...)
	}
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
// and returns it absolute with the helper flags for the server's listing
// limits and ignore-members from agentgate.toml. Only agentgate.toml is read: a client
// config guard does not need cannot stop it.
func guardLockfile(e *env, lockFlag, server string) (string, []string, error) {
	repo, err := openGit(e)
	root := e.dir
	switch {
	case err == nil:
		root = repo.Root()
	case !errors.Is(err, gitint.ErrNotRepository):
		return "", nil, classify(ExitUnverified, err)
	}
	var st config.Settings
	if data, rerr := os.ReadFile(filepath.Join(root, config.SettingsFile)); rerr == nil {
		if st, err = config.ParseSettings(config.SettingsFile, data); err != nil {
			return "", nil, classify(ExitInvalid, err)
		}
	} else if !errors.Is(rerr, os.ErrNotExist) {
		return "", nil, invalid(fmt.Errorf("read %s: %v", config.SettingsFile, rerr))
	}
	ws := projectWorkspace(e, repo, root, &config.Project{Root: root, Settings: st}, lockFlag)
	if repo != nil {
		if err := checkLockPath(ws, false); err != nil {
			return "", nil, err
		}
	}
	maxBytes, maxTools := st.MaxListingBytes, st.MaxTools
	var limits []string
	if ss, ok := st.Servers[server]; ok {
		for _, m := range ss.IgnoreMembers {
			limits = append(limits, "--ignore-member", m)
		}
		if ss.MaxListingBytes > 0 {
			maxBytes = ss.MaxListingBytes
		}
		if ss.MaxTools > 0 {
			maxTools = ss.MaxTools
		}
	}
	if maxBytes > 0 {
		limits = append(limits, "--max-listing-bytes", strconv.FormatInt(maxBytes, 10))
	}
	if maxTools > 0 {
		limits = append(limits, "--max-tools", strconv.Itoa(maxTools))
	}
	return ws.lockPath, limits, nil
}
