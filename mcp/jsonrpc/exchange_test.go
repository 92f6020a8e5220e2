package jsonrpc

import (
	"errors"
	"strings"
	"testing"
)

// TestExchange: each request's answer passes once; a second answer, an
// answer to an id never sent and a batch are errors; a null id with an
// error, the server's own requests and notifications pass; an id sent
// again after its answer may be answered again; ids match by value.
func TestExchange(t *testing.T) {
	var x Exchange
	x.Sent([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize"}`))
	x.Sent([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	x.Sent([]byte(`{"jsonrpc":"2.0","id":"a","method":"tools/list"}`))
	for _, ok := range []string{
		`{"jsonrpc":"2.0","id":1.0,"result":{}}`,
		`{"jsonrpc":"2.0","id":"\u0061","result":{"tools":[]}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`,
		`{"jsonrpc":"2.0","id":7,"method":"roots/list"}`,
		`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`,
	} {
		if err := x.Received([]byte(ok)); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	if x.Err() != nil {
		t.Fatal(x.Err())
	}
	for _, bad := range []string{
		`{"jsonrpc":"2.0","id":"a","result":{"tools":[{"name":"added"}]}}`,
		`{"jsonrpc":"2.0","id":2,"result":{}}`,
		`{"jsonrpc":"2.0","id":true,"result":{}}`,
		`{"jsonrpc":"2.0","id":null,"result":{}}`,
		`[{"jsonrpc":"2.0","id":"a","result":{}}]`,
	} {
		if err := x.Received([]byte(bad)); !errors.Is(err, ErrBrokenExchange) {
			t.Errorf("%s: %v, want ErrBrokenExchange", bad, err)
		}
	}
	if x.Err() == nil || !strings.Contains(x.Err().Error(), `"a" (tools/list) a second time`) {
		t.Errorf("Err() = %v, want the first error", x.Err())
	}
	var y Exchange
	y.Sent([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize"}`))
	y.Received([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`))
	y.Sent([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize"}`)) // a second client counting from 1 again
	if err := y.Received([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`)); err != nil {
		t.Errorf("an id sent again was answered again: %v", err)
	}
}
