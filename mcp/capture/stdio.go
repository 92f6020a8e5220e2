package capture

// stdio.go: a stdio server's session: its process (mcp/proc) and the
// bounded, checked pump from its stdout to mcp-go.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"sync"

	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/agentgate/agentgate/mcp/jsonrpc"
	"github.com/agentgate/agentgate/mcp/proc"
	"github.com/agentgate/agentgate/mcp/wire"
)

// startStdio starts the server (proc.Start: a process tree of its own,
// the command resolved as the server's OS does it; one that cannot be
// found starts nothing) and connects mcp-go's stdio transport to it
// through the bounded stdout pump.
func (s *session) startStdio(ctx context.Context) error {
	p, err := proc.Start(s.r, nil)
	if err != nil {
		// Redacted by proc.Start with the server's secrets, all the
		// session holds before it has started.
		e := &wire.Error{Server: s.r.Name, File: s.r.File, Stage: s.stage, Msg: err.Error(), Kind: wire.ErrConnect}
		var h interface{ Hints() []string }
		if errors.As(err, &h) {
			e.Hints = h.Hints()
		}
		return e
	}
	s.proc = p
	mr, mw := io.Pipe()
	s.pump = &pump{src: p.Stdout(), dst: mw, max: s.opts.MaxResponseBytes, exchange: &s.exchange}
	go s.pump.run(func() { s.cancel(s.tooLarge()) }, func(err error) { s.cancel(s.ambiguous(err)) })
	s.tr = transport.NewIO(mr, sentTo{p.Stdin(), &s.exchange}, nil)
	return nil
}

// sentTo is the server's stdin as mcp-go writes it, one message per
// Write: each is recorded in the exchange before it is sent, so that no
// answer to it can come first.
type sentTo struct {
	io.WriteCloser
	x *jsonrpc.Exchange
}

func (w sentTo) Write(b []byte) (int, error) {
	w.x.Sent(b)
	return w.WriteCloser.Write(b)
}

// pump copies the server's stdout to mcp-go line by line: a line longer
// than max ends the connection (and calls onTooLarge), a line that is not
// JSON is counted and dropped, so that mcp-go never buffers an unbounded
// line and a garbage line can be named in the error, and a message that
// jsonrpc.CheckMembersOf or the exchange refuses ends the connection (and calls
// onAmbiguous) before mcp-go reads it. The lines the server wrote at once
// (those already in the read buffer) are all checked before the first is
// passed on: a second answer written with the first fails the capture
// before mcp-go takes the first.
type pump struct {
	src            *os.File
	dst            *io.PipeWriter
	max            int64
	exchange       *jsonrpc.Exchange // nil: answers are not matched with requests
	mu             sync.Mutex
	bad            int
	first          string
	firstTruncated bool
	firstCut       bool
}

func (p *pump) run(onTooLarge func(), onAmbiguous func(error)) {
	defer p.dst.Close()
	defer p.src.Close()
	br := bufio.NewReaderSize(p.src, 64<<10)
	for {
		lines, err := readLines(br, p.max)
		if errors.Is(err, errLineTooLong) {
			onTooLarge()
			return
		}
		// msgs[i] is lines[i] trimmed when it is a whole JSON message.
		msgs := make([][]byte, len(lines))
		for i, line := range lines {
			t := bytes.TrimSpace(line)
			if len(t) == 0 || err != nil && i == len(lines)-1 || !json.Valid(t) {
				continue
			}
			if aerr := jsonrpc.CheckMembersOf(t, "reply"); aerr != nil {
				onAmbiguous(aerr)
				return
			}
			if p.exchange != nil {
				if xerr := p.exchange.Received(t); xerr != nil {
					onAmbiguous(xerr)
					return
				}
			}
			msgs[i] = t
		}
		for i, t := range msgs {
			if t == nil {
				if bad := bytes.TrimSpace(lines[i]); len(bad) > 0 {
					p.noteBad(bad, err != nil && i == len(lines)-1)
				}
				continue
			}
			if _, werr := p.dst.Write(append(t, '\n')); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// readLines reads one line (readLine) and then every line already whole
// in br's buffer; err is the last line's.
func readLines(br *bufio.Reader, max int64) ([][]byte, error) {
	line, err := readLine(br, max)
	lines := [][]byte{line}
	for err == nil && br.Buffered() > 0 {
		if buf, _ := br.Peek(br.Buffered()); bytes.IndexByte(buf, '\n') < 0 {
			break
		}
		line, err = readLine(br, max)
		lines = append(lines, line)
	}
	return lines, err
}

// maxBadLine bounds what noteBad keeps of a line; the message shows less,
// cut after redaction (see session.procDetail).
const maxBadLine = 4096

// noteBad records a line that is not JSON (or is cut short by EOF).
func (p *pump) noteBad(line []byte, cut bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.bad++
	if p.bad == 1 {
		p.firstTruncated = len(line) > maxBadLine
		p.first = string(line[:min(len(line), maxBadLine)])
		p.firstCut = cut
	}
}

// badLines returns how many lines were not JSON, the first (raw, not
// redacted, at most maxBadLine bytes), whether it was truncated here and
// whether the stream ended inside it.
func (p *pump) badLines() (n int, first string, truncated, endedMidLine bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.bad, p.first, p.firstTruncated, p.firstCut
}

// stop unblocks the pump if mcp-go stopped reading.
func (p *pump) stop() {
	_ = p.dst.CloseWithError(io.EOF)
	_ = p.src.Close()
}

var errLineTooLong = errors.New("line too long")

// readLine reads one line (without its newline) of at most max bytes.
func readLine(br *bufio.Reader, max int64) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		n := len(line) + len(chunk)
		if len(chunk) > 0 && chunk[len(chunk)-1] == '\n' {
			n--
		}
		if int64(n) > max {
			return nil, errLineTooLong
		}
		line = append(line, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimSuffix(line, []byte("\n")), err
	}
}
