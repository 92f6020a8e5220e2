package demo

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
)

// Serve speaks newline-delimited JSON-RPC (the MCP stdio transport): it
// reads messages from r and writes replies to w, one per line, until r ends
// (nil), ctx ends (ctx.Err(), seen when a line arrives, at the end of r or
// while a misbehaviour hangs) or a misbehaviour ends the connection (an
// error saying which). A line that is not JSON gets a -32700 reply.
// Options.OnMessage sees every decoded message, with a nil header.
func Serve(ctx context.Context, r io.Reader, w io.Writer, opts Options) error {
	s := NewServer(opts)
	if opts.Misbehave == MisbehaveExit {
		return errExit
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 256<<20)
	for sc.Scan() {
		if err := ctx.Err(); err != nil {
			return err
		}
		line := sc.Bytes()
		if len(line) == 0 {
			continue
		}
		var m Message
		var rep Reply
		if err := json.Unmarshal(line, &m); err != nil {
			rep = rpcError(json.RawMessage("null"), -32700, "Parse error")
		} else {
			if opts.OnMessage != nil {
				opts.OnMessage(m.Method, nil)
			}
			rep = s.Answer(m)
		}
		if rep.Hang {
			<-ctx.Done()
			return ctx.Err()
		}
		if rep.Before != nil {
			if _, err := w.Write(append(rep.Before, '\n')); err != nil {
				return err
			}
		}
		if rep.Line != nil || rep.After != nil {
			out := rep.Line
			if rep.End == nil {
				if rep.Line != nil {
					out = append(out, '\n')
				}
				if rep.After != nil { // in the same write: the reader gets both at once
					out = append(append(out, rep.After...), '\n')
				}
			}
			if _, err := w.Write(out); err != nil {
				return err
			}
		}
		if rep.End != nil {
			return rep.End
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return sc.Err()
}
