package cli

// live.go is the pipeline lock, diff, ci and hook share: find the
// repository root, load the client configs, resolve and capture every
// server, decode and hash what each one listed, and collect every failure
// (never stopping at the first).

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentgate/agentgate/mcp/config/syntax"

	"github.com/agentgate/agentgate/gitint"
	"github.com/agentgate/agentgate/internal/safetext"
	"github.com/agentgate/agentgate/lock"
	"github.com/agentgate/agentgate/mcp/config"
	"github.com/agentgate/agentgate/mcp/wire"
)

// workspace is where a command works.
type workspace struct {
	repo     *gitint.Repo    // nil outside a git repository
	root     string          // absolute: the work tree's top, or the working directory outside git
	project  *config.Project // nil when the configs were not loaded
	lockPath string          // absolute
	lockRel  string          // slash-separated, relative to root (as given when outside root)
	// lockFromFlag: --lockfile named it (the user did, not a file a pull
	// request can edit); see checkLockPath.
	lockFromFlag bool
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

// newWorkspace makes the workspace of repo (nil outside git) at root,
// loads the configs when load is true, and settles the lockfile path:
// lockFlag (relative to the working directory) > agentgate.toml's lockfile
// (relative to the root) > <root>/agentgate.lock.
func newWorkspace(e *env, repo *gitint.Repo, root string, load bool, lockFlag string) (*workspace, error) {
	var p *config.Project
	if load {
		var err error
		if p, err = config.Load(root); err != nil {
			return nil, classify(ExitInvalid, err)
		}
	}
	return projectWorkspace(e, repo, root, p, lockFlag), nil
}

// openWorkspaceFor is openWorkspace with the lockfile path checked
// (checkLockPath) for a command that writes it (writes) or reads it.
func openWorkspaceFor(e *env, needGit, load bool, lockFlag, cmd string, writes bool) (*workspace, error) {
	ws, err := openWorkspace(e, needGit, load, lockFlag, cmd)
	if err != nil {
		return nil, err
	}
	return ws, checkLockPath(ws, writes)
}

// projectWorkspace makes the workspace of repo at root with the project p
// (nil: not loaded), and settles the lockfile path as newWorkspace does.
func projectWorkspace(e *env, repo *gitint.Repo, root string, p *config.Project, lockFlag string) *workspace {
	ws := &workspace{repo: repo, root: root, project: p}
	switch {
	case lockFlag != "":
		ws.lockPath = absFromDir(e, lockFlag)
		ws.lockFromFlag = true
	case ws.project != nil && ws.project.Settings.Lockfile != "":
		ws.lockPath = filepath.Join(root, filepath.FromSlash(ws.project.Settings.Lockfile))
	default:
		ws.lockPath = filepath.Join(root, lock.FileName)
	}
	ws.lockPath = filepath.Clean(ws.lockPath)
	ws.lockRel = filepath.ToSlash(ws.lockPath)
	if rel, err := filepath.Rel(root, ws.lockPath); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		ws.lockRel = filepath.ToSlash(rel)
	}
	return ws
}

// printSkipped tells, on stderr, which configured servers are not locked,
// and that no client config was found at all (an empty lockfile is then
// correct, but seldom what the user meant).
func printSkipped(e *env, p *config.Project) {
	if len(p.Files) == 0 {
		fmt.Fprintf(e.stderr, "agentgate: no MCP client config found in %s (looked for %s); add extra files in agentgate.toml\n",
			safetext.VisibleLine(p.Root), strings.Join(config.ConfigGlobs(), ", "))
	}
	for _, s := range p.Skipped {
		fmt.Fprintf(e.stderr, "agentgate: skipping server %s (%s): %s\n", quoteVisible(s.Name), safetext.VisibleLine(s.File), safetext.VisibleLine(s.Reason))
	}
}

// readLockfile reads and strictly parses the lockfile at path. exists is
// false when there is no file; a damaged one is exit class 2.
func readLockfile(path, display string) (lf *lock.Lockfile, data []byte, exists bool, err error) {
	data, err = os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, false, nil
	}
	if err != nil {
		return nil, nil, false, invalid(fmt.Errorf("read %s: %v", display, err))
	}
	lf, err = parseLockfile(data, display)
	return lf, data, true, err
}

// parseLockfile parses data, naming display in the error. The hint for a
// damaged file names --force, since lock refuses to overwrite it without.
func parseLockfile(data []byte, display string) (*lock.Lockfile, error) {
	lf, err := lock.Parse(data)
	if err != nil {
		hint := "agentgate writes this file; if it was edited by hand or damaged (by a merge?), regenerate it with 'agentgate lock --force' and review the diff"
		if errors.As(err, new(*lock.VersionError)) {
			hint = hintOf(err, "")
		}
		return nil, invalid(fmt.Errorf("%s: %w", display, err), hint)
	}
	return lf, nil
}

// captureFlags registers the flags of every command that starts servers.
func captureFlags(fs *flag.FlagSet) {
	fs.Duration("timeout", 0, fmt.Sprintf("per-server `duration` for start, handshake and listing (default: AGENTGATE_TIMEOUT, agentgate.toml's timeout, else %ds)", int(wire.DefaultTimeout.Seconds())))
	fs.Int("concurrency", 0, fmt.Sprintf("how many servers to capture at once (default: agentgate.toml's concurrency, else %d)", wire.DefaultConcurrency))
	fs.String("trusted-ref", "", "start only servers defined and resolved identically, with identical files, at this git `revision`, e.g. origin/main (default: "+trustedRefEnv+"; see docs/SECURITY.md)")
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

// failure is one server that could not be verified.
type failure struct {
	server string
	file   string // where the server is configured
	code   int    // ExitUnverified, or ExitInvalid for a definition that cannot be resolved
	msg    string // redacted
	stderr string // redacted tail of a stdio server's stderr
	hints  []string
}

// live is what a capture run produced.
type live struct {
	servers map[string]lock.Server // every server captured and hashed
	// defs is server -> tool name -> definition, as agentgate-mcp passes
	// it on: as sent, except that a tool whose text echoed a credential
	// comes redacted, with the hashes of what was sent (ToolDef.Sent;
	// mcp/capture's redactResult), so these are what agentgate displays.
	defs     map[string]map[string]lock.ToolDef
	elapsed  map[string]time.Duration
	failures []failure // sorted by server

	raw   map[string]wire.Result // what each captured server listed, for toV2
	files map[string]string      // where each server is configured
}

// captureServers resolves and captures servers, hashing what each listed.
// Every failure is collected in the result and printed to stderr; the
// callers warn about hidden characters (warnHidden), knowing what is locked.
func captureServers(e *env, p *config.Project, servers []config.Server, opts wire.Options) *live {
	var resolved []config.Resolved
	var failures []failure
	for _, s := range servers {
		r, f := resolveServer(e, p, s)
		if f != nil {
			failures = append(failures, *f)
			continue
		}
		resolved = append(resolved, r)
	}
	return captureResolved(e, resolved, failures, opts)
}

// resolveServer resolves s's variables against p, or returns the failure
// to report (exit class 3 for a value that is missing here, 2 for a
// definition that cannot be resolved anywhere).
func resolveServer(e *env, p *config.Project, s config.Server) (config.Resolved, *failure) {
	r, err := p.Resolve(s, e.lookup)
	if err != nil {
		code := ExitInvalid
		var ce *config.Error
		if errors.As(err, &ce) && ce.Unverifiable {
			code = ExitUnverified
		}
		msg, hints := err.Error(), hintsOf(err)
		return r, &failure{server: s.Name, file: s.File, code: code, msg: msg, hints: hints}
	}
	return r, nil
}

// captureResolved captures resolved servers (failures holds those that
// failed before capture), as captureServers describes.
func captureResolved(e *env, resolved []config.Resolved, failures []failure, opts wire.Options) *live {
	l := &live{
		servers:  map[string]lock.Server{},
		defs:     map[string]map[string]lock.ToolDef{},
		elapsed:  map[string]time.Duration{},
		failures: failures,
		raw:      map[string]wire.Result{},
		files:    map[string]string{},
	}
	byName := map[string]config.Server{}
	for _, r := range resolved {
		byName[r.Name] = r.Server
	}
	redact := func(s string) string {
		for _, r := range resolved {
			s = r.Redact(s)
		}
		return s
	}
	ctx := e.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	var results []wire.Result
	if len(resolved) > 0 {
		var he *wire.HelperError
		if results, he = runHelper(e, ctx, resolved, opts); he != nil {
			for _, r := range resolved {
				l.failures = append(l.failures, helperFailure(e, byName[r.Name], he))
			}
		}
	}
	for _, res := range results {
		s := byName[res.Server]
		l.elapsed[res.Server] = res.Elapsed
		if res.Err != nil {
			text := res.Err.Error()
			var hints []string
			var ce *wire.Error
			if errors.As(res.Err, &ce) {
				text = string(ce.Stage) + ": " + ce.Msg // server and file are printed anyway
				for _, h := range ce.Hints {
					hints = append(hints, redact(h))
				}
			}
			if res.StderrTail != "" {
				// the tail is printed in full below the message
				text, _, _ = strings.Cut(text, "; stderr tail: ")
			}
			msg := redact(text)
			hints = append(hints, captureHint(res.Err, s, opts, res.StderrTail != "")...)
			l.failures = append(l.failures, failure{server: s.Name, file: where(s), code: ExitUnverified,
				msg: msg, stderr: redact(res.StderrTail), hints: hints})
			continue
		}
		// Options.Packages is set exactly for lockfile version 2 (lock,
		// compareLive), whose rules the tools are read under.
		srv, defs, err := decodeServer(res.Tools, res.Sent, opts.Packages)
		if err != nil {
			l.failures = append(l.failures, failure{server: s.Name, file: where(s), code: ExitUnverified,
				msg: "invalid tools/list reply: " + redact(err.Error()),
				hints: []string{hintOf(err, "the server listed tools agentgate cannot pin (see docs/spec/lockfile.md); report it to the server's maintainers"),
					"to lock the other servers meanwhile, disable or exclude this one (see docs/config.md)"}})
			continue
		}
		l.servers[s.Name] = srv
		l.defs[s.Name] = defs
		l.raw[s.Name] = res
		l.files[s.Name] = where(s)
		if len(defs) == 0 {
			fmt.Fprintf(e.stderr, "agentgate: warning: server %s (%s) listed no tools\n", quoteVisible(s.Name), safetext.VisibleLine(where(s)))
		}
	}
	slices.SortFunc(l.failures, func(a, b failure) int { return strings.Compare(a.server, b.server) })
	for _, f := range l.failures {
		printFailure(e, f)
	}
	return l
}

// decodeServer decodes and hashes the raw tools of one server, under
// lockfile version 2's rules when v2 is set (lock.DecodeServerV2: a
// description or schema may hold an unpaired surrogate); the tools sent
// names (redacted by agentgate-mcp) are pinned by the hashes it gives.
func decodeServer(raws []json.RawMessage, sent []wire.Sent, v2 bool) (lock.Server, map[string]lock.ToolDef, error) {
	decode := lock.DecodeServer
	if v2 {
		decode = lock.DecodeServerV2
	}
	srv, defs, err := decode(raws)
	if err != nil {
		return lock.Server{}, nil, err
	}
	redacted := false
	for _, s := range sent {
		if s.List == wire.ListTools && s.Index >= 0 && s.Index < len(defs) {
			defs[s.Index].Sent = &lock.SentHashes{Description: s.DescriptionHash, InputSchema: s.InputSchemaHash, Definition: s.DefinitionHash}
			redacted = true
		}
	}
	if redacted {
		build := lock.BuildServer
		if v2 {
			build = func(defs []lock.ToolDef) (lock.Server, error) { return lock.BuildServerV2(defs, lock.Listing{}, false) }
		}
		if srv, err = build(defs); err != nil {
			return lock.Server{}, nil, err
		}
	}
	byName := make(map[string]lock.ToolDef, len(defs))
	for _, d := range defs {
		byName[d.Name] = d
	}
	return srv, byName, nil
}

// where names the file (and line) that configures s.
func where(s config.Server) string {
	if s.Line > 0 {
		return fmt.Sprintf("%s:%d", s.File, s.Line)
	}
	return s.File
}

// captureHint suggests the fix for a capture error.
func captureHint(err error, s config.Server, o wire.Options, hasStderr bool) []string {
	if errors.Is(err, wire.ErrAuth) {
		return []string{"agentgate auth login " + s.Name,
			"in CI, use a client that needs no browser: grant = \"client_credentials\" in [servers." + s.Name + ".oauth] of agentgate.toml (see docs/AUTH.md)"}
	}
	if errors.Is(err, context.DeadlineExceeded) {
		t := wire.DefaultTimeout.String()
		if o.Timeout > 0 {
			t = o.Timeout.String()
		}
		if s.Timeout > 0 {
			t = s.Timeout.String()
		}
		return []string{fmt.Sprintf("the server did not answer within %s; raise it with --timeout 60s, AGENTGATE_TIMEOUT, or timeout in agentgate.toml (a cold npx start can take over 10s)", t)}
	}
	if errors.Is(err, context.Canceled) {
		return []string{"the run was interrupted; run it again"}
	}
	if errors.Is(err, wire.ErrPackage) {
		return []string{"agentgate could not pin the package this server runs (docs/spec/lockfile-v2.md, Packages; the registry settings it reads: docs/config.md, Package registries); fix what the message names and run again, or exclude the server in agentgate.toml"}
	}
	var we *wire.Error
	if errors.Is(err, wire.ErrTooLarge) && errors.As(err, &we) {
		switch {
		case strings.Contains(we.Msg, "max-listing-bytes"):
			return []string{fmt.Sprintf("if the server really lists this much, raise its limit in agentgate.toml: [servers.%s] max-listing-bytes = \"512MiB\" (default %d MiB)",
				syntax.TOMLKey(s.Name), wire.DefaultMaxListingBytes>>20)}
		case strings.Contains(we.Msg, "max-tools"):
			return []string{fmt.Sprintf("if the server really lists this many tools, raise its limit in agentgate.toml: [servers.%s] max-tools = 50000 (default %d)",
				syntax.TOMLKey(s.Name), wire.DefaultMaxTools)}
		default:
			return []string{fmt.Sprintf("one page of the listing is over %d MiB: the server sends more than any MCP client should read; report it to the server's maintainers, or exclude it in agentgate.toml",
				wire.DefaultMaxResponseBytes>>20)}
		}
	}
	if s.Transport == config.Stdio && hasStderr {
		return []string{"the server's own stderr (last lines) tells why; run the command configured in " + s.File + " by hand, from the repository root, to reproduce"}
	}
	if s.Transport == config.Stdio {
		return []string{fmt.Sprintf("run the command configured in %s by hand, from the repository root, to see why it fails", s.File)}
	}
	return []string{fmt.Sprintf("check that the server at the URL configured in %s is up and reachable from here, and that its headers are set", s.File)}
}

// printFailure prints one failure to stderr: server, file, what happened,
// the server's stderr tail and the hints.
func printFailure(e *env, f failure) {
	fmt.Fprintf(e.stderr, "agentgate: error: server %s (%s): could not verify: %s\n",
		quoteVisible(f.server), safetext.VisibleLine(f.file), safetext.VisibleLine(f.msg))
	if tail := strings.TrimRight(f.stderr, "\n"); tail != "" {
		fmt.Fprintf(e.stderr, "agentgate:   server stderr (last lines):\n")
		for _, line := range strings.Split(tail, "\n") {
			fmt.Fprintf(e.stderr, "agentgate:   | %s\n", safetext.VisibleLine(line))
		}
	}
	printHints(e.stderr, f.hints)
}

// warnHidden warns, on stderr, about each tool name and description with
// hidden or direction-changing characters that prev (nil: none) does not
// already lock as it is now: a new tool's name, a new or changed
// description. Text that is locked unchanged was warned about when it was
// new; 'agentgate verify' lists it.
func (l *live) warnHidden(e *env, prev *lock.Lockfile) {
	for _, server := range slices.Sorted(maps.Keys(l.defs)) {
		old := map[string]lock.Tool{}
		if ps, ok := prevServer(prev, server); ok {
			for _, t := range ps.Tools {
				old[t.Name] = t
			}
		}
		live := map[string]lock.Tool{}
		for _, t := range l.servers[server].Tools {
			live[t.Name] = t
		}
		warnSuspicious(e, server, l.defs[server], func(name string, description bool) bool {
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
				quoteVisible(server), quoteVisible(d.Name), strings.Join(kinds, ", "), quoteVisible(d.Name))
		}
		if d.Description != nil && !locked(d.Name, true) {
			if kinds := safetext.Suspicious(*d.Description); len(kinds) > 0 {
				fmt.Fprintf(e.stderr, "agentgate: warning: server %s tool %s: description contains %s: %s\n",
					quoteVisible(server), quoteVisible(d.Name), strings.Join(kinds, ", "), quoteVisible(*d.Description))
			}
		}
	}
}

// quoteVisible returns s made safe with safetext.Visible, cut to a readable
// length, in double quotes.
func quoteVisible(s string) string {
	v := safetext.VisibleLine(s)
	const max = 400
	if len(v) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(v[cut]) {
			cut--
		}
		v = v[:cut] + "..."
	}
	return `"` + v + `"`
}

// stampNow is the generatedBy/generatedAt stamp: now, or SOURCE_DATE_EPOCH
// when set (see lock.StampNow).
func stampNow(e *env) (lock.Stamp, error) {
	st, err := lock.StampNow(generatedBy(), e.now, e.getenv)
	if err != nil {
		return st, invalid(err, "unset SOURCE_DATE_EPOCH, or set it to an integer such as $(git log -1 --format=%ct)")
	}
	return st, nil
}

// openWorkspace is openRepo then newWorkspace.
func openWorkspace(e *env, needGit, load bool, lockFlag, cmd string) (*workspace, error) {
	repo, root, err := openRepo(e, needGit, cmd)
	if err != nil {
		return nil, err
	}
	return newWorkspace(e, repo, root, load, lockFlag)
}

// absFromDir is path made absolute relative to the working directory.
func absFromDir(e *env, path string) string {
	if filepath.IsAbs(path) {
		return filepath.Clean(path)
	}
	return filepath.Join(e.dir, path)
}
