package cli

// cmd_merge_driver.go: `agentgate merge-driver`, git's merge driver for
// agentgate.lock (installed by `agentgate install --merge-driver`).

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strings"

	"github.com/agentgate/agentgate/internal/atomicfile"
	"github.com/agentgate/agentgate/internal/safetext"
	"github.com/agentgate/agentgate/lock"
)

func init() {
	register(&command{
		name:    "merge-driver",
		summary: "git merge driver for agentgate.lock: merges per server",
		usage: `Usage: agentgate merge-driver [--marker-size N] BASE OURS THEIRS [PATH]

Merge-driver is the git merge driver for agentgate.lock; git runs it as
'agentgate merge-driver %O %A %B %P' once 'agentgate install --merge-driver'
has set it up. It merges the three lockfiles one server at a time and
writes the result over OURS:

  - a server changed on one side only takes that side's entry;
  - a server changed identically on both sides takes it;
  - a server changed differently on both sides (or changed on one and
    removed on the other) is a conflict, written between git's conflict
    markers around that server only;
  - servers that would pin one repository file (a version 2 file package)
    at different hashes, because one side changed the file and re-locked
    while the other locked a server that runs it, are each a conflict too:
    such a lockfile would fail 'agentgate verify', and only a capture of
    the merged file can say what it pins.

generatedAt (and generatedBy) is the later of the two sides'. Without
conflicts the result is a valid lockfile, exactly what 'agentgate lock'
writes for the merged configs, and the exit code is 0. With conflicts the
exit code is 1 and git stops the merge: merge the client configs, then run
'agentgate lock --force' to capture the servers and rewrite the lockfile.

When OURS or THEIRS is not a lockfile this version reads, it falls back to
git's line merge (git merge-file). PATH is only used in messages.

Exit codes: 0 merged, 1 conflicts (git keeps the file conflicted), 2
invalid arguments, 3 a file could not be read or written, or git failed.

Examples:
  git config merge.agentgate.driver 'agentgate merge-driver %O %A %B %P'
  agentgate install --merge-driver`,
		flags: func(fs *flag.FlagSet) {
			fs.Int("marker-size", 7, "length of the conflict markers (git's %L)")
		},
		run: runMergeDriver,
	})
}

func runMergeDriver(e *env, flags *flag.FlagSet, args []string) error {
	if len(args) < 3 || len(args) > 4 {
		return invalid(fmt.Errorf("want BASE OURS THEIRS [PATH], got %d arguments", len(args)),
			"git runs it as: agentgate merge-driver %O %A %B %P (set up with 'agentgate install --merge-driver')")
	}
	size := flagValue[int](flags, "marker-size")
	if size < 1 || size > 100 {
		return invalid(fmt.Errorf("--marker-size %d: want 1 to 100", size))
	}
	base, ours, theirs := absFromDir(e, args[0]), absFromDir(e, args[1]), absFromDir(e, args[2])
	path := lock.FileName
	if len(args) == 4 {
		path = args[3]
	}
	lfs, err := readMergeSides(e, []string{base, ours, theirs}, path)
	if err != nil {
		return err
	}
	if lfs == nil {
		return gitMergeFile(e, base, ours, theirs, path, size)
	}
	m := lock.Merge(lfs[0], lfs[1], lfs[2])
	out := lock.FormatMerged(m, "ours ("+path+")", "theirs", size)
	if err := atomicfile.WriteFile(ours, out, 0o644); err != nil {
		return unverified(fmt.Errorf("merge-driver: %v", err))
	}
	if len(m.Conflicts) == 0 {
		return nil
	}
	return mergeConflicts(path, m.Conflicts)
}

// readMergeSides reads the base, our and their lockfiles (files: base
// may be missing, and a side with an empty file has no lockfile: nil).
// When a side is not a lockfile this agentgate reads, or the two sides
// have different versions, it warns on stderr and returns nil: the file
// is merged line by line.
func readMergeSides(e *env, files []string, path string) ([]*lock.Lockfile, error) {
	lfs := make([]*lock.Lockfile, 3)
	for i, p := range files {
		data, err := os.ReadFile(p)
		if err != nil && !(i == 0 && errors.Is(err, fs.ErrNotExist)) {
			return nil, unverified(fmt.Errorf("merge-driver: %v", err))
		}
		if len(bytes.TrimSpace(data)) == 0 {
			continue // git passes an empty file when a side has no lockfile
		}
		if lfs[i], err = lock.Parse(data); err != nil {
			fmt.Fprintf(e.stderr, "agentgate: warning: %s (%s side) is not a lockfile this agentgate reads (%v); merging it line by line\n",
				safetext.VisibleLine(path), []string{"base", "our", "their"}[i], safetext.VisibleLine(firstLine(err.Error())))
			return nil, nil
		}
	}
	if lfs[1] != nil && lfs[2] != nil && lfs[1].LockfileVersion != lfs[2].LockfileVersion {
		fmt.Fprintf(e.stderr, "agentgate: warning: %s: lockfileVersion %d on our side, %d on theirs; merging it line by line\n",
			safetext.VisibleLine(path), lfs[1].LockfileVersion, lfs[2].LockfileVersion)
		return nil, nil
	}
	return lfs, nil
}

// mergeConflicts is the drift error of a merge with conflicts: servers
// changed differently on both sides, and servers whose in-repository file
// a clean merge would pin at two hashes.
func mergeConflicts(path string, conflicts []lock.MergeConflict) error {
	var names []string
	stale := map[string][]string{} // file -> servers
	for _, c := range conflicts {
		if c.File != "" {
			stale[c.File] = append(stale[c.File], `"`+safetext.VisibleLine(c.Name)+`"`)
			continue
		}
		names = append(names, `"`+safetext.VisibleLine(c.Name)+`"`)
	}
	if len(stale) > 0 {
		var parts []string
		for _, f := range slices.Sorted(maps.Keys(stale)) {
			parts = append(parts, fmt.Sprintf("%s would pin %s at two hashes (one side changed it)", strings.Join(stale[f], ", "), safetext.VisibleLine(f)))
		}
		msg := fmt.Sprintf("%s: a clean merge would fail 'agentgate verify': %s (conflict markers around each)", safetext.VisibleLine(path), strings.Join(parts, "; "))
		if len(names) > 0 {
			msg += fmt.Sprintf("; also changed differently on both sides: %s", strings.Join(names, ", "))
		}
		return drift(errors.New(msg),
			"finish the merge of the files, then run 'agentgate lock --force' to capture the servers against the merged bytes, review it and 'git add' "+safetext.VisibleLine(path))
	}
	return drift(fmt.Errorf("%s: %s changed differently on both sides: %s (conflict markers around %s)",
		safetext.VisibleLine(path), plural(len(names), "server"), strings.Join(names, ", "), map[bool]string{true: "it", false: "each"}[len(names) == 1]),
		"merge the client configs first, then run 'agentgate lock --force' to capture the servers and rewrite "+safetext.VisibleLine(path)+", review it and 'git add' it")
}

// gitMergeFile merges with git's line merge, result in ours; exit 1 on
// conflicts, as git expects of a driver.
func gitMergeFile(e *env, base, ours, theirs, path string, size int) error {
	cmd := exec.CommandContext(e.ctx, "git", "merge-file", fmt.Sprintf("--marker-size=%d", size),
		"-L", "ours ("+path+")", "-L", "base", "-L", "theirs", ours, base, theirs)
	cmd.Dir = e.dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ee) && ee.ExitCode() > 0 && ee.ExitCode() < 128:
		return drift(fmt.Errorf("%s: %d conflicts in git's line merge", safetext.VisibleLine(path), ee.ExitCode()),
			"resolve them, or run 'agentgate lock --force' after merging the client configs")
	}
	return unverified(fmt.Errorf("git merge-file: %v: %s", err, strings.TrimSpace(stderr.String())))
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
