package gitint

// gogit.go: the go-git fallback. Everything the fast paths do not handle is
// read through go-git's filesystem storage (storage/filesystem: objects,
// references, config), opened here the way go-git's
// PlainOpenWithOptions(DetectDotGit, EnableDotGitCommonDir) opens it. The
// root go-git package is not linked: its transports (SSH, HTTP, OpenPGP)
// make the net package and a dynamically linked binary part of every
// agentgate start (issue #5), and gitint needs none of them.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/go-git/go-git/v5/storage/filesystem/dotgit"
)

// errNoRepository is openGoGit's answer when neither the directory nor any
// parent holds a .git (go-git's ErrRepositoryNotExists).
var errNoRepository = errors.New("repository does not exist")

// openGoGit finds the repository containing path as go-git's
// PlainOpenWithOptions with DetectDotGit and EnableDotGitCommonDir does:
// the nearest directory (path itself, or its directory if path is a file)
// with a .git directory, or a .git file "gitdir: DIR"; DIR/commondir, when
// present, names the directory holding objects, refs and config. It returns
// the work tree's root and a go-git storage over the repository, after the
// checks go-git's Open makes: HEAD exists, and the repository format
// version and extensions are ones go-git reads.
func openGoGit(path string) (root string, s *filesystem.Storage, err error) {
	dir, err := filepath.Abs(path)
	if err != nil {
		return "", nil, err
	}
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		dir = filepath.Dir(dir)
	}
	var fi os.FileInfo
	for {
		fi, err = os.Stat(filepath.Join(dir, ".git"))
		if err == nil {
			break
		}
		if !os.IsNotExist(err) {
			return "", nil, err
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", nil, errNoRepository
		}
		dir = parent
	}
	var dot billy.Filesystem
	if fi.IsDir() {
		dot = osfs.New(filepath.Join(dir, ".git"))
	} else {
		b, err := os.ReadFile(filepath.Join(dir, ".git"))
		if err != nil {
			return "", nil, err
		}
		rest, ok := strings.CutPrefix(string(b), "gitdir: ")
		if !ok {
			return "", nil, errors.New(".git file has no gitdir: prefix")
		}
		gitdir, _, _ := strings.Cut(rest, "\n")
		if gitdir = strings.TrimSpace(gitdir); !filepath.IsAbs(gitdir) {
			gitdir = filepath.Join(dir, gitdir)
		}
		dot = osfs.New(gitdir)
	}
	if _, err := dot.Stat(""); err != nil {
		if os.IsNotExist(err) {
			return "", nil, errNoRepository
		}
		return "", nil, err
	}
	repoFS := dot
	if b, err := os.ReadFile(filepath.Join(dot.Root(), "commondir")); err == nil && len(b) > 0 {
		p := strings.TrimSpace(string(b))
		if !filepath.IsAbs(p) {
			p = filepath.Join(dot.Root(), p)
		}
		if _, err := os.Stat(p); err != nil {
			if os.IsNotExist(err) {
				return "", nil, fmt.Errorf("repository incomplete: commondir %s does not exist", p)
			}
			return "", nil, err
		}
		repoFS = dotgit.NewRepositoryFilesystem(dot, osfs.New(p))
	} else if err != nil && !os.IsNotExist(err) {
		return "", nil, err
	}
	s = filesystem.NewStorage(repoFS, cache.NewObjectLRUDefault())
	if _, err := s.Reference(plumbing.HEAD); errors.Is(err, plumbing.ErrReferenceNotFound) {
		return "", nil, errNoRepository
	}
	if err := checkFormat(s); err != nil {
		return "", nil, err
	}
	return filepath.Clean(dir), s, nil
}

// checkFormat refuses what go-git's Open refuses: a
// core.repositoryformatversion other than 0 or 1, and any extension but
// noop (and, in format 1, noop-v1), e.g. objectFormat = sha256 or
// refStorage = reftable.
func checkFormat(s *filesystem.Storage) error {
	cfg, err := s.Config()
	if err != nil {
		return err
	}
	v := string(cfg.Core.RepositoryFormatVersion)
	if v != "" && v != "0" && v != "1" {
		return fmt.Errorf("core.repositoryformatversion not supported: %q", v)
	}
	if cfg.Raw == nil || !cfg.Raw.HasSection("extensions") {
		return nil
	}
	var bad []string
	for _, o := range cfg.Raw.Section("extensions").Options {
		name := strings.ToLower(o.Key)
		if name != "noop" && (name != "noop-v1" || v != "1") {
			bad = append(bad, name)
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("unknown extension: %s", strings.Join(bad, ", "))
	}
	return nil
}

// git returns go-git's storage of the repository, opened on first use.
func (r *Repo) git() (*filesystem.Storage, error) {
	r.ggOnce.Do(func() {
		_, r.gg, r.ggErr = openGoGit(r.root)
		if r.ggErr != nil {
			r.ggErr = fmt.Errorf("open git repository at %s: %w", r.root, r.ggErr)
		}
	})
	return r.gg, r.ggErr
}

// goGitHead resolves HEAD with go-git (symbolic references followed);
// ok is false when its branch has no commits yet.
func (r *Repo) goGitHead() (plumbing.Hash, bool, error) {
	s, err := r.git()
	if err != nil {
		return plumbing.ZeroHash, false, err
	}
	ref, err := storer.ResolveReference(s, plumbing.HEAD)
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		return plumbing.ZeroHash, false, nil
	}
	if err != nil {
		return plumbing.ZeroHash, false, fmt.Errorf("%s: read HEAD: %w", r.root, err)
	}
	return ref.Hash(), true, nil
}
