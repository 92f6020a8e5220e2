package atomicfile

import (
	"errors"

	"golang.org/x/sys/windows"
)

// isBusy reports a rename refused because another process has the target
// open: a sharing or lock violation, or access denied (what MoveFileEx
// returns for a file open without FILE_SHARE_DELETE).
func isBusy(err error) bool {
	return errors.Is(err, windows.ERROR_SHARING_VIOLATION) || errors.Is(err, windows.ERROR_LOCK_VIOLATION) ||
		errors.Is(err, windows.ERROR_ACCESS_DENIED)
}
