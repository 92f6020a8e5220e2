package registry

// npx.go: what `npx -y NAME@VERSION` (and `npm exec`) will run, read from
// the disk without asking the registry: agentgate guard's offline check
// before it starts a pinned npm package.

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/agentgate/agentgate/mcp/launcher"
)

// Installed is an install of one npm package that npx runs without
// installing it again.
type Installed struct {
	// Where is "the project's node_modules" or "npx's cache"; Dir the
	// directory holding node_modules (the project's local prefix, or
	// CACHE/_npx/HASH).
	Where, Dir string
	// Version is the installed package.json's version.
	Version string
	// Integrity and Resolved are what npm recorded when it installed the
	// package (node_modules/.package-lock.json, else package-lock.json, in
	// Dir): the tarball's integrity, checked by npm against the bytes it
	// unpacked, and its URL. "" when npm recorded none.
	Integrity, Resolved string
	// Record is the file Integrity was read from ("" when none).
	Record string
}

// NPXInstalled returns the install npx (npx and npm exec, npm 7 and
// later: libnpmexec) runs for arg, the exact package argument it receives
// ("NAME@VERSION", spec's package at version), in npx's order, without asking the
// registry: the project's node_modules (npm's local prefix of Dir) when
// it holds NAME at that version, else npx's cache for that spec,
// CACHE/_npx/HASH, HASH the first 16 hex digits of the SHA-512 of arg
// (npx hashes its list of package specs, one here), CACHE the server's
// --cache option, else npm's cache setting (npm_config_cache, the .npmrc
// files, else ~/.npm; %LocalAppData%\npm-cache on Windows). ok is false
// when neither holds NAME at VERSION: npx will install it. A global
// install (npm install -g), which npx runs first when the command names
// no --package, is not looked at.
// An npm: alias (npx installs it under the alias's name) is an error: it
// cannot be checked.
func (r *Resolver) NPXInstalled(spec launcher.PackageSpec, args []string, arg, version string) (in Installed, ok bool, err error) {
	if strings.Contains(arg, "npm:") {
		return Installed{}, false, fmt.Errorf("npx spec %q is an npm: alias, which agentgate cannot check: write the package's own name", arg)
	}
	name := spec.Name
	local := npmLocalPrefix(r.dirOrWD())
	if in, ok, err := readInstall("the project's node_modules", local, name, version); ok || err != nil {
		return in, ok, err
	}
	// npx's own cache: the project's install of another version (or
	// none) is not what it runs.
	cache := r.npxCacheDir(spec, args)
	sum := sha512.Sum512([]byte(arg))
	dir := filepath.Join(cache, "_npx", hex.EncodeToString(sum[:])[:16])
	return readInstall("npx's cache", dir, name, version)
}

// npxCacheDir is the npm cache npx uses for the server: its --cache
// option, else npm's cache setting (npmCacheDir).
func (r *Resolver) npxCacheDir(spec launcher.PackageSpec, args []string) string {
	if cache, _ := launcherOption(spec, args, "--cache"); cache != "" {
		return cache
	}
	return r.npmCacheDir(r.loadNPMConfig())
}

// readInstall reads dir/node_modules/NAME: ok when its package.json says
// version (npx matches an installed package by name and version only).
// When it is not, in still names where and dir, and the version
// installed there ("" for none).
func readInstall(where, dir, name, version string) (Installed, bool, error) {
	in := Installed{Where: where, Dir: dir}
	pkgDir := filepath.Join(dir, "node_modules", filepath.FromSlash(name))
	data, err := os.ReadFile(filepath.Join(pkgDir, "package.json"))
	if errors.Is(err, os.ErrNotExist) {
		return in, false, nil
	}
	if err != nil {
		return in, false, err
	}
	var pj struct{ Version string }
	if json.Unmarshal(data, &pj) != nil {
		return in, false, nil
	}
	if in.Version = pj.Version; pj.Version != version {
		return in, false, nil
	}
	for _, rec := range []string{filepath.Join(dir, "node_modules", ".package-lock.json"), filepath.Join(dir, "package-lock.json")} {
		data, err := os.ReadFile(rec)
		if err != nil {
			continue
		}
		var lf struct {
			Packages map[string]struct {
				Version, Resolved, Integrity string
			}
		}
		if json.Unmarshal(data, &lf) != nil {
			continue
		}
		if e, ok := lf.Packages["node_modules/"+name]; ok && e.Version == version {
			in.Integrity, in.Resolved, in.Record = e.Integrity, e.Resolved, rec
			break
		}
	}
	return in, true, nil
}

// CheckInstalled compares what npm recorded for in with integrity (the
// lockfile's sha512- token): they must share the SHA-512 digest. When npm's
// cache (the cacache npm fetched the tarball into) still indexes the
// tarball in.Resolved, its entry and content must agree too
// (checkNPMCache). An install with no recorded integrity cannot be
// checked, and is an error.
func (r *Resolver) CheckInstalled(in Installed, spec launcher.PackageSpec, args []string, integrity string) error {
	if in.Integrity == "" {
		return fmt.Errorf("%s (%s) holds %s@%s, but npm recorded no integrity for it, so it cannot be checked against agentgate.lock", in.Where, in.Dir, spec.Name, in.Version)
	}
	if !sriOverlap(in.Integrity, integrity) || sha512Token(in.Integrity) == "" {
		return fmt.Errorf("%s (%s, %s) holds %s@%s with integrity %s; agentgate.lock pins %s: the installed package is not the locked one", in.Where, in.Dir, in.Record, spec.Name, in.Version, in.Integrity, integrity)
	}
	if in.Resolved != "" {
		if _, err := checkNPMCache(r.npxCacheDir(spec, args), in.Resolved, integrity); err != nil {
			return err
		}
	}
	return nil
}

// CompareFiles compares the installed package in with the tarball npm
// fetched it from, byte for byte: npm's cache (CACHE/_cacache) holds that
// tarball under its integrity (content-v2/sha512/...), which must hash to
// integrity; every file in it (package/PATH) must be in.Dir/node_modules/
// NAME/PATH with the same bytes. ok is false when the cache no longer
// holds the tarball (npm cache clean): nothing to compare with.
func (r *Resolver) CompareFiles(in Installed, spec launcher.PackageSpec, args []string, integrity string) (ok bool, err error) {
	cache := r.npxCacheDir(spec, args)
	algo, digest := strongestSRI(integrity)
	if algo != "sha512" {
		return false, fmt.Errorf("integrity %s is not a sha512 digest", integrity)
	}
	hx := hex.EncodeToString(digest)
	data, err := os.ReadFile(filepath.Join(cache, "_cacache", "content-v2", algo, hx[:2], hx[2:4], hx[4:]))
	if err != nil {
		return false, nil
	}
	if sum := sha512.Sum512(data); string(sum[:]) != string(digest) {
		return false, fmt.Errorf("npm's cached tarball for %s@%s does not hash to %s: the cache was altered", spec.Name, in.Version, integrity)
	}
	pkgDir := filepath.Join(in.Dir, "node_modules", filepath.FromSlash(spec.Name))
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return false, fmt.Errorf("npm's cached tarball for %s@%s: %v", spec.Name, in.Version, err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return true, nil
		}
		if err != nil {
			return false, fmt.Errorf("npm's cached tarball for %s@%s: %v", spec.Name, in.Version, err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		// npm strips the first path component (package/, or any name).
		_, rel, found := strings.Cut(path.Clean(h.Name), "/")
		if !found || rel == "" || strings.HasPrefix(rel, "../") {
			continue
		}
		want, err := io.ReadAll(tr)
		if err != nil {
			return false, fmt.Errorf("npm's cached tarball for %s@%s: %v", spec.Name, in.Version, err)
		}
		got, err := os.ReadFile(filepath.Join(pkgDir, filepath.FromSlash(rel)))
		if err != nil || !bytes.Equal(got, want) {
			return false, fmt.Errorf("%s (%s): %s differs from the file in the tarball agentgate.lock pins (%s): the installed package was changed after npm installed it", in.Where, pkgDir, rel, integrity)
		}
	}
}
