package cli

import (
	"flag"
	"fmt"

	"github.com/agentgate/agentgate/mcp/configedit"
	"github.com/agentgate/agentgate/mcp/launcher"

	"github.com/agentgate/agentgate/internal/check"
	"github.com/agentgate/agentgate/internal/safetext"
	"github.com/agentgate/agentgate/lock"
	"github.com/agentgate/agentgate/mcp/config"
)

func init() {
	register(&command{
		name:    "pin",
		summary: "rewrite unpinned package specs in the client configs to the versions agentgate.lock pins",
		usage: `Usage: agentgate pin [--dry-run] [--lockfile PATH] [--format text|json]

Pin rewrites every stdio server whose command runs a package without an
exact version to the exact version the lockfile pins for it, as pinact and
ratchet do for GitHub Actions:

  npx -y pkg                    ->  npx -y pkg@1.4.2
  uvx mcp-server-time           ->  uvx mcp-server-time==2026.1.0
  docker run -i mcp/fetch:latest ->  docker run -i mcp/fetch:latest@sha256:...
  go run example.com/m/cmd/x@latest -> go run example.com/m/cmd/x@v1.2.3

The version is the one in agentgate.lock's package entry for the server
(lockfile version 2), that is what 'agentgate lock --lockfile-version 2'
resolved and you reviewed; pin asks no registry. A server whose package
the lockfile does not pin is an error naming it: lock first. Specs that
are already exact, scripts inside the repository, remote servers and
servers excluded in agentgate.toml are left alone; servers wrapped by
'agentgate wrap' are pinned inside the wrapper. A config file outside the
repository, by its path or through a symbolic link, is never edited: each
one pin would have changed is named on stderr.

Edits are minimal: only the spec's bytes change, in every format agentgate
reads (comments, trailing commas, key order, indentation, quoting and line
endings stay). With --dry-run nothing is written and the edits are printed
as a unified diff. Nothing is written unless every file could be pinned;
each file is then written atomically.

Exit codes: 0 done (or nothing to pin), 2 invalid configs, a missing or
damaged lockfile, a server whose package the lockfile does not pin, or a
spec that cannot be edited safely, 3 a file could not be written or git
failed.

Examples:
  agentgate lock --lockfile-version 2
  agentgate pin --dry-run
  agentgate pin`,
		flags: func(fs *flag.FlagSet) {
			fs.Bool("dry-run", false, "print the edits as a unified diff, write nothing")
			jsonFormatFlag(fs)
			fs.String("lockfile", "", "lockfile `path` (default: agentgate.toml's lockfile, else agentgate.lock at the repository root)")
		},
		run: runPin,
	})
}

const lockPackagesHint = "run 'agentgate lock --lockfile-version 2' (it resolves and pins the package each server runs), review the lockfile, then run 'agentgate pin' again"

func runPin(e *env, fs *flag.FlagSet, args []string) error {
	if err := checkTextOrJSON(fs); err != nil {
		return err
	}
	if len(args) > 0 {
		return invalid(fmt.Errorf("unexpected argument %q", args[0]), "run 'agentgate pin -h' for usage")
	}
	ws, err := openWorkspace(e, false, true, flagValue[string](fs, "lockfile"), "pin")
	if err != nil {
		return err
	}
	e.rep.setLockfile(ws.LockRel)
	lf, _, exists, err := check.ReadLockfile(ws.LockPath, ws.LockRel)
	if err != nil {
		return err
	}
	if !exists {
		return invalid(fmt.Errorf("%s: no lockfile: pin writes the versions the lockfile pins", ws.LockRel), lockPackagesHint)
	}
	lockName := lockNames(ws.Project)
	var pins []string
	edits, err := editConfigs(ws, func(client, rel string, data []byte, outside bool) ([]byte, []string, error) {
		out, done, err := configedit.PinFile(client, rel, data, func(s config.Server, spec launcher.PackageSpec) (string, string, error) {
			name, ok := lockName(rel, s.Name)
			if !ok {
				return "", "", configedit.ErrSkipPin
			}
			k, err := lockedPackage(lf, ws.LockRel, name, spec)
			if err != nil {
				return "", "", err
			}
			return k.Version, k.Integrity, nil
		})
		var names []string
		for _, d := range done {
			names = append(names, d.Server)
			if outside { // not edited: editConfigs names it
				continue
			}
			pins = append(pins, fmt.Sprintf("%s:%d: server %s: %s -> %s", rel, d.Line, safetext.Quote(d.Server), safetext.VisibleLine(d.From), safetext.VisibleLine(d.To)))
		}
		return out, names, err
	})
	if err != nil {
		return err
	}
	if !flagValue[bool](fs, "dry-run") {
		for _, l := range pins {
			fmt.Fprintf(e.stdout, "agentgate: %s\n", l)
		}
	}
	return writeEdits(e, fs, edits, "pinned")
}

// lockedPackage is the package lf pins for the server locked as name,
// checked to be the package spec names (same ecosystem and name; a Go
// package may lie inside the locked module). An error says what to do.
func lockedPackage(lf *lock.Lockfile, lockRel, name string, spec launcher.PackageSpec) (*lock.Package, error) {
	srv, ok := lf.Servers[name]
	if !ok {
		return nil, &config.Error{Msg: fmt.Sprintf("not in %s, so there is no locked version to pin %s to", lockRel, spec.String()), Hint: lockPackagesHint}
	}
	k := srv.Package
	if k == nil {
		return nil, &config.Error{Msg: fmt.Sprintf("%s pins no package for this server (lockfile version %d), so there is no locked version to pin %s to", lockRel, lf.LockfileVersion, spec.String()),
			Hint: lockPackagesHint}
	}
	if !check.SamePackage(spec, k) {
		return nil, &config.Error{Msg: fmt.Sprintf("runs %s package %s, but %s pins %s package %s", spec.Ecosystem, spec.String(), lockRel, k.Ecosystem, k.String()),
			Hint: "the config changed since it was locked: " + lockPackagesHint}
	}
	return k, nil
}
