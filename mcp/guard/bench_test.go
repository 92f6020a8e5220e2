package guard

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"testing"

	"github.com/agentgate/agentgate/internal/fakeserver"
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
	for _, v := range []int{lock.Version, lock.VersionV2} {
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
	p := benchProxy(b, lock.Version, fakeserver.Generate(10, 256))
	b.ReportAllocs()
	req := []byte(`{"jsonrpc":"2.0","id":7,"method":"ping"}` + "\n")
	resp := []byte(`{"jsonrpc":"2.0","id":7,"result":{}}`)
	for b.Loop() {
		p.fromClient(req)
		p.fromServer(resp)
	}
}
