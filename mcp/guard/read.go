package guard

// read.go: reading the server's output line by line, spilling long lines
// to a temporary file (see Streaming in the package doc).

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/agentgate/agentgate/internal/mmap"
)

// serverLoop reads the server's messages until its output ends and
// handles each (fromServer). It returns the read error other than EOF.
func (p *proxy) serverLoop(r io.Reader) error {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		err := p.nextLine(br)
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// nextLine reads one line of the server's and handles it. A line of at
// most SpillBytes is read into memory; a longer one is written to a
// temporary file as it comes, then mapped (mmap) read-only and handled
// from there, so that it never sits whole in the heap. A line longer than
// MaxMessageBytes is read to its end and refused, and so is a line the
// stream ends in (the server exited mid-message). The error is the read
// error (io.EOF at the end).
func (p *proxy) nextLine(br *bufio.Reader) error {
	mem := p.line[:0] // reused: fromServer keeps no part of a message
	defer func() {
		if cap(mem) > cap(p.line) && int64(cap(mem)) <= 2*p.opts.SpillBytes {
			p.line = mem[:0] // it grew: keep the larger buffer
		}
	}()
	var spill *os.File
	var n int64
	tooLong := false
	defer func() {
		if spill != nil {
			spill.Close()
			os.Remove(spill.Name())
		}
	}()
	for {
		chunk, err := br.ReadSlice('\n')
		complete := err == nil
		if complete {
			chunk = chunk[:len(chunk)-1]
		}
		n += int64(len(chunk))
		switch {
		case tooLong:
		case n > p.opts.MaxMessageBytes:
			tooLong, mem = true, nil
		case spill == nil && n <= p.opts.SpillBytes:
			mem = append(mem, chunk...)
		default:
			if spill == nil {
				f, ferr := os.CreateTemp(p.opts.TempDir, "agentgate-guard-*")
				if ferr != nil {
					return fmt.Errorf("spill a long message: %w", ferr)
				}
				spill = f
				if _, werr := spill.Write(mem); werr != nil {
					return fmt.Errorf("spill a long message: %w", werr)
				}
				mem = nil
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

// fromSpill handles a message held in the file f (size bytes): mapped
// where the OS can, else read back into memory.
func (p *proxy) fromSpill(f *os.File, size int64) error {
	if m := mmap.Map(f, size); m != nil {
		defer mmap.Unmap(m)
		p.fromServer(m)
		return nil
	}
	b := make([]byte, size)
	if _, err := f.ReadAt(b, 0); err != nil {
		return fmt.Errorf("read back a long message: %w", err)
	}
	p.fromServer(b)
	return nil
}
