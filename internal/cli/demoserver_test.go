package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeDemo pins the demo server's replies, line by line.
func TestServeDemo(t *testing.T) {
	tools := []json.RawMessage{
		json.RawMessage(`{"name":"a","description":"A.","inputSchema":{"type":"object"}}`),
		json.RawMessage(`{"name":"search_notes","description":"Search.","inputSchema":{"type":"object"}}`),
	}
	rug := filepath.Join(t.TempDir(), "rug")
	tests := []struct{ name, in, want string }{
		{"initialize, a version it speaks",
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26"}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-03-26","capabilities":{"tools":{"listChanged":false}},"serverInfo":{"name":"agentgate-demo","version":"1"}}}`},
		{"initialize, a version it does not speak",
			`{"jsonrpc":"2.0","id":"x","method":"initialize","params":{"protocolVersion":"1999-01-01"}}`,
			`{"jsonrpc":"2.0","id":"x","result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":false}},"serverInfo":{"name":"agentgate-demo","version":"1"}}}`},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, ``},
		{"ping", `{"jsonrpc":"2.0","id":2,"method":"ping"}`, `{"jsonrpc":"2.0","id":2,"result":{}}`},
		{"tools/list", `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`,
			`{"jsonrpc":"2.0","id":3,"result":{"tools":[` + string(tools[0]) + `,` + string(tools[1]) + `]}}`},
		{"unknown method", `{"jsonrpc":"2.0","id":4,"method":"resources/list"}`,
			`{"jsonrpc":"2.0","id":4,"error":{"code":-32601,"message":"Method not found: resources/list"}}`},
		{"not JSON", `hello`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`},
	}
	for _, tt := range tests {
		var out strings.Builder
		if err := serveDemo(context.Background(), strings.NewReader(tt.in+"\n\n"), &out, tools, rug); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		want := tt.want
		if want != "" {
			want += "\n"
		}
		if out.String() != want {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, out.String(), want)
		}
	}

	// The rug pull: while the file exists, search_notes says something else.
	if err := os.WriteFile(rug, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := serveDemo(context.Background(), strings.NewReader(`{"jsonrpc":"2.0","id":5,"method":"tools/list"}`+"\n"), &out, tools, rug); err != nil {
		t.Fatal(err)
	}
	var reply struct {
		Result struct {
			Tools []struct{ Name, Description string }
		}
	}
	if err := json.Unmarshal([]byte(out.String()), &reply); err != nil {
		t.Fatalf("%v: %q", err, out.String())
	}
	if got := reply.Result.Tools; len(got) != 2 || got[0].Description != "A." || got[1].Name != "search_notes" || got[1].Description != demoRugpullText {
		t.Errorf("rug-pulled tools = %+v, want search_notes with demoRugpullText and a unchanged", got)
	}

	// A cancelled context ends the server.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := serveDemo(ctx, strings.NewReader("{}\n"), &out, tools, ""); err != context.Canceled {
		t.Errorf("cancelled: err = %v, want context.Canceled", err)
	}
}
