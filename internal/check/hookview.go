package check

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
	"github.com/agentgate/agentgate/lock"
	"github.com/agentgate/agentgate/mcp/config"
)

// LoadStaged loads the project as the index holds it: every config path
// in the index (config.IsConfigPath), agentgate.toml and the files its
// [[extra]] names, read with FileInIndex (config.LoadAt). Root is the work
// tree's, where the servers run. An index that cannot be read is
// Unverified; bad configs are config.LoadAt's error as it is (the caller
// says the configs were read as staged).
func LoadStaged(repo *gitint.Repo) (*config.Project, error) {
	paths, err := repo.IndexPaths(config.IsConfigPath)
	if err != nil {
		return nil, Classify(Unverified, err)
	}
	p, err := config.LoadAt(paths, FollowLinks(repo.FileInIndex, repo.SymlinkInIndex))
	if err != nil {
		return nil, err
	}
	p.Root = repo.Root()
	return p, nil
}

// loadHead loads the project as HEAD holds it: the config paths of the
// index and those the commit deletes (changes), read with FileAt. Before
// the first commit it is an empty project.
func loadHead(repo *gitint.Repo, staged []string, changes []string) (*config.Project, error) {
	paths := slices.Concat(staged, slices.DeleteFunc(slices.Clone(changes), func(p string) bool { return !config.IsConfigPath(p) }))
	p, err := config.LoadAt(paths, FollowLinks(
		func(path string) ([]byte, bool, error) { return repo.FileAt("HEAD", path) },
		func(path string) (bool, error) { return repo.SymlinkAt("HEAD", path) }))
	if err != nil {
		return nil, err
	}
	p.Root = repo.Root()
	return p, nil
}

// FollowLinks makes read (the index's or a revision's files) follow
// symbolic links as the work tree would: a link's target, relative to the
// link's directory, is read in turn, up to maxLinkDepth links (a config
// such as .cursor/mcp.json -> ../.mcp.json reads .mcp.json as staged). A
// link to an absolute path or out of the repository is an error: the
// commit does not hold what it points at.
func FollowLinks(read func(string) ([]byte, bool, error), isLink func(string) (bool, error)) func(string) ([]byte, bool, error) {
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

// HeadView is the commit's parent as the hook compares with it.
type HeadView struct {
	Data       []byte         // the lockfile at HEAD, nil if none
	Lf         *lock.Lockfile // parsed; nil if none or damaged (counts as none)
	Project    *config.Project
	ProjectErr error // HEAD's configs do not load (every server is then captured: WhyHeadBad)
}

// ReadHead reads HEAD's lockfile and, when withConfigs, HEAD's configs
// (loadHead; a failure is kept in ProjectErr). A repository that cannot
// be read is Unverified.
func ReadHead(ws *Workspace, changes []string, withConfigs bool) (HeadView, error) {
	var hv HeadView
	data, ok, err := ws.Repo.FileAt("HEAD", ws.LockRel)
	if err != nil {
		return hv, Classify(Unverified, err)
	}
	if ok {
		hv.Data = data
		hv.Lf, _ = lock.Parse(data)
	}
	if !withConfigs {
		return hv, nil
	}
	indexed, err := ws.Repo.IndexPaths(config.IsConfigPath)
	if err != nil {
		return hv, Classify(Unverified, err)
	}
	hv.Project, hv.ProjectErr = loadHead(ws.Repo, indexed, changes)
	return hv, nil
}

// Why the hook captures a server, in the words it prints.
const (
	WhyNew     = "new"
	WhyChanged = "changed in this commit"
	WhyEdited  = "lockfile entry edited"
	WhyHeadNot = "not locked at HEAD"
	WhyNoEntry = "not in the lockfile"
	WhyHeadBad = "the configs at HEAD do not load"
	WhyLive    = "--live"
	WhyAll     = `hook = "all" in agentgate.toml`
)

// WhyOrder is every reason, in the order the hook prints its groups.
var WhyOrder = []string{WhyLive, WhyAll, WhyHeadBad, WhyNew, WhyChanged, WhyEdited, WhyHeadNot, WhyNoEntry}

// HookPlan is which servers the hook starts, and why.
type HookPlan struct {
	Capture   []config.Server
	Why       map[string]string // server -> reason (a Why constant), for those captured
	Unchanged []string          // not started: their staged entries are kept
	Dropped   []string          // in the staged lockfile, no longer configured
}

// PlanHook decides which of the staged servers the hook captures, with
// variables resolved by lookup. With all set (WhyLive or WhyAll) it is every server.
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
func PlanHook(lookup func(string) (string, bool), staged, head *config.Project, headErr error, stagedLf, headLf *lock.Lockfile, all string, committed func(abs string) bool) HookPlan {
	plan := HookPlan{Why: map[string]string{}}
	for _, s := range staged.Servers {
		why := all
		if why == "" {
			why = changeOf(lookup, staged, head, headErr, s, stagedLf, headLf, committed)
		}
		if why == "" {
			plan.Unchanged = append(plan.Unchanged, s.Name)
			continue
		}
		plan.Why[s.Name] = why
		plan.Capture = append(plan.Capture, s)
	}
	if stagedLf != nil {
		for _, name := range slices.Sorted(maps.Keys(stagedLf.Servers)) {
			if !slices.ContainsFunc(staged.Servers, func(s config.Server) bool { return s.Name == name }) {
				plan.Dropped = append(plan.Dropped, name)
			}
		}
	}
	return plan
}

// changeOf is why s must be captured, or "" when the commit leaves it as
// it is at HEAD.
func changeOf(lookup func(string) (string, bool), staged, head *config.Project, headErr error, s config.Server, stagedLf, headLf *lock.Lockfile, committed func(string) bool) string {
	if headErr != nil {
		return WhyHeadBad
	}
	i := slices.IndexFunc(head.Servers, func(h config.Server) bool { return h.Name == s.Name })
	if i < 0 {
		return WhyNew
	}
	if !sameServer(lookup, staged, s, head, head.Servers[i], committed) {
		return WhyChanged
	}
	entry, ok := PrevServer(stagedLf, s.Name)
	if !ok {
		return WhyNoEntry
	}
	was, ok := PrevServer(headLf, s.Name)
	if !ok {
		return WhyHeadNot
	}
	if !lock.SameServer(entry, was) {
		return WhyEdited
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
func sameServer(lookup func(string) (string, bool), pa *config.Project, a config.Server, pb *config.Project, b config.Server, committed func(string) bool) bool {
	ra, errA := pa.Resolve(a, lookup)
	rb, errB := pb.Resolve(b, lookup)
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

// CommittedUnchanged reports whether the file at abs is the same in the
// index as at HEAD (both absent counts as the same). A file outside the
// work tree, or inside .git, is not part of any commit: unchanged. A file
// git cannot read is a change (the server is then captured).
func CommittedUnchanged(repo *gitint.Repo, abs string) bool {
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
