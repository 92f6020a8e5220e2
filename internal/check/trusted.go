package check

// trusted.go is the --trusted-ref guard: a pull request from a fork edits
// the client configs, and lock, diff and ci start the commands those
// configs name. With a trusted revision, only servers defined and resolved
// identically there (and whose files are identical there) are started.

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/agentgate/agentgate/mcp/launcher"

	"github.com/agentgate/agentgate/internal/safetext"
	mcpcommand "github.com/agentgate/agentgate/mcp/command"
	"github.com/agentgate/agentgate/mcp/config"
)

// TrustedRefEnv is the environment variable that sets --trusted-ref.
const TrustedRefEnv = "AGENTGATE_TRUSTED_REF"

// TrustFilter decides which servers may start under --trusted-ref ref.
// Every setting comes from the trusted revision: the configs and
// agentgate.toml at ref are loaded (config.LoadAt) and resolved against
// the work tree's root, and what starts is the trusted definition,
// resolved with the trusted agentgate.toml (its inputs, per-server
// settings). A server starts only when
//
//   - an enabled server of the same name is defined at ref, with the same
//     definition as written (config.DefinitionDiff);
//   - a guard wrapper around it is what agentgate wrap writes with the
//     agentgate.toml at ref (guardargs.Guard.Unlike: the pull request's own
//     agentgate.toml may move the lockfile the wrapper names);
//   - both definitions resolve, and resolve to the same transport, command,
//     arguments, environment, cwd, URL and headers (an ${input:} answered
//     differently by the pull request's agentgate.toml, a changed
//     {file:...}, a variable in cwd or command that now points elsewhere);
//   - every file inside the work tree that the resolved command (also as
//     the OS finds it through the server's PATH), arguments, the words of
//     a shell command string, env values or cwd name, and every file read
//     while resolving (envFile, {file:...}), is byte-identical at ref, or
//     is in neither ref nor HEAD (made by the job, not committed by
//     anyone); see changedLocalFile;
//   - it hands no program over as text that agentgate cannot read
//     (launcher.ProgramText: a shell command string with operators, globs or
//     expansions, an inline program such as python -c, a module).
//
// Otherwise the server is not started: one Unverified failure naming it
// and the reason. ok holds the servers to start, already resolved;
// settings are the trusted revision's agentgate.toml (for the run's
// options: CaptureResolved them with these). A ref that does not resolve
// is Invalid.
func TrustFilter(e Env, ws *Workspace, ref string, servers []config.Server) (ok []config.Resolved, refused []Failure, settings config.Settings, err error) {
	if ws.Repo == nil {
		return nil, nil, settings, invalid(fmt.Errorf("--trusted-ref %s needs a git repository", ref))
	}
	if _, _, err := ws.Repo.FileAt(ref, config.SettingsFile); err != nil {
		return nil, nil, settings, invalid(fmt.Errorf("--trusted-ref %s: %s", ref, err),
			"fetch the trusted branch first (git fetch origin main; with actions/checkout, set fetch-depth: 0)")
	}
	read := func(p string) ([]byte, bool, error) { return ws.Repo.FileAt(ref, p) }
	trusted, loadErr := config.LoadAt(ws.Project.Files, read)
	if loadErr == nil {
		trusted.Root = ws.Root
		settings = trusted.Settings
	}
	refuse := func(s config.Server, why string) Failure {
		return Failure{Server: s.Name, File: Where(s), Class: Unverified,
			Msg: fmt.Sprintf("not started: %s (--trusted-ref %s starts only servers defined identically at %s)", why, ref, ref),
			Hints: []string{
				fmt.Sprintf("a change to what CI starts must be reviewed and merged into %s first; then CI runs it", ref),
				"on a trusted branch, run agentgate without --trusted-ref (and without " + TrustedRefEnv + ")"}}
	}
	for _, s := range servers {
		if loadErr != nil {
			refused = append(refused, refuse(s, fmt.Sprintf("the configs at %s do not load: %s", ref, loadErr)))
			continue
		}
		i := slices.IndexFunc(trusted.Servers, func(t config.Server) bool { return t.Name == s.Name })
		if i < 0 {
			why := fmt.Sprintf("no enabled server %q at %s", s.Name, ref)
			if slices.ContainsFunc(trusted.Skipped, func(t config.Skipped) bool { return t.Name == s.Name }) {
				why = fmt.Sprintf("server %q is not enabled at %s", s.Name, ref)
			}
			refused = append(refused, refuse(s, why))
			continue
		}
		t := trusted.Servers[i]
		if field := config.DefinitionDiff(t, s); field != "" {
			refused = append(refused, refuse(s, fmt.Sprintf("its definition differs from the one at %s (field %q)", ref, field)))
			continue
		}
		if s.Guard != nil {
			if flag, _ := s.Guard.Unlike(s.Name, trusted.Settings.MovedLockfile()); flag != "" {
				refused = append(refused, refuse(s, fmt.Sprintf("its guard wrapper is not what agentgate wrap writes with agentgate.toml at %s (guard's %s)", ref, flag)))
				continue
			}
		}
		now, f := ResolveServer(e, ws.Project, s)
		if f != nil {
			refused = append(refused, *f)
			continue
		}
		// Run the trusted definition, named where the user sees it.
		t.File, t.Line, t.Column, t.AlsoIn = s.File, s.Line, s.Column, s.AlsoIn
		then, f := ResolveServer(e, trusted, t)
		if f != nil {
			refused = append(refused, refuse(s, fmt.Sprintf("it does not resolve with the settings at %s: %s", ref, f.Msg)))
			continue
		}
		if field := resolvedDiff(then, now); field != "" {
			refused = append(refused, refuse(s, fmt.Sprintf("after variable resolution, its field %q differs from what it is with agentgate.toml and the files at %s", field, ref)))
			continue
		}
		why, err := changedLocalFile(ws, ref, then)
		if err != nil {
			return nil, nil, settings, Classify(Unverified, err)
		}
		if why != "" {
			refused = append(refused, refuse(s, why))
			continue
		}
		if _, why := launcher.ProgramText(then.Command, then.Args); why != "" {
			refused = append(refused, refuse(s, why))
			continue
		}
		ok = append(ok, then)
	}
	return ok, refused, settings, nil
}

// resolvedDiff returns the first field in which two resolved servers
// differ ("transport", "command", "args", "env", "cwd", "url", "headers"),
// or "" when they start the same thing.
func resolvedDiff(a, b config.Resolved) string {
	switch {
	case a.Transport != b.Transport || a.FallbackSSE != b.FallbackSSE:
		return "transport"
	case a.Command != b.Command:
		return "command"
	case !slices.Equal(a.Args, b.Args):
		return "args"
	case !maps.Equal(a.Env, b.Env) || !slices.Equal(a.EnvVars, b.EnvVars):
		return "env"
	case a.Cwd != b.Cwd:
		return "cwd"
	case a.URL != b.URL:
		return "url"
	case !maps.Equal(a.Headers, b.Headers):
		return "headers"
	}
	return ""
}

// maxLinkDepth bounds how many symbolic links changedLocalFile follows
// from one word.
const maxLinkDepth = 8

// changedLocalFile returns why s (resolved) runs repository files that
// are not those at ref ("" when it does not). It looks at every path a
// word can name: the command, the program the OS runs for it (found
// through the server's PATH, as capture finds it), each argument, each
// word of a shell command string (launcher.ProgramText), each env value
// (whole, after "=", split at whitespace and at the path-list separator),
// the files read while resolving (envFile, {file:...}) and the cwd;
// relative words are taken from the root and from the cwd. Each that is inside the work tree
// (outside any .git directory) and is a regular file or a symbolic link
// must have the same bytes (for a link: the same target, and the target in
// turn) at ref. A file in neither ref nor HEAD was not committed by anyone
// (the job made it) and is accepted; one that HEAD has and ref has not is
// refused.
func changedLocalFile(ws *Workspace, ref string, s config.Resolved) (string, error) {
	var words []string
	add := func(v string) {
		if v == "" {
			return
		}
		words = append(words, v)
		if _, after, ok := strings.Cut(v, "="); ok && after != "" {
			words = append(words, after)
		}
		for _, f := range strings.Fields(v) {
			words = append(words, f)
			if _, after, ok := strings.Cut(f, "="); ok && after != "" {
				words = append(words, after)
			}
		}
		words = append(words, filepath.SplitList(v)...)
	}
	add(s.Command)
	if res, err := mcpcommand.Resolve(runtime.GOOS, mcpcommand.Spec{Command: s.Command, Args: s.Args, Dir: s.Cwd,
		Env: mcpcommand.MergeEnv(runtime.GOOS, os.Environ(), s.Env)}, mcpcommand.HostProbe); err == nil {
		add(res.Path)
	}
	for _, a := range s.Args {
		add(a)
	}
	shellWords, _ := launcher.ProgramText(s.Command, s.Args)
	for _, w := range shellWords {
		add(w)
	}
	for _, k := range slices.Sorted(maps.Keys(s.Env)) {
		add(s.Env[k])
	}
	words = append(words, s.Files...)
	words = append(words, s.Cwd)
	bases := []string{ws.Root}
	if s.Cwd != "" {
		bases = append(bases, s.Cwd)
	}
	c := &fileCheck{ws: ws, ref: ref, seen: map[string]bool{}}
	for _, w := range words {
		for _, base := range bases {
			abs := w
			if !filepath.IsAbs(abs) {
				abs = filepath.Join(base, filepath.FromSlash(w))
			}
			if why, err := c.check(abs, 0); why != "" || err != nil {
				return why, err
			}
		}
	}
	return "", nil
}

// fileCheck compares work-tree files with a revision, each path once.
type fileCheck struct {
	ws   *Workspace
	ref  string
	seen map[string]bool
}

// check compares the file at abs (absolute, cleaned) with ref, following
// symbolic links up to maxLinkDepth; see changedLocalFile.
func (c *fileCheck) check(abs string, depth int) (string, error) {
	rel, ok := c.rel(abs)
	if !ok || c.seen[rel] {
		return "", nil
	}
	c.seen[rel] = true
	fi, err := os.Lstat(abs)
	if err != nil {
		return "", nil
	}
	var now []byte
	switch {
	case fi.Mode()&os.ModeSymlink != 0:
		target, err := os.Readlink(abs)
		if err != nil {
			return "", fmt.Errorf("read link %s: %w", rel, err)
		}
		now = []byte(target)
	case fi.Mode().IsRegular():
		if now, err = os.ReadFile(abs); err != nil {
			return "", fmt.Errorf("read %s: %w", rel, err)
		}
	default:
		return "", nil
	}
	then, atRef, err := c.ws.Repo.FileAt(c.ref, rel)
	if err != nil {
		return "", err
	}
	if !atRef {
		if _, inHead, err := c.ws.Repo.FileAt("HEAD", rel); err != nil || inHead {
			return fmt.Sprintf("it uses %s, which does not exist at %s", safetext.VisibleLine(rel), c.ref), err
		}
		return "", nil // not committed: the job made it
	}
	if !bytes.Equal(now, then) {
		return fmt.Sprintf("it uses %s, which differs from %s", safetext.VisibleLine(rel), c.ref), nil
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		if depth >= maxLinkDepth {
			return fmt.Sprintf("it uses %s, a chain of more than %d symbolic links", safetext.VisibleLine(rel), maxLinkDepth), nil
		}
		target := string(now)
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(abs), target)
		}
		return c.check(filepath.Clean(target), depth+1)
	}
	return "", nil
}

// rel is abs relative to the work tree, slash-separated; ok is false
// outside it, for the root itself and inside any .git directory.
func (c *fileCheck) rel(abs string) (string, bool) {
	rel, err := filepath.Rel(c.ws.Root, abs)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	rel = filepath.ToSlash(rel)
	if rel == ".git" || strings.HasPrefix(rel, ".git/") || strings.Contains(rel, "/.git/") || strings.HasSuffix(rel, "/.git") {
		return "", false
	}
	return rel, true
}
