package check

// packages.go: what verify and the offline hook can tell about the package
// a stdio server runs (issue #11) without starting it or asking a
// registry: the spec in the config against the package the lockfile pins,
// and a file package's bytes against its pinned integrity.

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentgate/agentgate/lock"
	"github.com/agentgate/agentgate/mcp/config"
)

// PackageCheck is the offline view of one server's package.
type PackageCheck struct {
	server config.Server
	spec   config.PackageSpec // valid when ok
	ok     bool               // the command runs a recognised package
	unpin  *config.UnpinnableError
	locked *lock.Package // the lockfile's, nil when none
	v2     bool          // the lockfile is version 2 (it can pin packages)
}

// where is "file:line" of the server's entry.
func (c PackageCheck) where() string { return Where(c.server) }

// CheckPackages recognises the package of each of p's servers and pairs it
// with lf's entry (lf may be nil). An error other than unpinnable is
// returned as is.
func CheckPackages(p *config.Project, lf *lock.Lockfile) ([]PackageCheck, error) {
	var out []PackageCheck
	for _, s := range p.Servers {
		spec, ok, err := s.Package()
		c := PackageCheck{server: s, spec: spec, ok: ok}
		var u *config.UnpinnableError
		switch {
		case errors.As(err, &u):
			c.unpin = u
		case err != nil:
			return nil, err
		}
		if srv, found := PrevServer(lf, s.Name); found {
			c.locked, c.v2 = srv.Package, lf.LockfileVersion == lock.Version2
		}
		out = append(out, c)
	}
	return out, nil
}

// SamePackage reports whether the lockfile's package k is the package
// spec names (config.PackageSpec.Runs).
func SamePackage(spec config.PackageSpec, k *lock.Package) bool {
	return k != nil && spec.Runs(k.Ecosystem, k.Name)
}

// fileRel is the root-relative path of a file spec of s: the spec's path
// (relative to the server's working directory) joined to a cwd written as
// a plain relative path, or as is for the root. ok is false when the cwd
// is absolute or templated (only resolving it can tell).
func fileRel(s config.Server, spec config.PackageSpec) (string, bool) {
	cwd := filepath.ToSlash(s.Cwd)
	switch {
	case spec.Arg < 0 || cwd == "" || cwd == ".":
		return spec.Name, true
	case strings.ContainsAny(cwd, "$%{") || path.IsAbs(cwd) || filepath.IsAbs(s.Cwd):
		return "", false
	}
	rel := path.Join(cwd, spec.Name)
	return rel, rel != ".." && !strings.HasPrefix(rel, "../")
}

// pinnedSpec is the exact spec `agentgate pin` writes for spec from the
// locked package k (samePackage): the argument PinnedArg gives, without a
// --package= or --from= prefix (name@version for npm and Go,
// name==version for PyPI, image:tag@digest for OCI, each as written).
func pinnedSpec(spec config.PackageSpec, k *lock.Package) string {
	arg, err := spec.PinnedArg(k.Version, k.Integrity)
	if err != nil {
		return spec.String() + " (it cannot: " + err.Error() + ")"
	}
	if strings.HasPrefix(arg, "-") {
		_, arg, _ = strings.Cut(arg, "=")
	}
	return arg
}

// OfflinePackageDrift names each server of checks (only those in names,
// when names is not nil) whose package differs from the one lf pins in a
// way that needs no server and no registry to see: an exact spec naming
// another version (or digest) or another package, or a file package whose
// bytes (read with read, root-relative: the index for the hook, the work
// tree for verify) hash to another integrity. notes are what cannot be
// told offline (a file package the commit does not hold).
func OfflinePackageDrift(checks []PackageCheck, names []string, read func(string) ([]byte, bool, error)) (problems, notes []string) {
	for _, c := range checks {
		k := c.locked
		if k == nil || !c.ok || names != nil && !slices.Contains(names, c.server.Name) {
			continue
		}
		who := fmt.Sprintf("server %q (%s)", c.server.Name, c.where())
		if c.spec.Ecosystem == config.EcoFile && k.Ecosystem == config.EcoFile {
			if rel, ok := fileRel(c.server, c.spec); ok && rel != k.Name {
				problems = append(problems, fmt.Sprintf("%s runs the file %s; the lockfile pins the file %s", who, rel, k.Name))
				continue
			}
		} else if !SamePackage(c.spec, k) {
			problems = append(problems, fmt.Sprintf("%s runs %s package %s; the lockfile pins %s package %s",
				who, c.spec.Ecosystem, c.spec.String(), k.Ecosystem, k.String()))
			continue
		}
		if c.spec.Ecosystem == config.EcoFile {
			data, ok, err := read(k.Name)
			switch {
			case err != nil:
				notes = append(notes, fmt.Sprintf("%s: the file %s cannot be checked offline: %v", who, k.Name, err))
			case !ok:
				notes = append(notes, fmt.Sprintf("%s: the file %s is not there to check (not committed, or not built yet); 'agentgate ci' checks it live", who, k.Name))
			default:
				if got := config.DataIntegrity(data); got != k.Integrity {
					problems = append(problems, fmt.Sprintf("%s runs %s, whose bytes changed: integrity %s, the lockfile pins %s", who, k.Name, got, k.Integrity))
				}
			}
			continue
		}
		if !c.spec.Exact {
			continue // what an unpinned spec runs today needs the registry: ci checks it
		}
		if locked, written, differs := c.spec.VersionDiffers(k.Version, k.Integrity); differs {
			problems = append(problems, fmt.Sprintf("%s runs %s; the lockfile pins %s (package: %s -> %s)",
				who, c.spec.String(), k.String(), locked, written))
		}
	}
	return problems, notes
}

// UnpinnedNotes names every server whose command runs a package without
// an exact version (with the exact spec `agentgate pin` would write, from
// lf's package entry, which agentgate guard starts instead, or "not
// locked yet") and every command no package can be attributed to.
func UnpinnedNotes(checks []PackageCheck) []string {
	var out []string
	for _, c := range checks {
		who := fmt.Sprintf("server %q (%s)", c.server.Name, c.where())
		switch {
		case c.unpin != nil:
			out = append(out, fmt.Sprintf("%s is unpinnable: %s", who, c.unpin.Reason))
		case c.ok && !c.spec.Exact:
			pin := "not locked yet: lock it with --lockfile-version 2 to pin the exact version (agentgate guard starts it as configured until then)"
			if SamePackage(c.spec, c.locked) {
				exact := pinnedSpec(c.spec, c.locked)
				pin = "agentgate pin would write " + exact + "; agentgate guard starts " + exact + ", not what the registry serves today (a newer release is drift for agentgate ci)"
			}
			raw := c.spec.Raw
			if strings.HasPrefix(raw, "-") { // --package=SPEC, --from=SPEC
				_, raw, _ = strings.Cut(raw, "=")
			}
			if raw == "" {
				raw = c.spec.String()
			}
			out = append(out, fmt.Sprintf("%s runs %s package %q with no exact version; %s", who, c.spec.Ecosystem, raw, pin))
		}
	}
	slices.Sort(out)
	return out
}

// UnlockedNotes names each server of a version 2 lockfile whose command
// runs an exact spec or a repository file that the lockfile pins no
// package for (locked before packages were pinned, before its ecosystem
// could be resolved, or a script the capture found outside the
// repository).
func UnlockedNotes(checks []PackageCheck) []string {
	var out []string
	for _, c := range checks {
		if c.v2 && c.ok && c.spec.Exact && c.locked == nil {
			out = append(out, fmt.Sprintf("server %q (%s) runs %s package %s, which the lockfile pins no package for yet: run 'agentgate lock' to pin it (a script outside the repository, and an ecosystem agentgate cannot resolve yet, stay unpinned)",
				c.server.Name, c.where(), c.spec.Ecosystem, c.spec.String()))
		}
	}
	slices.Sort(out)
	return out
}

// WorkTreeFile reads a root-relative, slash-separated path from the work
// tree at root (for verify); ok is false when there is no such file.
func WorkTreeFile(root string) func(string) ([]byte, bool, error) {
	return func(name string) ([]byte, bool, error) {
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
		if errors.Is(err, os.ErrNotExist) {
			return nil, false, nil
		}
		return data, err == nil, err
	}
}

// PackageDriftHint is the fix for offline package drift.
const PackageDriftHint = "run 'agentgate lock' (it starts the server and pins what it runs now), review the change and commit the lockfile; or restore the version the lockfile pins"
