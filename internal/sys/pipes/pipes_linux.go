package pipes

import (
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Widen sets the capacity of the pipe f is an end of to size bytes (at
// most /proc/sys/fs/pipe-max-size), unless it is larger already, and
// returns the capacity it has then (so Widen(f, 0) only reads it). A file
// that is not a pipe is left alone (0, nil). It uses f.SyscallConn, not f.Fd, so f stays in
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
		if got, err = fifoSize(fd); err != nil || got == 0 || got >= size {
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

// fifoSize is the capacity of the pipe fd is an end of: 0 and no error
// when fd is not a pipe, 0 and the error when fstat fails.
func fifoSize(fd uintptr) (int, error) {
	var st unix.Stat_t
	if err := unix.Fstat(int(fd), &st); err != nil {
		return 0, err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFIFO {
		return 0, nil
	}
	return unix.FcntlInt(fd, unix.F_GETPIPE_SZ, 0)
}
