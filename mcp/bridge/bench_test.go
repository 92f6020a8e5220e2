package bridge

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/agentgate/agentgate/mcp/config"
)

// BenchmarkPing compares a ping round trip through the bridge (a line in,
// a POST, its JSON answer as a line out) with the same POST sent directly
// with a plain HTTP client, against a loopback server that answers at
// once: the bridge's own cost per message. The recorded figures are in
// docs/PERFORMANCE.md.
func BenchmarkPing(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		if bytes.Contains(body, []byte(`"initialize"`)) {
			io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25"}}`)
			return
		}
		id := bytes.SplitN(bytes.SplitN(body, []byte(`"id":`), 2)[1], []byte(","), 2)[0]
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{}}`, id)
	}))
	defer srv.Close()
	b.Run("direct", func(b *testing.B) {
		c := &http.Client{}
		for i := range b.N {
			req, _ := http.NewRequest(http.MethodPost, srv.URL, bytes.NewReader(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`, i)))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			resp, err := c.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	})
	b.Run("bridge", func(b *testing.B) {
		conn, err := Open(context.Background(), remoteServer(srv.URL, config.StreamableHTTP), Options{})
		if err != nil {
			b.Fatal(err)
		}
		defer func() { conn.In.Close(); conn.Wait() }()
		out := bufio.NewReader(conn.Out)
		io.WriteString(conn.In, initReq+"\n")
		if _, err := out.ReadBytes('\n'); err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		for i := range b.N {
			fmt.Fprintf(conn.In, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`+"\n", i+2)
			if _, err := out.ReadBytes('\n'); err != nil {
				b.Fatal(err)
			}
		}
	})
}
