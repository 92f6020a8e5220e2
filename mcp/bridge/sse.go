package bridge

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strconv"
	"time"
)

// Written by hand: mcp-go's SSE reader is unexported, gin-contrib/sse's
// Decode reads the whole body first (a stream never ends), and neither
// bounds one event's size.

// event is one server-sent event.
type event struct {
	typ  string // "" means "message"
	data []byte // data lines joined by spaces (a JSON message's line breaks fall between tokens)
}

// sseReader reads the events of a text/event-stream body, as the HTML
// event-stream rules say: lines end at LF or CRLF (a lone CR is not taken
// as an end of line), a line starting with ":" is a comment, an event ends
// at a blank line, and an event without data (or with empty data) is
// not dispatched, though its id and retry count. One event's
// data is at most max bytes.
type sseReader struct {
	br  *bufio.Reader
	max int64
	// lastID is the last event id the stream gave (hasID: it gave one),
	// retry the last reconnect delay it asked for (0: none).
	lastID string
	hasID  bool
	retry  time.Duration
}

var errEventTooLarge = errors.New("an event larger than the limit")

func newSSEReader(r io.Reader, max int64) *sseReader {
	return &sseReader{br: bufio.NewReaderSize(r, 64<<10), max: max}
}

// next returns the next event with data; io.EOF at the end of the stream
// (an unfinished event at the end is dropped, as browsers do).
func (s *sseReader) next() (event, error) {
	var ev event
	var data []byte
	have := false
	for {
		line, err := readLine(s.br, s.max)
		if err != nil && !(err == io.EOF && len(line) > 0) {
			if errors.Is(err, errLineTooLong) {
				return event{}, errEventTooLarge
			}
			return event{}, err
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(line) == 0 {
			if have && len(data) > 0 {
				ev.data = data
				return ev, nil
			}
			// An event with no data, or only empty data (a "priming"
			// event that carries an id or retry), is not dispatched.
			ev, data, have = event{}, nil, false
			continue
		}
		if line[0] == ':' {
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(field) {
		case "data":
			if have {
				data = append(data, ' ')
			}
			data = append(data, value...)
			have = true
			if int64(len(data)) > s.max {
				return event{}, errEventTooLarge
			}
		case "event":
			ev.typ = string(value)
		case "id":
			if bytes.IndexByte(value, 0) < 0 {
				s.lastID, s.hasID = string(value), true
			}
		case "retry":
			if ms, err := strconv.ParseUint(string(value), 10, 31); err == nil {
				s.retry = time.Duration(ms) * time.Millisecond
			}
		}
		if err == io.EOF {
			return event{}, io.EOF
		}
	}
}
