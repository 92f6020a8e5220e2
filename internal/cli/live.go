package cli

// live.go: the commands' side of the drift engine (internal/check): open
// the repository, settle the capture options from flags, environment and
// agentgate.toml, run the capture (behind --trusted-ref), and print what
// it found.

import (
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentgate/agentgate/gitint"
	"github.com/agentgate/agentgate/internal/check"
	"github.com/agentgate/agentgate/internal/safetext"
	"github.com/agentgate/agentgate/lock"
	"github.com/agentgate/agentgate/mcp/config"
	"github.com/agentgate/agentgate/mcp/wire"
)

// engine is e as the drift engine sees it: agentgate-mcp runs that
// answered are waited for when the command returns (env.waitHelpers).
func (e *env) engine() check.Env {
	return check.Env{Ctx: e.ctx, Dir: e.dir, Getenv: e.getenv, Lookup: e.lookup, Version: Version(),
		Detach: func(wait func() error) { e.helpers = append(e.helpers, wait) }}
}

// openRepo finds the git repository containing e.dir. Outside one it fails
// with exit class 2 when needGit, and otherwise prints a notice and returns
// a nil repo with e.dir as the root. Any other git failure is class 3.
func openRepo(e *env, needGit bool, cmd string) (*gitint.Repo, string, error) {
	repo, err := openGit(e)
	if err == nil {
		return repo, repo.Root(), nil
	}
	if errors.Is(err, gitint.ErrNotRepository) {
		if needGit {
			return nil, "", invalid(fmt.Errorf("%s needs a git repository, and %s is not in one", cmd, e.dir),
				"run it inside the repository's work tree",
				"outside git, 'agentgate lock' and 'agentgate verify --lockfile PATH' work")
		}
		fmt.Fprintf(e.stderr, "agentgate: not in a git repository; using %s\n", safetext.VisibleLine(e.dir))
		return nil, e.dir, nil
	}
	return nil, "", classify(ExitUnverified, err)
}

// openGit opens the repository containing e.dir (gitint.Open), to be
// closed when the command returns.
func openGit(e *env) (*gitint.Repo, error) {
	repo, err := gitint.Open(e.dir)
	if err == nil {
		e.repos = append(e.repos, repo)
	}
	return repo, err
}

// openWorkspace is openRepo then check.LoadWorkspace.
func openWorkspace(e *env, needGit, load bool, lockFlag, cmd string) (*check.Workspace, error) {
	repo, root, err := openRepo(e, needGit, cmd)
	if err != nil {
		return nil, err
	}
	return check.LoadWorkspace(e.dir, repo, root, load, lockFlag)
}

// openWorkspaceFor is openWorkspace with the lockfile path checked
// (checkLockPath) for a command that writes it (writes) or reads it.
func openWorkspaceFor(e *env, needGit, load bool, lockFlag, cmd string, writes bool) (*check.Workspace, error) {
	ws, err := openWorkspace(e, needGit, load, lockFlag, cmd)
	if err != nil {
		return nil, err
	}
	return ws, checkLockPath(ws, writes)
}

// absFromDir is path made absolute relative to the working directory.
func absFromDir(e *env, path string) string { return check.AbsFrom(e.dir, path) }

// printSkipped tells, on stderr, which configured servers are not locked,
// and that no client config was found at all (an empty lockfile is then
// correct, but seldom what the user meant).
func printSkipped(e *env, p *config.Project) {
	if len(p.Files) == 0 {
		fmt.Fprintf(e.stderr, "agentgate: no MCP client config found in %s (looked for %s); add extra files in agentgate.toml\n",
			safetext.VisibleLine(p.Root), strings.Join(config.ConfigGlobs(), ", "))
	}
	for _, s := range p.Skipped {
		fmt.Fprintf(e.stderr, "agentgate: skipping server %s (%s): %s\n", safetext.Quote(s.Name), safetext.VisibleLine(s.File), safetext.VisibleLine(s.Reason))
	}
}

// captureFlags registers the flags of every command that starts servers.
func captureFlags(fs *flag.FlagSet) {
	fs.Duration("timeout", 0, fmt.Sprintf("per-server `duration` for start, handshake and listing (default: AGENTGATE_TIMEOUT, agentgate.toml's timeout, else %ds)", int(wire.DefaultTimeout.Seconds())))
	fs.Int("concurrency", 0, fmt.Sprintf("how many servers to capture at once (default: agentgate.toml's concurrency, else %d)", wire.DefaultConcurrency))
	fs.String("trusted-ref", "", "start only servers defined and resolved identically, with identical files, at this git `revision`, e.g. origin/main (default: "+check.TrustedRefEnv+"; see docs/SECURITY.md)")
}

// captureOptions settles the capture options: flag > AGENTGATE_TIMEOUT >
// agentgate.toml > capture's defaults.
func captureOptions(e *env, fs *flag.FlagSet, s config.Settings) (wire.Options, error) {
	var o wire.Options
	o.Timeout = s.Timeout
	if v := e.getenv("AGENTGATE_TIMEOUT"); v != "" {
		d, err := parseTimeout(v)
		if err != nil {
			return o, invalid(fmt.Errorf("environment variable AGENTGATE_TIMEOUT=%q: %v", v, err),
				"give a duration such as 30s or 2m, or a number of seconds")
		}
		o.Timeout = d
	}
	if d := flagValue[time.Duration](fs, "timeout"); d != 0 {
		if d < 0 {
			return o, invalid(fmt.Errorf("--timeout %v: must be positive", d), "give a duration such as 30s or 2m")
		}
		o.Timeout = d
	}
	o.Concurrency = s.Concurrency
	o.MaxListingBytes, o.MaxTools = s.MaxListingBytes, s.MaxTools
	if n := flagValue[int](fs, "concurrency"); n != 0 {
		if n < 0 {
			return o, invalid(fmt.Errorf("--concurrency %d: must be at least 1", n))
		}
		o.Concurrency = n
	}
	if e.isTTY(e.stderr) {
		o.Progress = e.stderr
	}
	// A slow server is named on stderr, terminal or not (CI logs).
	o.Waiting, o.WaitAfter = e.stderr, e.waitAfter
	// A browser login needs a person at a terminal, outside CI.
	o.Interactive = e.isTTY(os.Stdin) && e.isTTY(e.stderr) && e.getenv("CI") == ""
	return o, nil
}

// parseTimeout accepts a Go duration ("30s") or a number of seconds ("30").
func parseTimeout(v string) (time.Duration, error) {
	if n, err := strconv.ParseFloat(v, 64); err == nil {
		if n <= 0 {
			return 0, errors.New("must be positive")
		}
		return time.Duration(n * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, errors.New("not a duration")
	}
	if d <= 0 {
		return 0, errors.New("must be positive")
	}
	return d, nil
}

// flagValue returns the value of fs's flag name.
func flagValue[T any](fs *flag.FlagSet, name string) T {
	var zero T
	f := fs.Lookup(name)
	if f == nil {
		return zero
	}
	v, _ := f.Value.(flag.Getter).Get().(T)
	return v
}

// trustedRef is --trusted-ref when given, else AGENTGATE_TRUSTED_REF, else "".
func trustedRef(e *env, flagValue string) string {
	if flagValue != "" {
		return flagValue
	}
	return e.getenv(check.TrustedRefEnv)
}

// guardedCapture is check.CaptureServers behind the --trusted-ref guard:
// with a trusted revision, servers check.TrustFilter refuses are never
// started and are reported like servers that failed, and the others start
// as defined and resolved at the trusted revision, with its
// agentgate.toml's options. What the capture found is printed to stderr
// (printCapture); the callers warn about hidden characters (warnHidden),
// knowing what is locked.
func guardedCapture(e *env, fs *flag.FlagSet, ws *check.Workspace, servers []config.Server, opts wire.Options) (*check.Live, error) {
	ref := trustedRef(e, flagValue[string](fs, "trusted-ref"))
	if ref == "" {
		l := check.CaptureServers(e.engine(), ws.Project, servers, opts)
		printCapture(e, l)
		return l, nil
	}
	ok, refused, settings, err := check.TrustFilter(e.engine(), ws, ref, servers)
	if err != nil {
		return nil, err
	}
	packages, root := opts.Packages, opts.Root
	if opts, err = captureOptions(e, fs, settings); err != nil {
		return nil, err
	}
	opts.Packages, opts.Root = packages, root
	l := check.CaptureResolved(e.engine(), ok, refused, opts)
	printCapture(e, l)
	return l, nil
}

// printCapture prints, on stderr, what a capture found besides the
// surfaces: agentgate-mcp's own failure, each server that listed no tools,
// and every failure (sorted by server).
func printCapture(e *env, l *check.Live) {
	if l.Helper != nil {
		printHelperError(e, l.Helper)
	}
	for _, s := range l.NoTools {
		fmt.Fprintf(e.stderr, "agentgate: warning: server %s (%s) listed no tools\n", safetext.Quote(s.Name), safetext.VisibleLine(check.Where(s)))
	}
	for _, f := range l.Failures {
		printFailure(e, f)
	}
}

// toV2 is l.ToV2, printing each server that could not be pinned.
func toV2(e *env, l *check.Live, p *config.Project) {
	for _, f := range l.ToV2(p) {
		printFailure(e, f)
	}
}

// printFailure prints one failure to stderr: server, file, what happened,
// the server's stderr tail and the hints.
func printFailure(e *env, f check.Failure) {
	fmt.Fprintf(e.stderr, "agentgate: error: server %s (%s): could not verify: %s\n",
		safetext.Quote(f.Server), safetext.VisibleLine(f.File), safetext.VisibleLine(f.Msg))
	if tail := strings.TrimRight(f.Stderr, "\n"); tail != "" {
		fmt.Fprintf(e.stderr, "agentgate:   server stderr (last lines):\n")
		for _, line := range strings.Split(tail, "\n") {
			fmt.Fprintf(e.stderr, "agentgate:   | %s\n", safetext.VisibleLine(line))
		}
	}
	printHints(e.stderr, f.Hints)
}

// warnHidden warns, on stderr, about each tool name and description with
// hidden or direction-changing characters that prev (nil: none) does not
// already lock as it is now: a new tool's name, a new or changed
// description. Text that is locked unchanged was warned about when it was
// new; 'agentgate verify' lists it.
func warnHidden(e *env, l *check.Live, prev *lock.Lockfile) {
	for _, server := range slices.Sorted(maps.Keys(l.Defs)) {
		old := map[string]lock.Tool{}
		if ps, ok := check.PrevServer(prev, server); ok {
			for _, t := range ps.Tools {
				old[t.Name] = t
			}
		}
		live := map[string]lock.Tool{}
		for _, t := range l.Servers[server].Tools {
			live[t.Name] = t
		}
		warnSuspicious(e, server, l.Defs[server], func(name string, description bool) bool {
			o, ok := old[name]
			return ok && (!description || o.DescriptionHash == live[name].DescriptionHash)
		})
	}
}

// warnSuspicious warns about tool names and descriptions with hidden or
// direction-changing characters, showing the text escaped; locked(name,
// description) says the tool's name (or its description) is locked as it
// is, and then is not warned about.
func warnSuspicious(e *env, server string, defs map[string]lock.ToolDef, locked func(name string, description bool) bool) {
	for _, name := range slices.Sorted(maps.Keys(defs)) {
		d := defs[name]
		if kinds := safetext.Suspicious(d.Name); len(kinds) > 0 && !locked(d.Name, false) {
			fmt.Fprintf(e.stderr, "agentgate: warning: server %s tool %s: name contains %s: %s\n",
				safetext.Quote(server), safetext.Quote(d.Name), strings.Join(kinds, ", "), safetext.Quote(d.Name))
		}
		if d.Description != nil && !locked(d.Name, true) {
			if kinds := safetext.Suspicious(*d.Description); len(kinds) > 0 {
				fmt.Fprintf(e.stderr, "agentgate: warning: server %s tool %s: description contains %s: %s\n",
					safetext.Quote(server), safetext.Quote(d.Name), strings.Join(kinds, ", "), safetext.Quote(*d.Description))
			}
		}
	}
}
