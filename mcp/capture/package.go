package capture

// package.go: the package a stdio server runs, resolved to one immutable
// artefact for lockfile version 2 (docs/spec/lockfile-v2.md, "Packages").

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/agentgate/agentgate/mcp/launcher"

	"github.com/agentgate/agentgate/mcp/command"
	"github.com/agentgate/agentgate/mcp/config"
	"github.com/agentgate/agentgate/mcp/registry"
	"github.com/agentgate/agentgate/mcp/wire"
)

// resolvePackage returns the package the stdio server r runs, resolved to
// one immutable artefact, or nil when there is none to pin: a remote
// server, or a command no package can be attributed to (agentgate verify
// reports those from the configs; capture does not fail them). root is the
// repository root, absolute; runs holds the launchers' configuration
// answers the servers of one capture share (nil: none shared).
//
// It is the one dispatch point by ecosystem: each ecosystem's resolver is
// called from the switch below. An error fails the server at StagePackage
// (could not verify): a file that cannot be read, a registry that cannot
// be reached, a version that does not exist.
func resolvePackage(ctx context.Context, r config.Resolved, root string, runs *registry.Runs) (*wire.Package, error) {
	if r.Transport != config.Stdio && r.Transport != "" {
		return nil, nil
	}
	spec, err := launcher.RecognizePackage(recognisable(r.Command, root), r.Args)
	if err != nil {
		return nil, nil // unpinnable: named by verify, never an error here
	}
	switch spec.Ecosystem {
	case launcher.EcoFile:
		return resolveFile(r, root, spec)
	case launcher.EcoNPM, launcher.EcoPyPI, launcher.EcoOCI, launcher.EcoGo:
		return resolveRegistry(ctx, r, root, spec, runs)
	}
	return nil, fmt.Errorf("unknown package ecosystem %q", spec.Ecosystem)
}

// resolveRegistry asks the registry the server's launcher is configured
// to use (mcp/registry) for the exact version spec resolves to today and
// its integrity. The launcher's configuration is read as the launcher
// would read it when the client starts the server: with the server's
// environment (agentgate's plus the configured env) and, for the
// project's .npmrc, in the server's working directory (the root when it
// has none).
func resolveRegistry(ctx context.Context, r config.Resolved, root string, spec launcher.PackageSpec, runs *registry.Runs) (*wire.Package, error) {
	dir := r.Cwd
	if dir == "" {
		dir = root
	}
	res := &registry.Resolver{Dir: dir, Env: command.MergeEnv(runtime.GOOS, os.Environ(), r.Env), Runs: runs}
	p, err := res.Resolve(ctx, spec, r.Args)
	if err != nil {
		return nil, err
	}
	return &wire.Package{Ecosystem: p.Ecosystem, Name: p.Name, Version: p.Version, Integrity: p.Integrity, Registry: p.Registry}, nil
}

// recognisable is the command as RecognizePackage reads it: Resolve makes
// a relative command with a slash absolute against the root, and a
// command inside the root is given back as "./" and its path relative to
// the root, so that it is recognised as a file of the repository.
func recognisable(command, root string) string {
	if root == "" || !filepath.IsAbs(command) {
		return command
	}
	if rel, ok := inside(root, command); ok {
		return "./" + rel
	}
	return command
}

// inside returns abs relative to root, slash-separated, when abs is inside
// root (not root itself).
func inside(root, abs string) (string, bool) {
	rel, err := filepath.Rel(root, abs)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// resolveFile pins a script or binary inside the repository: its path
// relative to the root and the SHA-256 of its bytes (launcher.FileIntegrity,
// "sha256-" and base64). The command itself is made absolute by Resolve;
// an interpreter's script argument is relative to the server's working
// directory. A file outside the root, or a bare command name (looked up on
// PATH, not in the repository), is not pinned.
func resolveFile(r config.Resolved, root string, spec launcher.PackageSpec) (*wire.Package, error) {
	var abs string
	switch {
	case root == "":
		return nil, nil
	case spec.Arg < 0 && filepath.IsAbs(r.Command):
		abs = r.Command
	case spec.Arg < 0:
		return nil, nil // a name without a slash is looked up on PATH
	default:
		dir := r.Cwd
		if dir == "" {
			dir = root
		}
		abs = filepath.Join(dir, filepath.FromSlash(spec.Name))
	}
	rel, ok := inside(root, abs)
	if !ok {
		return nil, nil
	}
	integrity, err := launcher.FileIntegrity(abs)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("the server's file %s does not exist", rel)
		}
		return nil, fmt.Errorf("cannot read the server's file %s: %v", rel, errors.Unwrap(err))
	}
	return &wire.Package{Ecosystem: launcher.EcoFile, Name: rel, Integrity: integrity}, nil
}

// packageError is err as the failure of server r at StagePackage.
func packageError(r config.Resolved, err error) *wire.Error {
	var e *wire.Error
	if errors.As(err, &e) {
		return e
	}
	kind := wire.ErrPackage
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		kind = context.DeadlineExceeded
	case errors.Is(err, context.Canceled):
		kind = context.Canceled
	}
	return &wire.Error{Server: r.Name, File: r.File, Stage: wire.StagePackage, Msg: r.Redact(err.Error()), Kind: kind}
}
