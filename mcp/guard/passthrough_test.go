package guard

import (
	"bufio"
	"io"
	"testing"
	"time"

	"github.com/agentgate/agentgate/lock"
)

// TestOtherMethodsPassUntouched: a server's sampling and elicitation
// requests and progress and logging notifications reach the client byte
// for byte; the client's answers, its cancellation and its other requests
// reach the server byte for byte, and so do responses to them.
func TestOtherMethodsPassUntouched(t *testing.T) {
	srvOutR, srvOutW := io.Pipe() // server -> guard
	srvInR, srvInW := io.Pipe()   // guard -> server
	up := Upstream{Out: srvOutR, In: srvInW, Wait: func() error { return nil }}
	c := startGuard(t, Options{Pins: lockFor(t, lock.Version1, loadTools(t))}, up)
	server := bufio.NewReader(srvInR)
	fromServer := func(line string) {
		t.Helper()
		srvOutW.Write([]byte(line + "\n"))
		if got := c.read(); got != line {
			t.Errorf("client got %s\nwant %s", got, line)
		}
	}
	fromClient := func(line string) {
		t.Helper()
		c.send(line)
		got, _ := server.ReadString('\n')
		if got != line+"\n" {
			t.Errorf("server got %s\nwant %s", got, line)
		}
	}
	fromServer(`{"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":5}}`)
	fromClient(`{"jsonrpc":"2.0","id":"s1","result":{"role":"assistant","content":{"type":"text","text":"hello"},"model":"m"}}`)
	fromServer(`{"jsonrpc":"2.0","id":"s2","method":"elicitation/create","params":{"message":"name?","requestedSchema":{"type":"object"}}}`)
	fromClient(`{"jsonrpc":"2.0","id":"s2","result":{"action":"decline"}}`)
	fromClient(`{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"uri":"file:///x","_meta":{"progressToken":"p"}}}`)
	fromServer(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":1,"total":2}}`)
	fromServer(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`)
	fromClient(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"user"}}`)
	fromServer(`{"jsonrpc":"2.0","id":7,"error":{"code":-32800,"message":"cancelled"}}`)
	fromClient(`{"jsonrpc":"2.0","id":8,"method":"ping"}`)
	fromServer(`{"jsonrpc" : "2.0", "id" : 8, "result" : { }}`)
	srvOutW.Close()
	c.in.Close()
}

// TestCancelledNotAwaited: a request the client cancelled is not waited
// for when the client closes its side (the server need not answer it):
// with DrainTimeout at an hour, guard still shuts the server down and
// Run returns; a request not cancelled would hold it for the hour.
func TestCancelledNotAwaited(t *testing.T) {
	defer func(d time.Duration) { DrainTimeout = d }(DrainTimeout)
	DrainTimeout = time.Hour
	raws := loadTools(t)
	// The server answers tools/list (guard lists before the call), not the
	// call, and ends when its stdin closes.
	c := startGuard(t, Options{Pins: lockFor(t, lock.Version1, raws)}, pipeUpstream(raws, nil))
	c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}`)
	c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"user"}}`)
	c.in.Close()
	go io.Copy(io.Discard, c.out)
	select {
	case err := <-c.done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second): // a liveness bound: without the fix it is an hour
		t.Fatal("guard still waits for the answer to the cancelled request")
	}
}
