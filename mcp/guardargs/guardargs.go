// Package guardargs is the one definition of `agentgate guard`'s command
// line (GuardArgs: its flags, how they parse, what guard refuses, the argv
// agentgate wrap writes), of the wrapper agentgate sees through
// (RunsAgentgate, Program) and of the environment variables that choose
// agentgate's own binaries (OwnVariable). It sits below mcp/config, which
// reads wrapped client config entries with it, and mcp/configedit, which
// writes them.
package guardargs

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/agentgate/agentgate/mcp/config/syntax"
)

// Three parsers read guard's command line and all three go through here,
// so they accept and refuse the same argv: agentgate guard itself
// (internal/cli registers the flags with Register and checks them with
// Check), agentgate-mcp guard, which agentgate runs with the argv Argv
// writes (mcp/guard.Serve, with ParseGuardArgs), and the see-through that
// reads a wrapped client config entry back as the server it runs
// (mcp/config, also ParseGuardArgs).

// Guard is the `agentgate guard` wrapper that `agentgate wrap` puts around
// a server entry: the entry's command is agentgate and its args are
// "guard" and a command line GuardArgs describes,
//
//	guard --server NAME [--lockfile PATH] [--on-drift MODE] [OPTIONS] -- COMMAND ARGS...
//
// for a stdio server, and
//
//	guard --server NAME [--lockfile PATH] [--on-drift MODE] [OPTIONS] --url URL [--header K:V ...] [--transport http|sse]
//
// for a remote one. Guard holds the options that are not the server.
type Guard struct {
	Server        string `json:"server,omitempty"` // --server: the lockfile entry guard checks against
	Lockfile      string `json:"lockfile,omitempty"`
	OnDrift       string `json:"onDrift,omitempty"`
	AllowUnlocked bool   `json:"allowUnlocked,omitempty"`
	// AllowUnpinnedPackage (--allow-unpinned-package) starts a command
	// that runs another package than the lockfile pins, with a warning,
	// instead of refusing it (mcp/guard, runpkg.go).
	AllowUnpinnedPackage bool     `json:"allowUnpinnedPackage,omitempty"`
	IgnoreMembers        []string `json:"ignoreMembers,omitempty"`
	MaxListingBytes      int64    `json:"maxListingBytes,omitempty"`
	MaxTools             int      `json:"maxTools,omitempty"`
}

// OnDriftModes are the values of guard's --on-drift, the default first.
var OnDriftModes = []string{"withhold", "block", "warn"}

// GuardArgs is guard's command line after "guard":
//
//	--server NAME [--lockfile PATH] [--on-drift withhold|block|warn] [--allow-unlocked] [--allow-unpinned-package]
//	[--ignore-member PATH ...] [--max-listing-bytes N] [--max-tools N]
//	-- COMMAND [ARGS...]
//
// for a stdio server, and the same options with --url URL [--header
// 'Name: value' ...] [--transport http|sse] instead of the command for a
// remote one. It is parsed with Go's flag package, as every agentgate
// command is: a flag may be written -flag or --flag, a value --flag=value
// or --flag value, a boolean --flag, --flag=true or any value
// strconv.ParseBool reads; a repeated flag's last value counts, except
// --header and --ignore-member, which add one each. Parsing stops at "--"
// or at the first argument that is not a flag; what follows is COMMAND
// and its ARGS, taken as they are (a "--" among them included).
type GuardArgs struct {
	Guard
	URL       string   // --url: a remote server
	Headers   []string // --header values, as given, in order
	Transport string   // --transport: "", "http" or "sse"
	Command   []string // COMMAND ARGS...: a stdio server; nil for none
}

// guardList is a repeatable string flag (--header, --ignore-member).
type guardList struct{ to *[]string }

func (l guardList) String() string {
	if l.to == nil {
		return ""
	}
	return strings.Join(*l.to, ", ")
}
func (l guardList) Set(v string) error { *l.to = append(*l.to, v); return nil }
func (l guardList) Get() any           { return slices.Clone(*l.to) }

// Register defines guard's flags on fs, writing into g, with the help
// texts `agentgate guard -h` prints.
func (g *GuardArgs) Register(fs *flag.FlagSet) {
	fs.StringVar(&g.Server, "server", "", "the server's `name` in agentgate.lock (as in the client config)")
	fs.StringVar(&g.Lockfile, "lockfile", "", "lockfile `path` (default: the repository's, see above)")
	fs.StringVar(&g.OnDrift, "on-drift", "", "what to do with a listing that differs from the lockfile: withhold (the default), block or warn")
	fs.BoolVar(&g.AllowUnlocked, "allow-unlocked", false, "run the server even without a lockfile entry for it (its listings then pass unchecked)")
	fs.BoolVar(&g.AllowUnpinnedPackage, "allow-unpinned-package", false, "start the server even when its command runs another package, version or file than agentgate.lock pins (a warning instead of a refusal)")
	fs.Var(guardList{&g.IgnoreMembers}, "ignore-member", "a tool member `path` left out of the comparison, as agentgate.toml's ignore-members (repeatable; added to agentgate.toml's)")
	fs.Int64Var(&g.MaxListingBytes, "max-listing-bytes", 0, "the largest listing page guard reads, in `bytes` (default: agentgate.toml's max-listing-bytes, else capture's limit)")
	fs.IntVar(&g.MaxTools, "max-tools", 0, "the most tools a listing page may hold (default: agentgate.toml's max-tools, else capture's limit)")
	fs.StringVar(&g.URL, "url", "", "a remote server's `URL` (streamable HTTP, or SSE with --transport sse)")
	fs.Var(guardList{&g.Headers}, "header", "an HTTP header `K:V` for --url (repeatable)")
	fs.StringVar(&g.Transport, "transport", "", "the remote transport: http or sse (default: streamable HTTP, then SSE on a 4xx other than 401/403)")
}

// GuardArgsOf returns the GuardArgs that fs (on which Register defined
// the flags) parsed, with rest (fs.Args()) as the command. It does not
// check them (Check).
func GuardArgsOf(fs *flag.FlagSet, rest []string) GuardArgs {
	get := func(name string) any { return fs.Lookup(name).Value.(flag.Getter).Get() }
	g := GuardArgs{
		Guard: Guard{
			Server: get("server").(string), Lockfile: get("lockfile").(string), OnDrift: get("on-drift").(string),
			AllowUnlocked: get("allow-unlocked").(bool), AllowUnpinnedPackage: get("allow-unpinned-package").(bool), IgnoreMembers: get("ignore-member").([]string),
			MaxListingBytes: get("max-listing-bytes").(int64), MaxTools: get("max-tools").(int),
		},
		URL: get("url").(string), Headers: get("header").([]string), Transport: get("transport").(string),
	}
	if len(rest) > 0 {
		g.Command = slices.Clone(rest)
	}
	return g
}

// GuardUsage is the hint that follows an error about guard's command
// line.
const GuardUsage = "usage: agentgate guard --server NAME [--lockfile PATH] [--on-drift withhold|block|warn] -- COMMAND [ARGS...], " +
	"or for a remote server: agentgate guard --server NAME [...] --url URL [--header 'K: V' ...] [--transport http|sse]"

// GuardArgsError is a command line guard refuses: Msg says what is wrong
// ("--server is required: ..."), Hint what to write instead.
type GuardArgsError struct {
	Msg  string
	Hint string // "" for GuardUsage
}

func (e *GuardArgsError) Error() string { return e.Msg }

// Hints returns the hint, GuardUsage when it has none of its own.
func (e *GuardArgsError) Hints() []string {
	if e.Hint == "" {
		return []string{GuardUsage}
	}
	return []string{e.Hint, GuardUsage}
}

// ErrGuardHelp is ParseGuardArgs' error for -h, -help or --help: guard
// prints its help and runs no server.
var ErrGuardHelp = &GuardArgsError{Msg: "-h asks for guard's help: guard prints it and starts no server"}

// ParseGuardArgs parses args (guard's command line after "guard") as
// guard does and checks them (Check). Every error is a *GuardArgsError.
func ParseGuardArgs(args []string) (GuardArgs, error) {
	fs := flag.NewFlagSet("agentgate guard", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var g GuardArgs
	g.Register(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return g, ErrGuardHelp
		}
		return g, &GuardArgsError{Msg: err.Error()}
	}
	g = GuardArgsOf(fs, fs.Args())
	return g, g.Check()
}

// Check reports what guard refuses in a parsed command line: no
// --server, an unknown --on-drift mode, a negative limit, neither or both
// of --url and a command, an empty command, --header or --transport
// without --url, an unknown --transport, a --header that is not
// 'Name: value' or names a header twice. The error is a *GuardArgsError.
func (g GuardArgs) Check() error {
	bad := func(msg, hint string) error { return &GuardArgsError{Msg: msg, Hint: hint} }
	switch {
	case g.Server == "":
		return bad("--server is required: the server's name in agentgate.lock", "")
	case g.OnDrift != "" && !slices.Contains(OnDriftModes, g.OnDrift):
		return bad(fmt.Sprintf("--on-drift %q: want withhold, block or warn", g.OnDrift), "")
	case slices.ContainsFunc(g.IgnoreMembers, func(m string) bool { return !ValidMemberPath(m) }):
		i := slices.IndexFunc(g.IgnoreMembers, func(m string) bool { return !ValidMemberPath(m) })
		return bad(fmt.Sprintf("--ignore-member %q: bad member path", g.IgnoreMembers[i]),
			`name a member of a definition as agentgate diff shows it, e.g. --ignore-member _meta or --ignore-member annotations.title ("name" cannot be ignored)`)
	case g.MaxListingBytes < 0:
		return bad(fmt.Sprintf("--max-listing-bytes %d: want a positive number of bytes", g.MaxListingBytes), "leave it out for the default")
	case g.MaxTools < 0:
		return bad(fmt.Sprintf("--max-tools %d: want a positive number of tools", g.MaxTools), "leave it out for the default")
	case g.URL == "" && g.Command == nil:
		return bad("no server to start: give its command after --, or --url for a remote server", "")
	case g.URL != "" && g.Command != nil:
		return bad("give either --url or a command after --, not both", "")
	case g.Command != nil && g.Command[0] == "":
		return bad("the server's command (the first argument after the flags) is empty", "")
	case g.URL == "" && (len(g.Headers) > 0 || g.Transport != ""):
		return bad("--header and --transport go with --url", "")
	}
	if _, _, err := RemoteTransport(g.Transport); err != nil {
		return bad("--transport: "+err.Msg, err.Hint)
	}
	if _, err := HeaderFlags(g.Headers); err != nil {
		return bad("--header: "+err.Msg, err.Hint)
	}
	return nil
}

// ValidMemberPath reports whether m can name members of a tool
// definition to ignore (agentgate.toml's ignore-members, guard's
// --ignore-member): not empty, not "name", no leading or trailing dot.
func ValidMemberPath(m string) bool {
	return m != "" && m != "name" && !strings.HasPrefix(m, ".") && !strings.HasSuffix(m, ".")
}

// Mode is the --on-drift mode, the default (withhold) when none is given.
func (g GuardArgs) Mode() string {
	if g.OnDrift == "" {
		return OnDriftModes[0]
	}
	return g.OnDrift
}

// Argv is the command line that parses back as g (after "guard"), in the
// order agentgate wrap writes it: --server, --lockfile, --on-drift,
// --allow-unlocked, --allow-unpinned-package, --ignore-member, --max-listing-bytes, --max-tools,
// --url, --header, --transport, then "--" and the command. Flags at
// their zero value are left out.
func (g GuardArgs) Argv() []string {
	args := []string{"--server", g.Server}
	add := func(flag, v string) {
		if v != "" {
			args = append(args, flag, v)
		}
	}
	add("--lockfile", g.Lockfile)
	add("--on-drift", g.OnDrift)
	if g.AllowUnlocked {
		args = append(args, "--allow-unlocked")
	}
	if g.AllowUnpinnedPackage {
		args = append(args, "--allow-unpinned-package")
	}
	for _, m := range g.IgnoreMembers {
		args = append(args, "--ignore-member", m)
	}
	if g.MaxListingBytes != 0 {
		add("--max-listing-bytes", strconv.FormatInt(g.MaxListingBytes, 10))
	}
	if g.MaxTools != 0 {
		add("--max-tools", strconv.Itoa(g.MaxTools))
	}
	add("--url", g.URL)
	for _, h := range g.Headers {
		args = append(args, "--header", h)
	}
	add("--transport", g.Transport)
	if g.Command != nil {
		args = append(append(args, "--"), g.Command...)
	}
	return args
}

// FlagError is what is wrong with one flag value (HeaderFlags,
// RemoteTransport): not an error itself, for the caller to make one that
// says where (the command line, a config entry).
type FlagError struct{ Msg, Hint string }

// RemoteTransport reads a --transport value (guard's, agentgate-mcp
// bridge's): "" is streamable HTTP falling back to SSE on a 4xx other
// than 401/403, "http" streamable HTTP only, "sse" the legacy HTTP+SSE
// transport. t is "http" or "sse", as config.Transport spells the two
// (config.StreamableHTTP, config.SSE; mcp/config's tests hold them to it).
func RemoteTransport(v string) (t string, fallbackSSE bool, err *FlagError) {
	switch v {
	case "":
		return "http", true, nil
	case "http":
		return "http", false, nil
	case "sse":
		return "sse", false, nil
	}
	return "", false, &FlagError{Msg: fmt.Sprintf("unknown transport %q", v),
		Hint: "use --transport http (streamable HTTP) or --transport sse (legacy SSE), or leave it out"}
}

// HeaderFlags reads --header values ("Name: value", blanks around the
// name and the value trimmed) into a map, refusing a value without ":",
// a name that is not an HTTP field name (RFC 9110 token), and a name
// given twice in any case (both would be sent under one name, the value
// picked at random).
func HeaderFlags(hs []string) (map[string]string, *FlagError) {
	var m map[string]string
	for _, h := range hs {
		k, v, ok := strings.Cut(h, ":")
		k = strings.TrimSpace(k)
		if !ok || !ValidHeaderName(k) {
			return nil, &FlagError{Msg: fmt.Sprintf("%q is not Name:value", h), Hint: "write each header as --header 'Name: value'"}
		}
		for have := range m {
			if strings.EqualFold(have, k) {
				return nil, &FlagError{Msg: fmt.Sprintf("header %q is given twice", k), Hint: "give each header once"}
			}
		}
		if m == nil {
			m = map[string]string{}
		}
		m[k] = strings.TrimSpace(v)
	}
	return m, nil
}

// ValidHeaderName reports whether k is an HTTP field name (RFC 9110
// token).
func ValidHeaderName(k string) bool {
	if k == "" {
		return false
	}
	for _, c := range []byte(k) {
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return true
}

// Program is the command of every wrapper agentgate wrap writes, and the
// only command agentgate sees through (RunsAgentgate).
const Program = "agentgate"

// RunsAgentgate reports whether a stdio entry with this command and
// configured environment (the names its env sets, whatever their values)
// runs the real agentgate: the one definition of the wrapper agentgate
// sees through, used by every command (lock, diff, ci, verify, pin,
// servers, the hook, wrap, unwrap) and by --trusted-ref. It does when
//
//   - command is exactly "agentgate": the bare name, which the client
//     looks up in the PATH it was started with, the user's own, where the
//     user installed agentgate. A path ("tools/agentgate",
//     "./agentgate", "/usr/local/bin/agentgate") is a file the repository
//     or the machine chooses, and "agentgate.exe" or "AgentGate" another
//     name; and
//   - env does not set PATH (in any case: Windows reads Path as PATH),
//     which the client would look the name up in instead.
//
// Any other entry, "guard" in its args or not, is checked as the program
// it is: agentgate starts what the client starts.
func RunsAgentgate(command string, env []string) bool {
	return command == Program && !slices.ContainsFunc(env, func(k string) bool { return strings.EqualFold(k, "PATH") })
}

// OwnVariables are the environment variables agentgate and agentgate-mcp
// read for their own settings: where the helper is (AGENTGATE_MCP), where
// tokens are kept, a timeout, a trusted revision.
var OwnVariables = []string{"AGENTGATE_MCP", "AGENTGATE_TIMEOUT", "AGENTGATE_TOKEN_STORE", "AGENTGATE_TRUSTED_REF"}

// OwnVariable reports whether an environment variable, set in the env of
// an entry agentgate sees through (which is agentgate guard's
// environment), would choose agentgate's own binaries, code or settings
// in the client's session: one of OwnVariables (AGENTGATE_MCP replaces
// guard's helper), or one of the dynamic loader's LD_ and DYLD_ variables
// (code loaded into agentgate, or where its libraries come from). Names
// are compared in upper case, as Windows reads them.
func OwnVariable(name string) bool {
	n := strings.ToUpper(name)
	return slices.Contains(OwnVariables, n) || strings.HasPrefix(n, "LD_") || strings.HasPrefix(n, "DYLD_")
}

// Wrapper reads a stdio entry (its command, args and the names its env
// sets, whatever their values) as the guard wrapper, with guard's own
// parser (ParseGuardArgs), so that every wrapper reads as guard would run
// it and what guard refuses is refused. ok is false when it is not one:
// it does not run the real agentgate (RunsAgentgate), or its first
// argument is not "guard"; err (wrapping a *GuardArgsError) says what
// guard would refuse.
func Wrapper(command string, args, env []string) (g GuardArgs, ok bool, err error) {
	if !RunsAgentgate(command, env) || len(args) == 0 || args[0] != "guard" {
		return g, false, nil
	}
	g, err = ParseGuardArgs(args[1:])
	if err != nil {
		return g, true, fmt.Errorf("agentgate guard would refuse it: %w", err)
	}
	return g, true, nil
}

// OwnVariableProblem is what is wrong with variable name (OwnVariable)
// set in the env of the wrapper of server, and what to do instead: the
// message and hint of the error that names the entry.
func OwnVariableProblem(server, name string) (msg, hint string) {
	return fmt.Sprintf("the entry's environment chooses agentgate's own binaries or settings: %s would apply to agentgate guard in the client's session, "+
			"while agentgate's own commands check the server without it", name),
		fmt.Sprintf("remove %s from the entry's env; if the server needs it, set it after %q: agentgate guard --server %s -- env %s=VALUE COMMAND ARGS...",
			name, "--", syntax.ShellQuote(server), name)
}

// Unlike compares g, a wrapper's options, with what agentgate wrap writes
// for the entry locked as server in a repository whose agentgate.toml
// moves the lockfile to lockfile ("" when it does not): --server server;
// --lockfile absent or lockfile; --on-drift absent, withhold or block (wrap
// --on-drift block writes it; warn forwards drift, protecting nothing);
// no --allow-unlocked, --allow-unpinned-package, --ignore-member,
// --max-listing-bytes or --max-tools (their settings belong in
// agentgate.toml, where lock, the hook and ci apply them too). It returns the first option that differs, as guard's
// command line would say it ("--on-drift warn"), and why it matters; ""
// when g is what wrap writes.
func (g Guard) Unlike(server, lockfile string) (flag, why string) {
	inToml := func(key string) string {
		return fmt.Sprintf("guard would check the session differently from lock, the hook and ci; set %s in agentgate.toml ([servers.%s]), which all of them apply", key, syntax.TOMLKey(server))
	}
	switch {
	case g.Server != server:
		return "--server " + g.Server, fmt.Sprintf("guard would check the server against the lockfile entry %q, not its own (%q)", g.Server, server)
	case g.Lockfile != "" && g.Lockfile != lockfile:
		return "--lockfile " + g.Lockfile, "guard would check the session against another lockfile than the one lock, the hook and ci check"
	case g.OnDrift == "warn":
		return "--on-drift warn", "guard would forward drifted and unknown tools, protecting nothing"
	case g.AllowUnlocked:
		return "--allow-unlocked", "guard would run the server unchecked when the lockfile does not lock it"
	case g.AllowUnpinnedPackage:
		return "--allow-unpinned-package", "guard would start the server even when its command runs another package, version or file than the lockfile pins; set allow-unpinned-package in agentgate.toml ([servers." + syntax.TOMLKey(server) + "]) if that is wanted, where reviewers see it"
	case len(g.IgnoreMembers) > 0:
		return "--ignore-member " + g.IgnoreMembers[0], inToml("ignore-members")
	case g.MaxListingBytes != 0:
		return fmt.Sprintf("--max-listing-bytes %d", g.MaxListingBytes), inToml("max-listing-bytes")
	case g.MaxTools != 0:
		return fmt.Sprintf("--max-tools %d", g.MaxTools), inToml("max-tools")
	}
	return "", ""
}
