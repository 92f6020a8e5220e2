package capture

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"testing"
)

// FuzzReadLine: readLine returns exactly the newline-separated lines of its
// input, or errLineTooLong as soon as one is longer than max.
func FuzzReadLine(f *testing.F) {
	f.Add([]byte("{\"a\":1}\n{\"b\":2}\n"), 8)
	f.Add([]byte("no newline at end"), 100)
	f.Add([]byte("\n\n\nx"), 1)
	f.Add(bytes.Repeat([]byte("y"), 70000), 65536)
	f.Fuzz(func(t *testing.T, data []byte, max int) {
		if max < 0 || max > 1<<20 {
			return
		}
		br := bufio.NewReaderSize(bytes.NewReader(data), 16)
		want := bytes.Split(data, []byte("\n"))
		if len(want[len(want)-1]) == 0 {
			want = want[:len(want)-1] // a final newline ends the last line
		}
		for i := 0; ; i++ {
			line, err := readLine(br, int64(max))
			if errors.Is(err, errLineTooLong) {
				if i >= len(want) || len(want[i]) <= max {
					t.Fatalf("line %d: too long reported, want %q (max %d)", i, want, max)
				}
				return
			}
			if i < len(want) && len(want[i]) > max {
				t.Fatalf("line %d of %d bytes accepted with max %d", i, len(want[i]), max)
			}
			if err == io.EOF && len(line) == 0 && i == len(want) {
				return
			}
			if i >= len(want) || !bytes.Equal(line, want[i]) {
				t.Fatalf("line %d = %q, want %q", i, line, want)
			}
			if err != nil {
				if err != io.EOF || i != len(want)-1 {
					t.Fatalf("line %d: err %v", i, err)
				}
				return
			}
		}
	})
}
