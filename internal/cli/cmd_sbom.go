package cli

import (
	"flag"
	"fmt"

	"github.com/agentgate/agentgate/internal/check"
	"github.com/agentgate/agentgate/lock"
	"github.com/agentgate/agentgate/render"
)

func init() {
	register(&command{
		name:    "sbom",
		summary: "print a CycloneDX SBOM of the packages agentgate.lock pins (offline)",
		usage: `Usage: agentgate sbom [--lockfile PATH]

Sbom prints a CycloneDX 1.6 JSON document with one component per server
whose entry in a version 2 lockfile pins a package: its purl
(pkg:npm/..., pkg:pypi/..., pkg:golang/..., pkg:oci/...@sha256%3A...),
the pinned integrity as hashes where it is a digest of the artefact, and
the server's name and client config file as properties; so Dependabot,
OSV-Scanner, Trivy and other SBOM readers see what the repository's agents
run. Offline: it reads the lockfile and the client configs, starts nothing.
Servers that pin no package (remote servers) have no component. The
document has no timestamp: the same lockfile gives the same bytes. See
docs/sbom.md.

Exit codes: 0 printed, 2 no lockfile, a damaged one, or a version 1
lockfile (which pins no packages: agentgate lock --lockfile-version 2).

Examples:
  agentgate sbom > agentgate.cdx.json
  osv-scanner scan source --sbom agentgate.cdx.json`,
		flags: func(fs *flag.FlagSet) {
			fs.String("lockfile", "", "lockfile `path` (default: agentgate.toml's lockfile, else agentgate.lock at the repository root)")
		},
		run: runSBOM,
	})
}

func runSBOM(e *env, fs *flag.FlagSet, args []string) error {
	if len(args) > 0 {
		return invalid(fmt.Errorf("unexpected argument %q", args[0]), "run 'agentgate sbom -h' for usage")
	}
	ws, err := openWorkspaceFor(e, false, true, flagValue[string](fs, "lockfile"), "sbom", false)
	if err != nil {
		return err
	}
	lf, _, exists, err := check.ReadLockfile(ws.LockPath, ws.LockRel)
	if err != nil {
		return err
	}
	if !exists {
		return invalid(fmt.Errorf("%s: no lockfile", ws.LockRel), "create it with 'agentgate lock --lockfile-version 2'")
	}
	if lf.LockfileVersion < lock.Version2 {
		return invalid(fmt.Errorf("%s: lockfile version %d pins no packages", ws.LockRel, lf.LockfileVersion),
			"upgrade it with 'agentgate lock --lockfile-version 2', review the diff and commit it")
	}
	files := map[string]string{}
	if ws.Project != nil {
		for _, s := range ws.Project.Servers {
			files[s.Name] = s.File
		}
	}
	e.stdout.Write(render.SBOM(render.SBOMInput{Lockfile: lf, LockfilePath: ws.LockRel, ConfigFiles: files, Version: Version()}))
	return nil
}
