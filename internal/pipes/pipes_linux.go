package pipes

import (
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Widen sets the capacity of the pipe f is an end of to size bytes (at
// most /proc/sys/fs/pipe-max-size), unless it is larger already, and
// returns the capacity it has then. A file that is not a pipe is left
// alone (0, nil). It uses f.SyscallConn, not f.Fd, so f stays in
// non-blocking mode (Go's poller).
func Widen(f *os.File, size int) (int, error) {
	c, err := f.SyscallConn()
	if err != nil {
		return 0, err
	}
	if m := maxSize(); m > 0 && size > m {
		size = m
	}
	got := 0
	cerr := c.Control(func(fd uintptr) {
		var st unix.Stat_t
		if err = unix.Fstat(int(fd), &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFIFO {
			return
		}
		if got, err = unix.FcntlInt(fd, unix.F_GETPIPE_SZ, 0); err != nil || got >= size {
			return
		}
		got, err = unix.FcntlInt(fd, unix.F_SETPIPE_SZ, size)
	})
	if cerr != nil {
		return 0, cerr
	}
	return got, err
}

// maxSize is /proc/sys/fs/pipe-max-size, or 0 when it cannot be read.
func maxSize() int {
	b, err := os.ReadFile("/proc/sys/fs/pipe-max-size")
	if err != nil {
		return 0
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return n
}

// Size returns the capacity of the pipe f is an end of (0 when f is not a
// pipe or it cannot be read).
func Size(f *os.File) int {
	c, err := f.SyscallConn()
	if err != nil {
		return 0
	}
	n := 0
	_ = c.Control(func(fd uintptr) {
		var st unix.Stat_t
		if unix.Fstat(int(fd), &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFIFO {
			n, _ = unix.FcntlInt(fd, unix.F_GETPIPE_SZ, 0)
		}
	})
	return n
}
