package guard

// read.go: reading the server's output line by line.

import (
	"bufio"
	"errors"
	"io"
)

// serverLoop reads the server's messages until its output ends and
// handles each (fromServer). A line longer than MaxMessageBytes is
// refused (skipped to its end). It returns the read error other than EOF.
func (p *proxy) serverLoop(r io.Reader) error {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, tooLong, err := readLine(br, p.opts.MaxMessageBytes)
		if tooLong {
			p.logf("refused a message longer than %d bytes: not forwarded", p.opts.MaxMessageBytes)
		} else if len(line) > 0 {
			if err != nil {
				p.logf("refused %d bytes the server wrote without ending the line (it exited mid-message?): not forwarded", len(line))
			} else {
				p.fromServer(line)
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// readLine reads one line without its newline; a line longer than max is
// read to its end and dropped (tooLong). err is non-nil only when the
// stream ended (line then holds what came after the last newline).
func readLine(br *bufio.Reader, max int64) (line []byte, tooLong bool, err error) {
	var n int64
	for {
		chunk, err := br.ReadSlice('\n')
		n += int64(len(chunk))
		if !tooLong {
			if n-1 > max {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err == nil && !tooLong {
			line = line[:len(line)-1]
		}
		return line, tooLong, err
	}
}
