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
// content, never an interleaving; the last rename wins. It is Prepare, then
// Commit.
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	pf, err := Prepare(path, data, perm)
	if err != nil {
		return err
	}
	return pf.Commit()
}

// Pending is a file written by Prepare and not yet in place: a synced
// temporary file in the target's directory, holding the new content with
// the permission bits the target will keep.
type Pending struct {
	path, dir, tmp string
}

// Prepare does everything WriteFile does before the rename: it resolves a
// symbolic link at path, checks that path is a regular file (or does not
// exist), and writes, chmods and syncs the temporary file. Nothing is
// replaced until Commit; Abort removes the temporary file. On error
// nothing is left behind. Writing several files all or nothing is Prepare
// for each, then Commit for each (see WriteFiles).
func Prepare(path string, data []byte, perm fs.FileMode) (pf *Pending, err error) {
	if target, err := filepath.EvalSymlinks(path); err == nil {
		path = target
	}
	mode := perm.Perm()
	if fi, err := os.Stat(path); err == nil {
		if !fi.Mode().IsRegular() {
			return nil, fmt.Errorf("write %s: not a regular file", path)
		}
		mode = fi.Mode().Perm()
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", path, err)
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
		return nil, err
	}
	if err = f.Chmod(mode); err != nil {
		return nil, err
	}
	if err = f.Sync(); err != nil {
		return nil, err
	}
	if err = f.Close(); err != nil {
		return nil, err
	}
	return &Pending{path: path, dir: dir, tmp: tmp}, nil
}

// Commit renames the temporary file over the target and syncs the
// directory. On error the target is untouched and the temporary file
// removed.
func (pf *Pending) Commit() error {
	if err := replace(pf.tmp, pf.path); err != nil {
		os.Remove(pf.tmp)
		return fmt.Errorf("write %s: %w", pf.path, err)
	}
	if d, derr := os.Open(pf.dir); derr == nil {
		d.Sync() // best effort: some file systems cannot sync directories
		d.Close()
	}
	return nil
}

// Abort removes the temporary file; the target is untouched.
func (pf *Pending) Abort() { os.Remove(pf.tmp) }

// FileWrite is one file of WriteFiles: its path, the new content, the
// permission bits for a new file (see WriteFile), and the content it has
// now, which WriteFiles writes back when it cannot write them all.
type FileWrite struct {
	Path      string
	Data, Old []byte
	Perm      fs.FileMode
}

// WriteFiles writes every file of ws all or nothing: each is prepared
// first (Prepare: the temporary file written and synced next to it), and
// only when every one was are they renamed into place, in order. When a
// preparation fails nothing is replaced; when a rename fails the files
// already replaced get their old content back (WriteFile of Old). The error names the file that failed
// (index i in ws); restore, when not nil, is what went wrong putting the
// others back.
func WriteFiles(ws []FileWrite) (failed int, err, restore error) {
	pending := make([]*Pending, 0, len(ws))
	for i, w := range ws {
		pf, err := Prepare(w.Path, w.Data, w.Perm)
		if err != nil {
			for _, p := range pending {
				p.Abort()
			}
			return i, err, nil
		}
		pending = append(pending, pf)
	}
	for i, pf := range pending {
		if err := pf.Commit(); err != nil {
			for _, p := range pending[i+1:] {
				p.Abort()
			}
			var errs []error
			for _, w := range ws[:i] {
				errs = append(errs, WriteFile(w.Path, w.Old, w.Perm))
			}
			return i, err, errors.Join(errs...)
		}
	}
	return -1, nil, nil
}
