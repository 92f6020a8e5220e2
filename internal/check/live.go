package check

// live.go is the pipeline lock, diff, ci and hook share: settle the
// workspace, read the lockfile, resolve and capture every server, decode
// and hash what each one listed, and collect every failure (never stopping
// at the first).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agentgate/agentgate/gitint"
	"github.com/agentgate/agentgate/lock"
	"github.com/agentgate/agentgate/mcp/config"
	"github.com/agentgate/agentgate/mcp/wire"
)

// Workspace is where a command works.
type Workspace struct {
	Repo     *gitint.Repo    // nil outside a git repository
	Root     string          // absolute: the work tree's top, or the working directory outside git
	Project  *config.Project // nil when the configs were not loaded
	LockPath string          // absolute
	LockRel  string          // slash-separated, relative to Root (as given when outside Root)
	// LockFromFlag: --lockfile named it (the user did, not a file a pull
	// request can edit).
	LockFromFlag bool
}

// LoadWorkspace makes the workspace of repo (nil outside git) at root,
// loads the configs when load is true (a failure is Invalid), and settles
// the lockfile path as NewWorkspace does.
func LoadWorkspace(dir string, repo *gitint.Repo, root string, load bool, lockFlag string) (*Workspace, error) {
	var p *config.Project
	if load {
		var err error
		if p, err = config.Load(root); err != nil {
			return nil, Classify(Invalid, err)
		}
	}
	return NewWorkspace(dir, repo, root, p, lockFlag), nil
}

// NewWorkspace makes the workspace of repo at root with the project p
// (nil: not loaded), and settles the lockfile path: lockFlag (relative to
// the working directory dir) > agentgate.toml's lockfile (relative to the
// root) > <root>/agentgate.lock.
func NewWorkspace(dir string, repo *gitint.Repo, root string, p *config.Project, lockFlag string) *Workspace {
	ws := &Workspace{Repo: repo, Root: root, Project: p}
	switch {
	case lockFlag != "":
		ws.LockPath = AbsFrom(dir, lockFlag)
		ws.LockFromFlag = true
	case ws.Project != nil && ws.Project.Settings.Lockfile != "":
		ws.LockPath = filepath.Join(root, filepath.FromSlash(ws.Project.Settings.Lockfile))
	default:
		ws.LockPath = filepath.Join(root, lock.FileName)
	}
	ws.LockPath = filepath.Clean(ws.LockPath)
	ws.LockRel = filepath.ToSlash(ws.LockPath)
	if rel, err := filepath.Rel(root, ws.LockPath); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		ws.LockRel = filepath.ToSlash(rel)
	}
	return ws
}

// AbsFrom is path made absolute relative to the directory dir.
func AbsFrom(dir, path string) string {
	if filepath.IsAbs(path) {
		return filepath.Clean(path)
	}
	return filepath.Join(dir, path)
}

// ReadLockfile reads and strictly parses the lockfile at path. exists is
// false when there is no file; a damaged one is Invalid.
func ReadLockfile(path, display string) (lf *lock.Lockfile, data []byte, exists bool, err error) {
	data, err = os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, false, nil
	}
	if err != nil {
		return nil, nil, false, invalid(fmt.Errorf("read %s: %v", display, err))
	}
	lf, err = ParseLockfile(data, display)
	return lf, data, true, err
}

// ParseLockfile parses data, naming display in the error. The hint for a
// damaged file names --force, since lock refuses to overwrite it without.
func ParseLockfile(data []byte, display string) (*lock.Lockfile, error) {
	lf, err := lock.Parse(data)
	if err != nil {
		hint := "agentgate writes this file; if it was edited by hand or damaged (by a merge?), regenerate it with 'agentgate lock --force' and review the diff"
		if errors.As(err, new(*lock.VersionError)) {
			hint = HintOf(err, "")
		}
		return nil, invalid(fmt.Errorf("%s: %w", display, err), hint)
	}
	return lf, nil
}

// PrevServer is lf's entry for the server name; lf may be nil.
func PrevServer(lf *lock.Lockfile, name string) (lock.Server, bool) {
	if lf == nil {
		return lock.Server{}, false
	}
	s, ok := lf.Servers[name]
	return s, ok
}

// Failure is one server that could not be verified.
type Failure struct {
	Server string
	File   string // where the server is configured
	Class  Class  // Unverified, or Invalid for a definition that cannot be resolved
	Msg    string // redacted
	Stderr string // redacted tail of a stdio server's stderr
	Hints  []string
}

// Live is what a capture run produced.
type Live struct {
	Servers map[string]lock.Server // every server captured and hashed
	// Defs is server -> tool name -> definition, as agentgate-mcp passes
	// it on: as sent, except that a tool whose text echoed a credential
	// comes redacted, with the hashes of what was sent (ToolDef.Sent;
	// mcp/capture's redactResult), so these are what agentgate displays.
	Defs     map[string]map[string]lock.ToolDef
	Elapsed  map[string]time.Duration
	Failures []Failure // sorted by server
	// Helper is agentgate-mcp's own failure (nil: none); every server
	// it was to capture is then a Failure.
	Helper *wire.HelperError
	// NoTools are the servers, in capture order, that listed no tools
	// (a warning, not a failure).
	NoTools []config.Server

	raw   map[string]wire.Result // what each captured server listed, for ToV2
	files map[string]string      // where each server is configured
}

// CaptureServers resolves and captures servers, hashing what each listed.
// Every failure is collected in the result.
func CaptureServers(e Env, p *config.Project, servers []config.Server, opts wire.Options) *Live {
	var resolved []config.Resolved
	var failures []Failure
	for _, s := range servers {
		r, f := ResolveServer(e, p, s)
		if f != nil {
			failures = append(failures, *f)
			continue
		}
		resolved = append(resolved, r)
	}
	return CaptureResolved(e, resolved, failures, opts)
}

// ResolveServer resolves s's variables against p, or returns the failure
// to report (Unverified for a value that is missing here, Invalid for a
// definition that cannot be resolved anywhere).
func ResolveServer(e Env, p *config.Project, s config.Server) (config.Resolved, *Failure) {
	r, err := p.Resolve(s, e.Lookup)
	if err != nil {
		class := Invalid
		var ce *config.Error
		if errors.As(err, &ce) && ce.Unverifiable {
			class = Unverified
		}
		msg, hints := err.Error(), HintsOf(err)
		return r, &Failure{Server: s.Name, File: s.File, Class: class, Msg: msg, Hints: hints}
	}
	return r, nil
}

// CaptureResolved captures resolved servers (failures holds those that
// failed before capture), as CaptureServers describes.
func CaptureResolved(e Env, resolved []config.Resolved, failures []Failure, opts wire.Options) *Live {
	l := &Live{
		Servers:  map[string]lock.Server{},
		Defs:     map[string]map[string]lock.ToolDef{},
		Elapsed:  map[string]time.Duration{},
		Failures: failures,
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
	ctx := e.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
	var results []wire.Result
	if len(resolved) > 0 {
		if results, l.Helper = runHelper(e, ctx, resolved, opts); l.Helper != nil {
			for _, r := range resolved {
				l.Failures = append(l.Failures, helperFailure(e, byName[r.Name], l.Helper))
			}
		}
	}
	for _, res := range results {
		s := byName[res.Server]
		l.Elapsed[res.Server] = res.Elapsed
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
			l.Failures = append(l.Failures, Failure{Server: s.Name, File: Where(s), Class: Unverified,
				Msg: msg, Stderr: redact(res.StderrTail), Hints: hints})
			continue
		}
		// Options.Packages is set exactly for lockfile version 2 (lock,
		// compareLive), whose rules the tools are read under.
		srv, defs, err := decodeServer(res.Tools, res.Sent, opts.Packages)
		if err != nil {
			l.Failures = append(l.Failures, Failure{Server: s.Name, File: Where(s), Class: Unverified,
				Msg: "invalid tools/list reply: " + redact(err.Error()),
				Hints: []string{HintOf(err, "the server listed tools agentgate cannot pin (see docs/spec/lockfile.md); report it to the server's maintainers"),
					"to lock the other servers meanwhile, disable or exclude this one (see docs/config.md)"}})
			continue
		}
		l.Servers[s.Name] = srv
		l.Defs[s.Name] = defs
		l.raw[s.Name] = res
		l.files[s.Name] = Where(s)
		if len(defs) == 0 {
			l.NoTools = append(l.NoTools, s)
		}
	}
	slices.SortFunc(l.Failures, func(a, b Failure) int { return strings.Compare(a.Server, b.Server) })
	return l
}

// decodeServer decodes and hashes the raw tools of one server, under
// lockfile version 2's rules when v2 is set (lock.DecodeServer of
// Version2: a description or schema may hold an unpaired surrogate); the
// tools sent names (redacted by agentgate-mcp) are pinned by the hashes it
// gives.
func decodeServer(raws []json.RawMessage, sent []wire.Sent, v2 bool) (lock.Server, map[string]lock.ToolDef, error) {
	version := lock.Version1
	if v2 {
		version = lock.Version2
	}
	srv, defs, err := lock.DecodeServer(version, raws)
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
		if srv, err = lock.BuildServer(version, defs, lock.BuildOptions{}); err != nil {
			return lock.Server{}, nil, err
		}
	}
	byName := make(map[string]lock.ToolDef, len(defs))
	for _, d := range defs {
		byName[d.Name] = d
	}
	return srv, byName, nil
}

// Where names the file (and line) that configures s.
func Where(s config.Server) string {
	if s.Line > 0 {
		return fmt.Sprintf("%s:%d", s.File, s.Line)
	}
	return s.File
}

// captureHint suggests the fix for a capture error, after the hints the
// error carries itself (wire.Error.Hints).
func captureHint(err error, s config.Server, o wire.Options, hasStderr bool) []string {
	if errors.Is(err, wire.ErrAuth) {
		return []string{"agentgate auth login " + s.Name,
			"in CI, use a client that needs no browser: grant = \"client_credentials\" in [servers." + s.Name + ".oauth] of agentgate.toml (see docs/AUTH.md)"}
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return []string{fmt.Sprintf("the server did not answer within %s; raise it with --timeout 60s, AGENTGATE_TIMEOUT, or timeout in agentgate.toml (a cold npx start can take over 10s)", o.ForServer(s).Timeout)}
	}
	if errors.Is(err, context.Canceled) {
		return []string{"the run was interrupted; run it again"}
	}
	if errors.Is(err, wire.ErrPackage) {
		return []string{"agentgate could not pin the package this server runs (docs/spec/lockfile-v2.md, Packages; the registry settings it reads: docs/config.md, Package registries); fix what the message names and run again, or exclude the server in agentgate.toml"}
	}
	if errors.Is(err, wire.ErrTooLarge) {
		return nil // mcp/capture names the limit to raise in the error's Hints
	}
	if s.Transport == config.Stdio && hasStderr {
		return []string{"the server's own stderr (last lines) tells why; run the command configured in " + s.File + " by hand, from the repository root, to reproduce"}
	}
	if s.Transport == config.Stdio {
		return []string{fmt.Sprintf("run the command configured in %s by hand, from the repository root, to see why it fails", s.File)}
	}
	return []string{fmt.Sprintf("check that the server at the URL configured in %s is up and reachable from here, and that its headers are set", s.File)}
}

// MergeEntries is the lockfile's servers after a capture: for each
// configured server, its captured entry, else old's entry (if any).
// Servers no longer configured are left out.
func MergeEntries(configured []config.Server, captured map[string]lock.Server, old *lock.Lockfile) map[string]lock.Server {
	servers := map[string]lock.Server{}
	for _, s := range configured {
		if srv, ok := captured[s.Name]; ok {
			servers[s.Name] = srv
		} else if srv, ok := PrevServer(old, s.Name); ok {
			servers[s.Name] = srv
		}
	}
	return servers
}
