package cli

// hookview.go is what the commit hook looks at. It reads the client configs,
// agentgate.toml and the lockfile as the index holds them, which is what
// `git commit` records (issue #17 item 12), never the work tree's copies;
// and it reads the same files at HEAD to tell which servers the commit
// changes, so that it starts only those (issue #18).

import (
	"bytes"
	"fmt"
	"maps"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/agentgate/agentgate/gitint"
	"github.com/agentgate/agentgate/internal/safetext"
	"github.com/agentgate/agentgate/lock"
	"github.com/agentgate/agentgate/mcp/config"
)

// loadStaged loads the project as the index holds it: every config path
// in the index (config.IsConfigPath), agentgate.toml and the files its
// [[extra]] names, read with FileInIndex (config.LoadAt). Root is the work
// tree's, where the servers run. Bad configs are exit class 2; an index
// that cannot be read is class 3.
func loadStaged(repo *gitint.Repo) (*config.Project, error) {
	paths, err := repo.IndexPaths(config.IsConfigPath)
	if err != nil {
		return nil, classify(ExitUnverified, err)
	}
	p, err := config.LoadAt(paths, followLinks(repo.FileInIndex, repo.SymlinkInIndex))
	if err != nil {
		const staged = "the hook reads the configs as the commit records them: fix the file, then git add it"
		if list := listOf(err); list != nil {
			for i := range list {
				list[i].lines[0] += " (as staged)"
			}
			return nil, &ExitError{Code: ExitInvalid, Err: list, Hints: []string{staged}}
		}
		return nil, &ExitError{Code: ExitInvalid, Err: fmt.Errorf("%w (as staged)", err),
			Hints: append(hintsOf(err), staged)}
	}
	p.Root = repo.Root()
	return p, nil
}

// loadHead loads the project as HEAD holds it: the config paths of the
// index and those the commit deletes (changes), read with FileAt. Before
// the first commit it is an empty project.
func loadHead(repo *gitint.Repo, staged []string, changes []string) (*config.Project, error) {
	paths := slices.Concat(staged, slices.DeleteFunc(slices.Clone(changes), func(p string) bool { return !config.IsConfigPath(p) }))
	p, err := config.LoadAt(paths, followLinks(
		func(path string) ([]byte, bool, error) { return repo.FileAt("HEAD", path) },
		func(path string) (bool, error) { return repo.SymlinkAt("HEAD", path) }))
	if err != nil {
		return nil, err
	}
	p.Root = repo.Root()
	return p, nil
}

// followLinks makes read (the index's or a revision's files) follow
// symbolic links as the work tree would: a link's target, relative to the
// link's directory, is read in turn, up to maxLinkDepth links (a config
// such as .cursor/mcp.json -> ../.mcp.json reads .mcp.json as staged). A
// link to an absolute path or out of the repository is an error: the
// commit does not hold what it points at.
func followLinks(read func(string) ([]byte, bool, error), isLink func(string) (bool, error)) func(string) ([]byte, bool, error) {
	return func(p string) ([]byte, bool, error) {
		name := p
		for range maxLinkDepth + 1 {
			data, ok, err := read(p)
			if err != nil || !ok {
				return data, ok, err
			}
			link, err := isLink(p)
			if err != nil {
				return nil, false, err
			}
			if !link {
				return data, true, nil
			}
			target := string(data)
			next := path.Join(path.Dir(p), target)
			if path.IsAbs(target) || next == ".." || strings.HasPrefix(next, "../") {
				return nil, false, fmt.Errorf("%s is a symbolic link that leads outside the repository; the commit does not hold its target", name)
			}
			p = next
		}
		return nil, false, fmt.Errorf("%s: more than %d symbolic links in a row", name, maxLinkDepth)
	}
}

// headView is the commit's parent as the hook compares with it.
type headView struct {
	data       []byte         // the lockfile at HEAD, nil if none
	lf         *lock.Lockfile // parsed; nil if none or damaged (counts as none)
	project    *config.Project
	projectErr error // HEAD's configs do not load (every server is then captured)
}

// readHead reads HEAD's lockfile and, when withConfigs, HEAD's configs
// (loadHead; a failure is noted on stderr and kept in projectErr).
func readHead(e *env, ws *workspace, changes []string, withConfigs bool) (headView, error) {
	var hv headView
	data, ok, err := ws.repo.FileAt("HEAD", ws.lockRel)
	if err != nil {
		return hv, classify(ExitUnverified, err)
	}
	if ok {
		hv.data = data
		hv.lf, _ = lock.Parse(data)
	}
	if !withConfigs {
		return hv, nil
	}
	indexed, err := ws.repo.IndexPaths(config.IsConfigPath)
	if err != nil {
		return hv, classify(ExitUnverified, err)
	}
	if hv.project, hv.projectErr = loadHead(ws.repo, indexed, changes); hv.projectErr != nil {
		// the message quotes HEAD's files: escaped, on one line
		fmt.Fprintf(e.stderr, "agentgate: note: %s; capturing every server\n",
			safetext.VisibleLine(whyHeadBad+": "+hv.projectErr.Error()))
	}
	return hv, nil
}

// Why the hook captures a server, in the words it prints.
const (
	whyNew     = "new"
	whyChanged = "changed in this commit"
	whyEdited  = "lockfile entry edited"
	whyHeadNot = "not locked at HEAD"
	whyNoEntry = "not in the lockfile"
	whyHeadBad = "the configs at HEAD do not load"
	whyLive    = "--live"
	whyAll     = `hook = "all" in agentgate.toml`
)

// hookPlan is which servers the hook starts, and why.
type hookPlan struct {
	capture   []config.Server
	why       map[string]string // server -> reason, for those captured
	unchanged []string          // not started: their staged entries are kept
	dropped   []string          // in the staged lockfile, no longer configured
}

// planHook decides which of the staged servers the hook captures. With
// all set ("--live" or the hook = "all" reason) it is every server.
// Otherwise a server is captured when it is new (no enabled server of that
// name at HEAD), changed (its definition differs from HEAD's once both are
// resolved in this environment; see sameServer), has no entry in the staged
// lockfile, or its staged entry differs from HEAD's or HEAD has none (a
// hand edit must be proven against the live server). Every other server
// is not started, and keeps its staged entry.
//
// committed reports whether a file read while resolving (config.Resolved's
// Files: an envFile, an opencode {file:}) is the same in the index as at
// HEAD; resolving reads the work tree's copy for both sides, so a commit
// that changes such a file changes the servers that read it.
func planHook(e *env, staged, head *config.Project, headErr error, stagedLf, headLf *lock.Lockfile, all string, committed func(abs string) bool) hookPlan {
	plan := hookPlan{why: map[string]string{}}
	for _, s := range staged.Servers {
		why := all
		if why == "" {
			why = changeOf(e, staged, head, headErr, s, stagedLf, headLf, committed)
		}
		if why == "" {
			plan.unchanged = append(plan.unchanged, s.Name)
			continue
		}
		plan.why[s.Name] = why
		plan.capture = append(plan.capture, s)
	}
	if stagedLf != nil {
		for _, name := range slices.Sorted(maps.Keys(stagedLf.Servers)) {
			if !slices.ContainsFunc(staged.Servers, func(s config.Server) bool { return s.Name == name }) {
				plan.dropped = append(plan.dropped, name)
			}
		}
	}
	return plan
}

// changeOf is why s must be captured, or "" when the commit leaves it as
// it is at HEAD.
func changeOf(e *env, staged, head *config.Project, headErr error, s config.Server, stagedLf, headLf *lock.Lockfile, committed func(string) bool) string {
	if headErr != nil {
		return whyHeadBad
	}
	i := slices.IndexFunc(head.Servers, func(h config.Server) bool { return h.Name == s.Name })
	if i < 0 {
		return whyNew
	}
	if !sameServer(e, staged, s, head, head.Servers[i], committed) {
		return whyChanged
	}
	entry, ok := prevServer(stagedLf, s.Name)
	if !ok {
		return whyNoEntry
	}
	was, ok := prevServer(headLf, s.Name)
	if !ok {
		return whyHeadNot
	}
	if !lock.SameServer(entry, was) {
		return whyEdited
	}
	return ""
}

// sameSettings reports whether agentgate.toml says the same of server a
// in pa and of server b in pb: its [servers.NAME] table, the inputs
// answers, the default timeout and definitions = false.
func sameSettings(pa *config.Project, a string, pb *config.Project, b string) bool {
	return reflect.DeepEqual(pa.Settings.Servers[a], pb.Settings.Servers[b]) &&
		reflect.DeepEqual(pa.Settings.Inputs, pb.Settings.Inputs) &&
		pa.Settings.Timeout == pb.Settings.Timeout && pa.Settings.NoDefinitions == pb.Settings.NoDefinitions
}

// sameServer reports whether a (of project pa) and b (of pb) start the same
// server in this environment: both resolve (config.Resolve, with this
// process's environment and each project's agentgate.toml: inputs,
// per-server options) to the same thing (resolvedDiff, the comparison
// --trusted-ref uses) with the same agentgate.toml settings that shape the
// capture or the entry (the per-server timeout, resources, ignore-members,
// client-capabilities, and definitions = false), and every file read while resolving is
// committed unchanged (committed); or both fail to resolve from the same
// definition (config.DefinitionDiff, which reads no variable) under the
// same agentgate.toml settings for it (sameSettings): the commit changed
// nothing resolving could see, so a variable this environment lacks (a
// token the commit does not touch) or the definition's new position in a
// reformatted file (which the error names) is no change.
func sameServer(e *env, pa *config.Project, a config.Server, pb *config.Project, b config.Server, committed func(string) bool) bool {
	ra, errA := pa.Resolve(a, e.lookup)
	rb, errB := pb.Resolve(b, e.lookup)
	if errA != nil || errB != nil {
		return errA != nil && errB != nil && config.DefinitionDiff(a, b) == "" && sameSettings(pa, a.Name, pb, b.Name)
	}
	if resolvedDiff(ra, rb) != "" || ra.Timeout != rb.Timeout || ra.LockResources != rb.LockResources ||
		!slices.Equal(ra.ClientCapabilities, rb.ClientCapabilities) ||
		!slices.Equal(pa.Settings.Servers[a.Name].IgnoreMembers, pb.Settings.Servers[b.Name].IgnoreMembers) ||
		pa.Settings.NoDefinitions != pb.Settings.NoDefinitions {
		return false
	}
	for _, f := range slices.Concat(ra.Files, rb.Files) {
		if !committed(f) {
			return false
		}
	}
	return true
}

// committedUnchanged reports whether the file at abs is the same in the
// index as at HEAD (both absent counts as the same). A file outside the
// work tree, or inside .git, is not part of any commit: unchanged. A file
// git cannot read is a change (the server is then captured).
func committedUnchanged(repo *gitint.Repo, abs string) bool {
	rel, err := filepath.Rel(repo.Root(), abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return true
	}
	rel = filepath.ToSlash(rel)
	if rel == ".git" || strings.HasPrefix(rel, ".git/") {
		return true
	}
	staged, inIndex, err := repo.FileInIndex(rel)
	if err != nil {
		return false
	}
	then, inHead, err := repo.FileAt("HEAD", rel)
	if err != nil {
		return false
	}
	return inIndex == inHead && bytes.Equal(staged, then)
}

// print writes one line per group: the servers captured for each reason,
// those not started, and those dropped.
func (p hookPlan) print(e *env) {
	names := func(list []string) string {
		v := make([]string, len(list))
		for i, n := range list {
			v[i] = safetext.VisibleLine(n) // from the configs
		}
		return strings.Join(v, ", ")
	}
	for _, why := range []string{whyLive, whyAll, whyHeadBad, whyNew, whyChanged, whyEdited, whyHeadNot, whyNoEntry} {
		var group []string
		for _, s := range p.capture {
			if p.why[s.Name] == why {
				group = append(group, s.Name)
			}
		}
		if len(group) > 0 {
			fmt.Fprintf(e.stdout, "agentgate: captured %s (%s)\n", names(group), why)
		}
	}
	if len(p.unchanged) > 0 {
		fmt.Fprintf(e.stdout, "agentgate: not started: %s (unchanged; checked by 'agentgate ci' and 'agentgate diff')\n", names(p.unchanged))
	}
	if len(p.dropped) > 0 {
		fmt.Fprintf(e.stdout, "agentgate: dropped %s (no longer configured)\n", names(p.dropped))
	}
}
