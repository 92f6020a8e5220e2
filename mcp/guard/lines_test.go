package guard

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"testing"
	"testing/iotest"

	"github.com/agentgate/agentgate/internal/testing/fakeserver"
)

// chunkReader returns at most k bytes a Read, and every third Read
// nothing (0, nil), as a pipe may.
type chunkReader struct {
	b []byte
	k int
	n int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	c.n++
	if c.n%3 == 0 {
		return 0, nil
	}
	if len(c.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), c.k)], c.b)
	c.b = c.b[n:]
	return n, nil
}

// readAll splits what next hands out into the lines it makes (pieces up
// to a nil error joined), the last one unterminated, and the error that
// ended it; it checks every piece against max.
func readAll(t *testing.T, next func() ([]byte, error), max int) ([]string, error) {
	var lines []string
	var cur []byte
	pieces := 0
	for range 1 << 16 {
		piece, err := next()
		if max > 0 && len(piece) > max {
			t.Fatalf("a piece of %d bytes, more than the buffer's %d", len(piece), max)
		}
		cur = append(cur, piece...)
		pieces++
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if max > 0 && err == nil && len(cur) <= max && pieces > 1 {
			t.Fatalf("a line of %d bytes in %d pieces, with a buffer of %d", len(cur), pieces, max)
		}
		pieces = 0
		if err != nil {
			if len(cur) > 0 {
				lines = append(lines, string(cur)+"<unterminated>")
			}
			return lines, err
		}
		lines = append(lines, string(cur))
		cur = nil
	}
	t.Fatal("no end")
	return nil, nil
}

// FuzzLineReader compares lineReader with bufio.Reader.ReadSlice: the
// same lines (pieces joined) and the same end, whatever the reads return;
// every piece fits max, and a line that fits max (with its newline) comes
// in one piece (what nextLine relies on to hand a message out where it
// lies).
func FuzzLineReader(f *testing.F) {
	f.Add([]byte("{\"a\":1}\n{\"b\":2}\n"), uint8(3), uint8(7))
	f.Add([]byte("one long line without an end"), uint8(1), uint8(1))
	f.Add(bytes.Repeat([]byte("0123456789\n"), 40), uint8(64), uint8(200))
	f.Add([]byte("\n\n\nx\n"), uint8(2), uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, max, k uint8) {
		m := int(max)%300 + 1
		kk := int(k)%400 + 1
		lr := newLineReader(&chunkReader{b: data, k: kk}, m)
		got, gerr := readAll(t, lr.ReadSlice, m)
		br := bufio.NewReaderSize(iotest.OneByteReader(bytes.NewReader(data)), 16)
		want, werr := readAll(t, func() ([]byte, error) { return br.ReadSlice('\n') }, 0)
		if !errors.Is(gerr, werr) {
			t.Fatalf("ended with %v, bufio with %v", gerr, werr)
		}
		if len(got) != len(want) {
			t.Fatalf("%d lines, bufio %d:\n%q\n%q", len(got), len(want), got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("line %d: %q, bufio %q", i, got[i], want[i])
			}
		}
	})
}

// TestLineReaderOnePiece: a line that fits comes in one piece, with its
// newline, and once the buffer grew, a wide read fetches the next at once.
func TestLineReaderOnePiece(t *testing.T) {
	one := append(bytes.Repeat([]byte("x"), 300_000), '\n')
	msg := append(append([]byte{}, one...), one...)
	reads := 0
	r := readFunc(func(p []byte) (int, error) {
		reads++
		if len(msg) == 0 {
			return 0, io.EOF
		}
		n := copy(p, msg)
		msg = msg[n:]
		return n, nil
	})
	lr := newLineReader(r, 1<<20+1)
	line, err := lr.ReadSlice()
	if err != nil || len(line) != 300_001 || line[len(line)-1] != '\n' {
		t.Fatalf("ReadSlice = %d bytes, %v", len(line), err)
	}
	// 64 KiB, then the buffer doubles to 128, 256 and 512 KiB: four reads
	// for the first message; the buffer keeps its size for the next.
	if reads != 4 {
		t.Errorf("%d reads for a 300 KB line, want 4", reads)
	}
	// The second line: what is left after the first (reads are 64 KiB
	// aligned to nothing in particular) and one read for the rest.
	reads = 0
	line, err = lr.ReadSlice()
	if err != nil || !bytes.Equal(line, one) {
		t.Fatalf("second ReadSlice = %d bytes, %v", len(line), err)
	}
	if reads > 1 {
		t.Errorf("%d reads for the second 300 KB line, want at most 1", reads)
	}
}

type readFunc func([]byte) (int, error)

func (f readFunc) Read(p []byte) (int, error) { return f(p) }

// writes records each Write.
type writes struct{ got [][]byte }

func (w *writes) Write(b []byte) (int, error) {
	w.got = append(w.got, bytes.Clone(b))
	return len(b), nil
}

// TestSendOneWrite: a message larger than the output buffer goes out with
// its newline in one write when the newline lies past its end (a line as
// the server loop read it), in two otherwise; the bytes are the same.
func TestSendOneWrite(t *testing.T) {
	big := append(bytes.Repeat([]byte("y"), 200_000), '\n')
	for _, tc := range []struct {
		name   string
		msg    []byte
		writes int
	}{
		{"newline past the end", big[:len(big)-1], 1},
		{"no room past the end", bytes.Clone(big[:len(big)-1]), 2},
		{"another byte past the end", append(bytes.Clone(big[:len(big)-1]), 'z')[:len(big)-1], 2},
		{"small", []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`), 1},
	} {
		w := &writes{}
		p := newProxy(Options{Server: "s"}, w)
		p.send(tc.msg)
		if len(w.got) != tc.writes {
			t.Errorf("%s: %d writes, want %d", tc.name, len(w.got), tc.writes)
		}
		if all := bytes.Join(w.got, nil); !bytes.Equal(all, append(bytes.Clone(tc.msg), '\n')) {
			t.Errorf("%s: wrote %d bytes, not the message and a newline", tc.name, len(all))
		}
	}
}

// repeatReader returns msg over and over, at most chunk bytes a Read (a
// pipe's capacity); with one set, never past the end of one msg (one
// message in the pipe at a time, as in a round trip), else back to back.
type repeatReader struct {
	msg   []byte
	at    int
	chunk int
	one   bool
}

func (r *repeatReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) && n < r.chunk {
		c := copy(p[n:min(len(p), r.chunk)], r.msg[r.at:])
		n += c
		r.at = (r.at + c) % len(r.msg)
		if r.one {
			break
		}
	}
	return n, nil
}

// BenchmarkReadLine reads one 1,000-tool listing a op as the server loop
// did before (a 64 KiB bufio.Reader, its pieces appended into a line
// buffer) and as it does now (lineReader, the line where it lies), from a
// reader that returns at most 64 KiB (a default pipe) or 1 MiB (a widened
// one) a Read, one message at a time ("one", guard's round trips) or
// back to back ("stream": lineReader then moves the part of the next
// message it read to the front of its buffer).
func BenchmarkReadLine(b *testing.B) {
	msg := append(listingOf(fakeserver.Generate(1000, 256)), '\n')
	for _, one := range []bool{true, false} {
		for _, chunk := range []int{64 << 10, 1 << 20} {
			name := fmt.Sprintf("%s/%dKiB", map[bool]string{true: "one", false: "stream"}[one], chunk>>10)
			b.Run("bufio/"+name, func(b *testing.B) {
				br := bufio.NewReaderSize(&repeatReader{msg: msg, chunk: chunk, one: one}, 64<<10)
				var line []byte
				b.SetBytes(int64(len(msg)))
				for b.Loop() {
					line = line[:0]
					for {
						piece, err := br.ReadSlice('\n')
						line = append(line, piece...)
						if err == nil {
							break
						}
					}
				}
			})
			b.Run("lineReader/"+name, func(b *testing.B) {
				lr := newLineReader(&repeatReader{msg: msg, chunk: chunk, one: one}, DefaultSpillBytes+1)
				b.SetBytes(int64(len(msg)))
				for b.Loop() {
					if line, err := lr.ReadSlice(); err != nil || len(line) != len(msg) {
						b.Fatalf("%d bytes, %v", len(line), err)
					}
				}
			})
		}
	}
}
