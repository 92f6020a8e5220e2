package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// rename is os.Rename; tests replace it to make the last step fail.
var rename = os.Rename

// WriteFile writes data to path atomically: it writes a temporary file in
// the same directory, syncs it, gives it the existing file's permission bits
// (perm when path does not exist), renames it over path and syncs the
// directory. If path is a symbolic link, the file it points to is replaced
// and the link kept. On any error the old file is untouched and the
// temporary file removed.
//
// Concurrent writers each use their own temporary file, and rename is
// atomic, so a reader sees either the old content or one writer's complete
// content, never an interleaving; the last rename wins.
func WriteFile(path string, data []byte, perm fs.FileMode) (err error) {
	if target, err := filepath.EvalSymlinks(path); err == nil {
		path = target
	}
	mode := perm.Perm()
	if fi, err := os.Stat(path); err == nil {
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("write %s: not a regular file", path)
		}
		mode = fi.Mode().Perm()
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("write %s: %w", path, err)
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
			err = fmt.Errorf("write %s: %w", path, err)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Chmod(mode); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = replace(tmp, path); err != nil {
		return err
	}
	if d, derr := os.Open(dir); derr == nil {
		d.Sync() // best effort: some file systems cannot sync directories
		d.Close()
	}
	return nil
}
