package guard

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/internal/sys/pipes"
	"github.com/agentgate/agentgate/internal/testing/fakeserver"
	"github.com/agentgate/agentgate/lock"
)

// listingOf is a tools/list response (id 1) listing raws.
func listingOf(raws []json.RawMessage) []byte {
	b := []byte(`{"jsonrpc":"2.0","id":1,"result":{"tools":[`)
	for i, r := range raws {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, r...)
	}
	return append(b, `]}}`...)
}

// benchProxy is a proxy writing to io.Discard with pins of raws.
func benchProxy(b *testing.B, version int, raws []json.RawMessage) *proxy {
	return newProxy(Options{Server: "fake", Pins: lockFor(b, version, raws)}, io.Discard)
}

// BenchmarkList1000 is guard's work on one tools/list result of 1,000
// generated tools (the fake server's -generate 1000, as
// scripts/bench/guard.sh 8c lists them), all pinned: reading the
// message, checking every tool, forwarding it. "repeated" lists the same
// tools each time with a new id (the memo's case, memo.go), "changed"
// changes one tool's description each time (the verdict cache's case:
// the message is checked in full, 999 tools come from the cache), and
// "plain" is the full check of every tool every time (neither).
func BenchmarkList1000(b *testing.B) {
	raws := fakeserver.Generate(1000, 256)
	msg := listingOf(raws)
	for _, v := range []int{lock.Version1, lock.Version2} {
		for _, path := range []string{"repeated", "changed", "plain"} {
			b.Run("v"+strconv.Itoa(v)+"/"+path, func(b *testing.B) {
				p := benchProxy(b, v, raws)
				p.plain = path == "plain"
				b.SetBytes(int64(len(msg)))
				b.ReportAllocs()
				// Eight messages, ids 1 to 8; for "changed" each with
				// another description of tool 500 (more than the memos
				// hold, so none is recalled).
				var msgs [8][]byte
				for i := range msgs {
					m := bytes.Replace(msg, []byte(`"id":1,`), []byte(`"id":`+strconv.Itoa(i+1)+`,`), 1)
					if path == "changed" {
						m[bytes.Index(m, []byte("Generated tool number 500."))] = "ABCDEFGH"[i]
					}
					msgs[i] = m
				}
				i := 0
				for b.Loop() {
					p.fromClient([]byte(`{"jsonrpc":"2.0","id":` + strconv.Itoa(i%8+1) + `,"method":"tools/list"}`))
					p.fromServer(msgs[i%8])
					i++
				}
			})
		}
	}
}

// BenchmarkPing is guard's work on one ping: the request from the
// client, the response from the server.
func BenchmarkPing(b *testing.B) {
	p := benchProxy(b, lock.Version1, fakeserver.Generate(10, 256))
	b.ReportAllocs()
	req := []byte(`{"jsonrpc":"2.0","id":7,"method":"ping"}` + "\n")
	resp := []byte(`{"jsonrpc":"2.0","id":7,"result":{}}`)
	for b.Loop() {
		p.fromClient(req)
		p.fromServer(resp)
	}
}

// pipeServer answers every request line read from r with reply (its id
// replaced by the request's) on w, as a server that has its answer ready
// would; it ends when r ends, closing w.
func pipeServer(r io.Reader, w io.WriteCloser, reply func(id []byte) []byte) {
	defer w.Close()
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return
		}
		at := bytes.Index(line, []byte(`"id":`)) + 5
		end := at + bytes.IndexAny(line[at:], ",}")
		if _, err := w.Write(reply(line[at:end])); err != nil {
			return
		}
	}
}

// BenchmarkRoundTrip is one request's round trip over OS pipes to a server
// that answers at once (pipeServer), directly and through guard (Run), for
// a ping and for a tools/list of 1,000 generated tools: guard's cost per
// message with the pipes, in one process (scripts/bench/guard.sh measures
// the same with processes). Compare direct and guard of one method.
func BenchmarkRoundTrip(b *testing.B) {
	raws := fakeserver.Generate(1000, 256)
	listing := listingOf(raws)
	i := bytes.Index(listing, []byte(`"id":1,`))
	for _, method := range []string{"ping", "tools/list"} {
		reply := func(id []byte) []byte {
			if method == "ping" {
				return append(append([]byte(`{"jsonrpc":"2.0","id":`), id...), `,"result":{}}`+"\n"...)
			}
			out := append(append(append([]byte{}, listing[:i+5]...), id...), listing[i+6:]...)
			return append(out, '\n')
		}
		for _, via := range []string{"direct", "guard"} {
			b.Run(strings.ReplaceAll(method, "/", "_")+"/"+via, func(b *testing.B) {
				toServer, serverIn := pipe(b)
				serverOut, fromServer := pipe(b)
				go pipeServer(toServer, fromServer, reply)
				in, out := serverIn, io.Reader(serverOut)
				if via == "guard" {
					clientIn, toGuard := pipe(b)
					guardOut, clientOut := pipe(b)
					// As Serve and StartStdio do: guard widens the pipe
					// it reads the server from and the client's.
					pipes.Widen(serverOut, pipes.Capacity)
					pipes.Widen(clientOut, pipes.Capacity)
					up := Upstream{Out: serverOut, In: serverIn, Wait: func() error { return nil }}
					opts := Options{Server: "fake", Pins: lockFor(b, lock.Version1, raws)}
					done := make(chan error, 1)
					go func() { done <- Run(context.Background(), opts, clientIn, clientOut, up) }()
					b.Cleanup(func() { toGuard.Close(); <-done })
					in, out = toGuard, guardOut
				}
				br := bufio.NewReaderSize(out, 1<<20)
				b.SetBytes(int64(len(reply([]byte("1")))))
				n := 0
				for b.Loop() {
					n++
					req := `{"jsonrpc":"2.0","id":` + strconv.Itoa(n) + `,"method":"` + method + `"}` + "\n"
					if _, err := in.Write([]byte(req)); err != nil {
						b.Fatal(err)
					}
					line, err := br.ReadSlice('\n')
					for errors.Is(err, bufio.ErrBufferFull) {
						_, err = br.ReadSlice('\n')
					}
					if err != nil || (n == 1 && !bytes.Contains(line, []byte(`"result"`))) {
						b.Fatalf("%v: %.200s", err, line)
					}
				}
			})
		}
	}
}

// pipe is an OS pipe closed when b ends.
func pipe(b *testing.B) (*os.File, *os.File) {
	r, w, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { r.Close(); w.Close() })
	return r, w
}
