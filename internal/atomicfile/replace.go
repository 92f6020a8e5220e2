package atomicfile

import (
	"errors"
	"fmt"
	"time"
)

// replaceWaits are the pauses between attempts to rename the new lockfile
// over one that another program holds open: Windows refuses to replace a
// file an editor, a virus scanner or a sync client has open without
// FILE_SHARE_DELETE, and most let go within a moment. About 1.6 s in all.
var replaceWaits = []time.Duration{
	10 * time.Millisecond, 20 * time.Millisecond, 50 * time.Millisecond,
	100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond,
}

// fileBusy reports whether a rename failed because another program holds
// the target open (see busy_windows.go; never elsewhere). Tests replace it.
var fileBusy = isBusy

// BusyError is a lockfile that could not be replaced because another
// program kept it open through every retry.
type BusyError struct {
	Path string // the lockfile that could not be replaced
	Err  error  // the last rename error
}

// Error names the file and the last rename error.
func (e *BusyError) Error() string {
	return fmt.Sprintf("another program holds %s open and the OS refuses to replace it (%v)", e.Path, e.Err)
}

// Hints says how to fix it.
func (e *BusyError) Hints() []string {
	return []string{"close " + e.Path + " in your editor (or pause the virus scanner or sync client holding it), then run the command again"}
}

// Unwrap returns the last rename error, for errors.Is and errors.As.
func (e *BusyError) Unwrap() error { return e.Err }

// replace renames tmp over path, retrying after each of replaceWaits while
// fileBusy says the target is held open; then the error is a *BusyError.
func replace(tmp, path string) error {
	err := rename(tmp, path)
	for _, d := range replaceWaits {
		if err == nil || !fileBusy(err) {
			return err
		}
		time.Sleep(d)
		err = rename(tmp, path)
	}
	if err != nil && fileBusy(err) {
		return &BusyError{Path: path, Err: errors.Unwrap(err)}
	}
	return err
}
