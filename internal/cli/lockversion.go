package cli

// lockversion.go: which lockfile version lock writes, and how lock reports
// a change of version.

import (
	"flag"
	"fmt"

	"github.com/agentgate/agentgate/internal/check"
	"github.com/agentgate/agentgate/lock"
)

// lockfileVersionFlag registers lock's --lockfile-version.
func lockfileVersionFlag(fs *flag.FlagSet) {
	fs.Int("lockfile-version", 0, "write lockfile `version` 1 or 2 (default: the existing file's version, else 2); 2 also pins whole tool definitions, instructions, prompts and resource templates (docs/spec/lockfile-v2.md)")
}

// settleVersion returns the lockfile version lock writes: --lockfile-version
// when given, else the existing file's, else 2 (a new lockfile pins
// whole definitions and packages). Writing version 1 over a
// version 2 file needs --force (it drops pins); an upgrade refreshes every
// server, so it cannot be combined with --server.
func settleVersion(fs *flag.FlagSet, prev *lock.Lockfile, lockRel string) (int, error) {
	version := keptVersion(prev)
	switch want := flagValue[int](fs, "lockfile-version"); {
	case want == 0:
	case want != lock.Version1 && want != lock.Version2:
		return 0, invalid(fmt.Errorf("--lockfile-version %d: want 1 or 2", want))
	case want == lock.Version1 && prev != nil && prev.LockfileVersion == lock.Version2 && !flagValue[bool](fs, "force"):
		return 0, invalid(fmt.Errorf("--lockfile-version 1: %s is lockfileVersion 2; writing version 1 drops the pins of whole tool definitions, instructions, prompts and resource templates", lockRel),
			"to downgrade anyway, add --force; to keep version 2, leave out --lockfile-version")
	default:
		version = want
	}
	if prev != nil && prev.LockfileVersion != lock.Version2 && version == lock.Version2 && len(flagValue[[]string](fs, "server")) > 0 {
		return 0, invalid(fmt.Errorf("--lockfile-version 2 with --server: upgrading %s to version 2 captures every server", lockRel),
			"run 'agentgate lock --lockfile-version 2' without --server")
	}
	return version, nil
}

// keptVersion is the version lock writes without --lockfile-version:
// prev's, else 2 (a new lockfile).
func keptVersion(prev *lock.Lockfile) int {
	if prev != nil {
		return prev.LockfileVersion
	}
	return lock.Version2
}

// formatChange is the one line lock prints when it changed the file's
// version, or "".
func formatChange(prev, lf *lock.Lockfile, lockRel string) string {
	if prev == nil || prev.LockfileVersion == lf.LockfileVersion {
		return ""
	}
	if lf.LockfileVersion == lock.Version1 {
		return fmt.Sprintf("agentgate: format change: %s downgraded from lockfileVersion 2 to 1 (--force): whole-definition, instructions, prompt and resource template pins dropped", lockRel)
	}
	var prompts, templates, resources, instr int
	for _, s := range lf.Servers {
		prompts += len(s.Prompts)
		templates += len(s.ResourceTemplates)
		resources += len(s.Resources)
		if s.InstructionsHash != nil {
			instr++
		}
	}
	msg := fmt.Sprintf("agentgate: format change: %s upgraded from lockfileVersion 1 to 2: new pins: definitionHash per tool, toolsSetHash per server, instructions of %s, %s, %s",
		lockRel, plural(instr, "server"), plural(prompts, "prompt"), plural(templates, "resource template"))
	if resources > 0 {
		msg += ", " + plural(resources, "resource")
	}
	return msg + " (not drift: the tools were compared as version 1 pins them)"
}

// upgradeStatus is lock's status of a server on an upgrade run.
func upgradeStatus(prev *lock.Lockfile, name string, srv lock.Server) string {
	old, ok := check.PrevServer(prev, name)
	switch {
	case !ok:
		return "new"
	case old.SurfaceHash == srv.SurfaceHash:
		return "unchanged (now version 2)"
	default:
		return "changed (now version 2)"
	}
}
