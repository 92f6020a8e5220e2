package guard

// read.go: reading the server's output line by line, spilling long lines
// to a temporary file (see Streaming in the package doc).

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/agentgate/agentgate/internal/sys/mmap"
)

// serverLoop reads the server's messages until its output ends and
// handles each (fromServer). It returns the read error other than EOF.
func (p *proxy) serverLoop(r io.Reader) error {
	lr := newLineReader(r, int(min(p.opts.SpillBytes, math.MaxInt-1))+1) // a line of SpillBytes and its newline
	for {
		err := p.nextLine(lr)
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// nextLine reads one line of the server's and handles it. A line of at
// most SpillBytes is handled where it lies in lr's buffer (fromServer
// gets it with its newline just past its end: send writes both at once);
// a longer one is written to a temporary file as it comes, then copied
// into private memory outside the heap and handled from there
// (fromSpill), so that it never sits whole in the heap. A line longer than MaxMessageBytes is read to its end and
// refused, and so is a line the stream ends in (the server exited
// mid-message). The error is the read error (io.EOF at the end).
func (p *proxy) nextLine(lr *lineReader) error {
	var mem []byte // the whole line, when it came in one piece
	var spill *os.File
	var n int64
	tooLong := false
	defer func() {
		if spill != nil {
			spill.Close()
			os.Remove(spill.Name())
		}
	}()
	for first := true; ; first = false {
		chunk, err := lr.ReadSlice()
		complete := err == nil
		if complete {
			chunk = chunk[:len(chunk)-1]
		}
		n += int64(len(chunk))
		switch {
		case tooLong:
		case n > p.opts.MaxMessageBytes:
			tooLong = true
		case spill == nil && n <= p.opts.SpillBytes:
			// lr holds a line of SpillBytes whole: a shorter one in
			// pieces only ends the stream, and is refused.
			if first && complete {
				mem = chunk
			}
		default:
			if spill == nil {
				f, ferr := os.CreateTemp(p.opts.TempDir, "agentgate-guard-*")
				if ferr != nil {
					return fmt.Errorf("spill a long message: %w", ferr)
				}
				spill = f
			}
			if _, werr := spill.Write(chunk); werr != nil {
				return fmt.Errorf("spill a long message: %w", werr)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		switch {
		case tooLong:
			p.logf("refused a message longer than %d bytes: not forwarded", p.opts.MaxMessageBytes)
		case n > 0 && !complete:
			p.logf("refused %d bytes the server wrote without ending the line (it exited mid-message?): not forwarded", n)
		case spill != nil:
			if herr := p.fromSpill(spill, n); herr != nil {
				return herr
			}
		case n > 0:
			p.fromServer(mem)
		}
		return err
	}
}

// fromSpill handles a message held in the file f (size bytes), from a
// private copy of it taken before any check: outside the heap where the
// OS can (mmap.Copy), else read into the heap. Never from the file
// itself: the server runs as the same user and can open the file
// (through /proc/PID/fd, or by its name) and rewrite it after guard
// checked it, and a view of the file (mmap.Map) would show the client
// the rewritten bytes (TestSpillRewrittenAfterCheck).
func (p *proxy) fromSpill(f *os.File, size int64) error {
	if m := mmap.Copy(f, size); m != nil {
		defer mmap.Unmap(m)
		p.fromServer(m)
		return nil
	}
	b := make([]byte, size)
	if n, err := f.ReadAt(b, 0); int64(n) != size {
		p.logf("refused a long message: reading it back from its temporary file gave %d of %d bytes (%v): not forwarded", n, size, err)
		return nil
	}
	p.fromServer(b)
	return nil
}
