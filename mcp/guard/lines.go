package guard

// lines.go: the server loop's reader, a bufio.Reader whose buffer grows.

import (
	"bufio"
	"bytes"
	"io"
)

// lineReader reads lines as bufio.Reader.ReadSlice does, from a buffer
// that starts at lineReaderMin bytes and doubles, up to max, while a line
// does not fit. So a message of up to max bytes is handed out as it lies
// in the buffer (no copy, unlike ReadSlice's pieces appended together),
// with its newline after it, and each Read asks for all the room left: a
// message the server wrote in one piece into a wide pipe (internal/sys/pipes)
// comes in one read, where a 64 KiB bufio.Reader needs one per 64 KiB.
// FuzzLineReader compares it with bufio.Reader.
type lineReader struct {
	r          io.Reader
	buf        []byte
	start, end int // the unread bytes: buf[start:end]
	scanned    int // buf[start:start+scanned] holds no newline
	max        int
	err        error // the read's error, returned once the bytes before it are
	empty      int   // reads in a row that returned nothing
}

// lineReaderMin is a lineReader's first buffer size.
const lineReaderMin = 64 << 10

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{r: r, buf: make([]byte, min(lineReaderMin, max)), max: max}
}

// ReadSlice is bufio.Reader.ReadSlice('\n'): the next line with its
// newline (err nil); or, when a line does not fit in max bytes, the
// buffer's max bytes of it (bufio.ErrBufferFull) and the rest by the
// next calls; or what is left when the read ends (with the read's error,
// io.EOF at the end). The slice is valid until the next call.
func (l *lineReader) ReadSlice() ([]byte, error) {
	for {
		if i := bytes.IndexByte(l.buf[l.start+l.scanned:l.end], '\n'); i >= 0 {
			i += l.start + l.scanned
			line := l.buf[l.start : i+1]
			l.start, l.scanned = i+1, 0
			return line, nil
		}
		l.scanned = l.end - l.start
		if l.err != nil {
			line := l.buf[l.start:l.end]
			l.start, l.end, l.scanned = 0, 0, 0
			err := l.err
			l.err = nil
			return line, err
		}
		if l.start == l.end {
			l.start, l.end = 0, 0 // an empty buffer reads from the front
		}
		if l.end == len(l.buf) { // no room left: move the line to the front, or grow, or hand out what is full
			n := l.end - l.start
			switch {
			case l.start > 0:
				copy(l.buf, l.buf[l.start:l.end])
			case len(l.buf) < l.max:
				b := make([]byte, min(2*len(l.buf), l.max))
				copy(b, l.buf[:l.end])
				l.buf = b
			default:
				l.start, l.end, l.scanned = 0, 0, 0
				return l.buf, bufio.ErrBufferFull
			}
			l.start, l.end = 0, n
		}
		n, err := l.r.Read(l.buf[l.end:])
		l.end += n
		switch {
		case err != nil:
			l.err = err
		case n > 0:
			l.empty = 0
		default:
			if l.empty++; l.empty >= 100 { // as bufio.Reader: a reader that never returns data
				l.err = io.ErrNoProgress
			}
		}
	}
}
