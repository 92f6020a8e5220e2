package guard

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentgate/agentgate/internal/testing/fakeserver"
	"github.com/agentgate/agentgate/internal/testing/testenv"
	"github.com/agentgate/agentgate/lock"
	"github.com/agentgate/agentgate/mcp/config"
)

// TestMain doubles as the fake MCP server: with AGENTGATE_FAKESERVER=1
// the test binary runs fakeserver.Main, so that guard starts a real
// process.
func TestMain(m *testing.M) {
	fakeserver.SelfServe()
	os.Exit(m.Run())
}

// fake is the fake server's command, with args.
func fake(t testing.TB, args ...string) config.Resolved {
	return fakeserver.Stdio(t, "fake", "test", args...)
}

// toolsFile is testdata/tools.json, absolute.
func toolsFile(t testing.TB) string {
	p, err := filepath.Abs("testdata/tools.json")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// lockFor returns the pins of a lockfile of version, written and read back
// as agentgate lock writes it, locking raw tools as server "fake".
func lockFor(t testing.TB, version int, raws []json.RawMessage) *Pins {
	t.Helper()
	_, defs, err := lock.DecodeServer(lock.Version1, raws)
	if err != nil {
		t.Fatal(err)
	}
	var srv lock.Server
	if version == lock.Version2 {
		srv, err = lock.BuildServer(lock.Version2, defs, lock.BuildOptions{Definitions: true})
	} else {
		srv, err = lock.BuildServer(lock.Version1, defs, lock.BuildOptions{})
	}
	if err != nil {
		t.Fatal(err)
	}
	lf := lock.New(version, map[string]lock.Server{"fake": srv}, lock.Stamp{By: "test", At: time.Unix(0, 0)}, nil)
	back, err := lock.Parse(lock.Format(lf))
	if err != nil {
		t.Fatal(err)
	}
	pins, ok := PinsOf(back, "fake")
	if !ok {
		t.Fatal("no pins")
	}
	return pins
}

func loadTools(t testing.TB) []json.RawMessage {
	raws, err := fakeserver.LoadTools(toolsFile(t))
	if err != nil {
		t.Fatal(err)
	}
	return raws
}

// client is a test MCP client talking to guard through pipes.
type client struct {
	t    testing.TB
	in   *io.PipeWriter
	out  *bufio.Reader
	done chan error
	log  *testenv.SyncBuffer
	seen []string // messages read that were not the awaited answer
}

// startGuard runs guard (Run) in front of up with opts, as a client
// would see it.
func startGuard(t testing.TB, opts Options, up Upstream) *client {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &client{t: t, in: inW, out: bufio.NewReaderSize(outR, 1<<20), done: make(chan error, 1), log: &testenv.SyncBuffer{}}
	opts.Log = c.log
	if opts.Server == "" {
		opts.Server = "fake"
	}
	go func() {
		err := Run(context.Background(), opts, inR, outW, up)
		outW.Close()
		c.done <- err
	}()
	t.Cleanup(func() { inW.Close() })
	return c
}

// startFake runs guard in front of the fake server with args.
func startFake(t testing.TB, opts Options, args ...string) *client {
	up, err := StartStdio(fake(t, args...), nil)
	if err != nil {
		t.Fatal(err)
	}
	return startGuard(t, opts, up)
}

// send writes one line to guard.
func (c *client) send(line string) {
	c.t.Helper()
	if _, err := c.in.Write([]byte(line + "\n")); err != nil {
		c.t.Fatalf("send: %v", err)
	}
}

// read reads the next line from guard ("" at the end).
func (c *client) read() string {
	c.t.Helper()
	line, err := c.out.ReadString('\n')
	if err != nil && line == "" {
		return ""
	}
	return strings.TrimSuffix(line, "\n")
}

// request sends a request and returns the response with its id,
// keeping the other messages read meanwhile in c.seen.
func (c *client) request(id, method, params string) string {
	c.t.Helper()
	msg := `{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `"`
	if params != "" {
		msg += `,"params":` + params
	}
	c.send(msg + "}")
	for {
		line := c.read()
		if line == "" {
			c.t.Fatalf("%s %s: guard's output ended; log:\n%s", method, id, c.log.String())
		}
		var m struct{ ID json.RawMessage }
		if json.Unmarshal([]byte(line), &m) == nil && string(m.ID) == id {
			return line
		}
		c.seen = append(c.seen, line)
	}
}

// initialize performs the handshake.
func (c *client) initialize() string {
	c.t.Helper()
	r := c.request("0", "initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}`)
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return r
}

// close closes the client's side and returns Run's result.
func (c *client) close() error {
	c.in.Close()
	for c.read() != "" {
	}
	select {
	case err := <-c.done:
		return err
	case <-time.After(10 * time.Second):
		c.t.Fatal("guard did not end within 10 s after the client closed its side")
		return nil
	}
}

// toolsOf returns the raw tools of a tools/list response.
func toolsOf(t testing.TB, resp string) []string {
	t.Helper()
	var m struct {
		Result struct{ Tools []json.RawMessage }
	}
	if err := json.Unmarshal([]byte(resp), &m); err != nil {
		t.Fatalf("%v: %s", err, resp)
	}
	var out []string
	for _, r := range m.Result.Tools {
		out = append(out, string(r))
	}
	return out
}

// pipeUpstream is a server on pipes: it answers every tools/list with the
// tools raws (as guard's own listing before a call asks), hands every
// other request's method and raw id to answer, which writes what it
// likes to w (nil: nothing is answered), and ends its output when its
// input ends.
func pipeUpstream(raws []json.RawMessage, answer func(method string, id []byte, w io.Writer)) Upstream {
	outR, outW := io.Pipe()
	inR, inW := io.Pipe()
	go func() {
		defer outW.Close()
		br := bufio.NewReader(inR)
		for {
			line, err := br.ReadBytes('\n')
			if err != nil {
				io.Copy(io.Discard, inR)
				return
			}
			var m struct {
				ID     json.RawMessage
				Method string
			}
			if json.Unmarshal(line, &m) != nil || m.ID == nil {
				continue
			}
			if m.Method == "tools/list" {
				tools, _ := json.Marshal(raws)
				outW.Write([]byte(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"tools":` + string(tools) + "}}\n"))
			} else if answer != nil {
				answer(m.Method, m.ID, outW)
			}
		}
	}()
	return Upstream{Out: outR, In: inW, Wait: func() error { return nil }}
}
