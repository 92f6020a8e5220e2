package fakeserver

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
)

// Serve speaks newline-delimited JSON-RPC (the MCP stdio transport): it
// reads messages from r and writes replies to w, one per line, until r ends
// (nil), ctx ends (ctx.Err()) or a misbehaviour ends the connection (an
// error saying which). A line that is not JSON gets a -32700 reply.
func Serve(ctx context.Context, r io.Reader, w io.Writer, opts Options) error {
	s := newServer(opts)
	if opts.Misbehave == MisbehaveExit {
		return errExit
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 256<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 {
			continue
		}
		var m message
		var rep reply
		if err := json.Unmarshal(line, &m); err != nil {
			rep = rpcError(json.RawMessage("null"), -32700, "Parse error")
		} else {
			rep = s.handle(m)
		}
		if rep.hang {
			<-ctx.Done()
			return ctx.Err()
		}
		if rep.line != nil {
			out := rep.line
			if rep.err == nil {
				out = append(out, '\n')
			}
			if _, err := w.Write(out); err != nil {
				return err
			}
		}
		if rep.err != nil {
			return rep.err
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return sc.Err()
}
