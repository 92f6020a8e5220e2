package bridge

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

func TestSSEReader(t *testing.T) {
	// The HTML event-stream rules by hand: a comment; a priming event
	// with an id, a retry and empty data (not dispatched, its id and
	// retry kept); two data lines (joined, here by a space); CRLF; an
	// "endpoint" event; an unfinished event at the end (dropped).
	stream := ": hi\n\nid: e1\nretry: 250\ndata:\n\nevent: message\ndata: {\"a\":\r\ndata: 1}\r\n\r\nevent: endpoint\ndata: /m?s=1\n\ndata: {\"cut"
	sr := newSSEReader(strings.NewReader(stream), 100)
	var got []string
	for {
		ev, err := sr.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, ev.typ+"|"+string(ev.data))
	}
	want := []string{`message|{"a": 1}`, "endpoint|/m?s=1"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("events %q, want %q", got, want)
	}
	if !sr.hasID || sr.lastID != "e1" || sr.retry != 250*time.Millisecond {
		t.Errorf("id %q (%v), retry %v", sr.lastID, sr.hasID, sr.retry)
	}
	big := newSSEReader(strings.NewReader("data: "+strings.Repeat("x", 60)+"\ndata: "+strings.Repeat("y", 60)+"\n\n"), 100)
	if _, err := big.next(); !errors.Is(err, errEventTooLarge) {
		t.Errorf("an event over the limit: %v", err)
	}
}

// TestReadLineLimit: a line of at most max bytes is read, with or without
// its newline; one byte more is errLineTooLong, also at the end of the
// input (where the newline that the limit allows for is missing).
func TestReadLineLimit(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string
		err  error
	}{
		{"abc\nrest", "abc", nil},
		{"abc", "abc", io.EOF},
		{"abcd\n", "", errLineTooLong},
		{"abcd", "", errLineTooLong},
	} {
		line, err := readLine(bufio.NewReaderSize(strings.NewReader(tc.in), 16), 3)
		if string(line) != tc.want || err != tc.err {
			t.Errorf("readLine(%q, 3) = %q, %v; want %q, %v", tc.in, line, err, tc.want, tc.err)
		}
	}
}
