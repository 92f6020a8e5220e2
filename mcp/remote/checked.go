package remote

// checked.go: the bodies of a Client with CheckMembers: every JSON body
// and event checked before the reader gets it.

import (
	"bytes"
	"encoding/json"
	"io"

	"github.com/agentgate/agentgate/mcp/jsonrpc"
)

// sseChecker passes an event stream through unchanged, and checks the
// data of every event with jsonrpc.CheckMembersOf before the blank line that ends
// the event reaches the reader: an ambiguous event (or one whose data
// lines together exceed max bytes) makes Read fail, after calling onBad,
// so that mcp-go never dispatches it.
type sseChecker struct {
	rc      io.ReadCloser
	max     int64
	onBad   func(error)
	onEvent func([]byte) // each accepted event's data (a copy); nil: none
	// exchange, when not nil, checks each event's JSON data
	// (Exchange.Received) after CheckMembersOf.
	exchange *jsonrpc.Exchange
	line     []byte // the current line so far
	data     []byte // the current event's data so far
	err      error
}

func (s *sseChecker) Read(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.rc.Read(p)
	start := 0
	for i := 0; i < n; i++ {
		if p[i] != '\n' {
			continue
		}
		s.line = append(s.line, p[start:i]...)
		start = i + 1
		if e := s.endLine(); e != nil {
			s.err = e
			s.onBad(e)
			return 0, e
		}
		s.line = s.line[:0]
	}
	s.line = append(s.line, p[start:n]...)
	if int64(len(s.line)) > s.max {
		s.line = s.line[:0] // limitedBody bounds lines; this only bounds memory
	}
	if err == io.EOF && len(s.data) > 0 {
		// A reader dispatches an event the stream ends in.
		if e := s.dispatch(s.data); e != nil {
			s.err = e
			s.onBad(e)
			return 0, e
		}
	}
	return n, err
}

func (s *sseChecker) endLine() error {
	line := bytes.TrimSuffix(s.line, []byte("\r"))
	if len(line) == 0 {
		data := s.data
		s.data = s.data[:0]
		if len(data) > 0 {
			return s.dispatch(data)
		}
		return nil
	}
	v, ok := bytes.CutPrefix(line, []byte("data:"))
	if !ok {
		return nil
	}
	v = bytes.TrimPrefix(v, []byte(" "))
	if len(s.data) > 0 {
		s.data = append(s.data, '\n')
	}
	s.data = append(s.data, v...)
	if int64(len(s.data)) > s.max {
		return errBodyTooLarge
	}
	return nil
}

// dispatch checks one event's data and, when accepted, hands a copy to
// onEvent.
func (s *sseChecker) dispatch(data []byte) error {
	if err := jsonrpc.CheckMembersOf(data, "reply"); err != nil {
		return err
	}
	if s.exchange != nil && json.Valid(data) {
		if err := s.exchange.Received(data); err != nil {
			return err
		}
	}
	if s.onEvent != nil {
		s.onEvent(bytes.Clone(data))
	}
	return nil
}

func (s *sseChecker) Close() error { return s.rc.Close() }

// checkedBody reads a whole (non-stream) body of at most max bytes, and
// checks it with jsonrpc.CheckMembersOf and then, when x is not nil, with
// x.Received, when it is JSON.
func checkedBody(rc io.ReadCloser, x *jsonrpc.Exchange) (io.ReadCloser, error) {
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		return nil, err
	}
	if json.Valid(b) {
		if err := jsonrpc.CheckMembersOf(b, "reply"); err != nil {
			return nil, err
		}
		if x != nil {
			if err := x.Received(b); err != nil {
				return nil, err
			}
		}
	}
	return io.NopCloser(bytes.NewReader(b)), nil
}
