package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/agentgate/agentgate/internal/atomicfile"
	"github.com/agentgate/agentgate/internal/safetext"
	"github.com/agentgate/agentgate/lock"
)

// mergeDriverName is the driver's name in .gitattributes and git config.
const mergeDriverName = "agentgate"

// installMergeDriver adds the lockfile's line to the root .gitattributes
// (unless an identical line is there) and sets merge.agentgate.name and
// merge.agentgate.driver in the repository's git config.
func installMergeDriver(e *env) error {
	dirs, err := gitHookDirs(e)
	if err != nil {
		return err
	}
	ws, err := openWorkspace(e, true, true, "", "install")
	if err != nil {
		return err
	}
	pattern := ws.LockRel
	if pattern != lock.FileName {
		pattern = "/" + pattern
	}
	if strings.ContainsAny(pattern, " \t\n\r\"\\") || strings.HasPrefix(ws.LockRel, "../") || filepath.IsAbs(ws.LockRel) {
		return invalid(fmt.Errorf("lockfile %s: install --merge-driver needs a lockfile inside the repository whose path has no spaces, quotes or backslashes", safetext.VisibleLine(ws.LockRel)),
			"add the line to .gitattributes by hand, quoted as gitattributes(5) describes: <path> merge="+mergeDriverName)
	}
	line := pattern + " merge=" + mergeDriverName
	attrs := filepath.Join(dirs.top, ".gitattributes")
	old, err := os.ReadFile(attrs)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return unverified(fmt.Errorf("cannot read %s: %v", safetext.VisibleLine(shownPath(e, attrs)), err))
	}
	has := false
	for _, l := range strings.Split(string(old), "\n") {
		if strings.Join(strings.Fields(l), " ") == line {
			has = true
		}
	}
	if !has {
		data := old
		if len(data) > 0 && !bytes.HasSuffix(data, []byte("\n")) {
			data = append(data, '\n')
		}
		data = append(data, line+"\n"...)
		if err := atomicfile.WriteFile(attrs, data, 0o644); err != nil {
			return unverified(fmt.Errorf("cannot write %s: %v", safetext.VisibleLine(shownPath(e, attrs)), err))
		}
		fmt.Fprintf(e.stdout, "agentgate: added %q to %s (commit it so every clone uses the driver)\n", line, safetext.VisibleLine(shownPath(e, attrs)))
	} else {
		fmt.Fprintf(e.stdout, "agentgate: %s already has %q\n", safetext.VisibleLine(shownPath(e, attrs)), line)
	}
	binary, note := hookBinary()
	if note != "" {
		fmt.Fprintf(e.stderr, "agentgate: %s\n", safetext.VisibleLine(strings.Replace(note, "the hook", "the merge driver", 1)))
	}
	run := "agentgate"
	if binary != "" {
		run = shellQuote(binary)
	}
	driver := run + " merge-driver --marker-size=%L %O %A %B %P"
	for _, kv := range [][2]string{
		{"merge." + mergeDriverName + ".name", "agentgate.lock per-server merge (agentgate merge-driver)"},
		{"merge." + mergeDriverName + ".driver", driver},
	} {
		cmd := exec.CommandContext(e.ctx, "git", "config", "--local", kv[0], kv[1])
		cmd.Dir = e.dir
		if out, err := cmd.CombinedOutput(); err != nil {
			return unverified(fmt.Errorf("git config %s: %v: %s", kv[0], err, strings.TrimSpace(string(out))))
		}
	}
	fmt.Fprintf(e.stdout, "agentgate: set merge.%s.driver in the repository's git config: %s\n", mergeDriverName, safetext.VisibleLine(driver))
	return nil
}

// shellQuote quotes s for sh (git runs merge drivers through the shell).
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+:@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
