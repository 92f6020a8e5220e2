package gitint

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentgate/agentgate/internal/reporoot"
)

// errNoRepository is discover's answer when neither the directory nor any
// parent holds a repository (go-git's ErrRepositoryNotExists).
var errNoRepository = errors.New("repository does not exist")

// layout is where a repository's parts are.
type layout struct {
	root      string // the work tree's top directory
	gitDir    string // HEAD and index: root/.git, or what a .git file names
	commonDir string // objects, refs, packed-refs, config: gitDir, or what gitDir/commondir names
}

// discover finds the repository containing path, as git and go-git's
// PlainOpenWithOptions (DetectDotGit, EnableDotGitCommonDir) do: the
// nearest directory, path itself or a parent (path's directory if path is
// a file), with a .git entry, by internal/reporoot's one walk. A .git
// directory is the git directory; a .git file must hold "gitdir: DIR" on
// its first line (a linked worktree or a submodule), DIR relative to the
// directory holding the file. When
// the git directory has a commondir file, its first line names the common
// directory (relative to the git directory), which must exist. (Open then
// reads HEAD: a git directory without one is errNoRepository, as for
// go-git.) This is gitint's only discovery: Open, the go-git fallback and
// the index path all use its answer.
func discover(path string) (layout, error) {
	dir := path
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		dir = filepath.Dir(dir)
	}
	dir, fi, err := reporoot.Find(dir)
	if errors.Is(err, reporoot.ErrNone) {
		return layout{}, errNoRepository
	}
	if err != nil {
		return layout{}, err
	}
	l := layout{root: dir, gitDir: filepath.Join(dir, ".git")}
	if !fi.IsDir() {
		b, err := os.ReadFile(l.gitDir)
		if err != nil {
			return layout{}, err
		}
		line, _, _ := bytes.Cut(b, []byte("\n"))
		rest, ok := strings.CutPrefix(strings.TrimSpace(string(line)), "gitdir:")
		if rest = strings.TrimSpace(rest); !ok || rest == "" {
			return layout{}, fmt.Errorf("%s is a file without a \"gitdir: DIR\" line", l.gitDir)
		}
		if !filepath.IsAbs(rest) {
			rest = filepath.Join(dir, rest)
		}
		l.gitDir = filepath.Clean(rest)
	}
	l.commonDir = l.gitDir
	b, err := os.ReadFile(filepath.Join(l.gitDir, "commondir"))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return layout{}, err
	}
	if line, _, _ := bytes.Cut(b, []byte("\n")); len(bytes.TrimSpace(line)) > 0 {
		p := strings.TrimSpace(string(line))
		if !filepath.IsAbs(p) {
			p = filepath.Join(l.gitDir, p)
		}
		if _, err := os.Stat(p); err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return layout{}, fmt.Errorf("repository incomplete: commondir %s does not exist", p)
			}
			return layout{}, err
		}
		l.commonDir = filepath.Clean(p)
	}
	return l, nil
}
