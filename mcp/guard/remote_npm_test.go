//go:build unix

package guard

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentgate/agentgate/internal/testing/testenv"
	"github.com/agentgate/agentgate/lock"
	"github.com/agentgate/agentgate/mcp/bridge"
	"github.com/agentgate/agentgate/mcp/capture"
	"github.com/agentgate/agentgate/mcp/config"
	"github.com/agentgate/agentgate/mcp/wire"
)

// TestRemoteServerGoesAway: guard in front of the real server-everything
// over streamable HTTP and legacy SSE (through mcp/bridge, as
// `agentgate guard --url` runs it); the session works, then the server
// process is killed mid-session. Guard must end, not hang: with legacy
// SSE the server's stream ends at once; with streamable HTTP the server's
// own event stream (GET) ends, cannot be reopened, and the session ends
// after the reconnect attempts (about 5 s: 5 attempts, 1 s apart) even
// when the client sends nothing (before the bridge gave up on a dead
// server only at the client's next request, and an idle session never
// ended); a request sent after the server went away is answered with an
// error naming the refused connection, and ends the session at once. Run
// then returns ErrServerExited with the reason, which Serve turns into
// exit 3.
func TestRemoteServerGoesAway(t *testing.T) {
	ev := testenv.NPMBin(t, "mcp-server-everything")
	for _, tc := range []struct {
		mode, path string
		transport  config.Transport
		call       bool // send a request after the server went away
	}{
		{"streamableHttp", "/mcp", config.StreamableHTTP, false},
		{"streamableHttp", "/mcp", config.StreamableHTTP, true},
		{"sse", "/sse", config.SSE, false}, // the stream ends with the server: guard ends at once
	} {
		name := tc.mode + map[bool]string{true: "/call after", false: "/idle"}[tc.call]
		t.Run(name, func(t *testing.T) {
			port, stop := testenv.StartNPMServerStop(t, ev, tc.mode)
			r := config.Resolved{Server: config.Server{Name: "remote", File: "test", Transport: tc.transport,
				URL: "http://127.0.0.1:" + strconv.Itoa(port) + tc.path}}
			results, wait := capture.Capture(context.Background(), []config.Resolved{r}, wire.Options{})
			wait()
			res := results[0]
			if res.Err != nil {
				t.Fatalf("capture: %v", res.Err)
			}
			pins := lockFor(t, lock.Version2, res.Tools)
			pins.Instructions = lock.InstructionsHash(res.Instructions)
			blog := &testenv.SyncBuffer{}
			conn, err := bridge.Open(context.Background(), r, bridge.Options{Log: blog})
			if err != nil {
				t.Fatal(err)
			}
			c := startGuard(t, Options{Server: "remote", Pins: pins}, Upstream{Out: conn.Out, In: conn.In, Wait: conn.Wait})
			c.initialize()
			if got := toolsOf(t, c.request("1", "tools/list", "")); len(got) != len(res.Tools) {
				t.Fatalf("listed %d tools, captured %d", len(got), len(res.Tools))
			}
			if r := c.request("2", "tools/call", `{"name":"echo","arguments":{"message":"before"}}`); !strings.Contains(r, "Echo: before") {
				t.Fatalf("echo: %s", r)
			}
			stop()
			stopped := time.Now()
			if tc.call {
				r := c.request("3", "tools/call", `{"name":"echo","arguments":{"message":"after"}}`)
				var m struct {
					ID    int
					Error *struct{ Message string }
				}
				if json.Unmarshal([]byte(r), &m) != nil || m.ID != 3 || m.Error == nil || !serverWentAway(m.Error.Message) {
					t.Errorf("the call after the server went away: %s", r)
				}
			}
			var runErr error
			select {
			case runErr = <-c.done:
			case <-time.After(60 * time.Second):
				t.Fatalf("guard still runs 60 s after the server went away\nbridge log:\n%s\nguard log:\n%s", blog.String(), c.log.String())
			}
			t.Logf("guard ended %s after the server was killed: %v", time.Since(stopped).Round(time.Millisecond), runErr)
			if !errors.Is(runErr, ErrServerExited) {
				t.Errorf("Run: %v, want ErrServerExited", runErr)
			}
			t.Logf("bridge log:\n%s", blog.String())
		})
	}
}

// TestServeURLServerGoesAway: `agentgate-mcp guard --url` (Serve, with
// the bridge as its Remote) in front of the real server-everything over
// streamable HTTP; the server is killed while the client is idle: Serve
// returns exit 3 (ExitUnverified) by itself and says why on stderr.
func TestServeURLServerGoesAway(t *testing.T) {
	ev := testenv.NPMBin(t, "mcp-server-everything")
	port, stop := testenv.StartNPMServerStop(t, ev, "streamableHttp")
	url := "http://127.0.0.1:" + strconv.Itoa(port) + "/mcp"
	remote := func(ctx context.Context, r config.Resolved, stderr io.Writer) (Upstream, error) {
		c, err := bridge.Open(ctx, r, bridge.Options{Log: stderr})
		if err != nil {
			return Upstream{}, err
		}
		return Upstream{Out: c.Out, In: c.In, Wait: c.Wait}, nil
	}
	inR, inW := io.Pipe()
	defer inW.Close()
	outR, outW := io.Pipe()
	stderr := &testenv.SyncBuffer{}
	code := make(chan int, 1)
	go func() {
		code <- Serve(context.Background(), []string{"--server", "remote", "--lockfile", filepath.Join(t.TempDir(), "none.lock"),
			"--allow-unlocked", "--url", url, "--transport", "http"}, inR, outW, stderr, remote)
		outW.Close()
	}()
	c := &client{t: t, in: inW, out: bufio.NewReader(outR), done: make(chan error, 1), log: stderr}
	c.initialize()
	if r := c.request("1", "tools/call", `{"name":"echo","arguments":{"message":"before"}}`); !strings.Contains(r, "Echo: before") {
		t.Fatalf("echo: %s", r)
	}
	go io.Copy(io.Discard, outR)
	stop()
	select {
	case got := <-code:
		if got != ExitUnverified {
			t.Errorf("exit %d, want %d", got, ExitUnverified)
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("guard still runs 60 s after the server went away:\n%s", stderr.String())
	}
	for _, want := range []string{`agentgate: guard: "remote": the server exited: the server's event stream ended and could not be reopened: cannot reach`, "guard exits 3 (could not verify)"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
}

// serverWentAway reports whether msg says the remote server is gone. Which
// words the OS gives depends on timing, not on guard: a new connection is
// refused, and a kept-alive one that the server's exit closed reads EOF or
// is reset (under load, about 1 in 5 runs took the kept-alive one).
func serverWentAway(msg string) bool {
	for _, s := range []string{"connection refused", "EOF", "connection reset by peer", "broken pipe"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}
