package fakeserver

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

const tools3 = `[{"name":"a","description":"A"},{"name":"b"},{"name":"c","inputSchema":{"type":"object"}}]`

var _ = json.Valid

// TestRun: Main refuses -http (this package serves stdio only); Run hands
// -http to its serveHTTP with the options the flags asked for.
func TestRun(t *testing.T) {
	if code := Main([]string{"-http", "127.0.0.1:0"}); code != 2 {
		t.Errorf("Main -http: status %d, want 2", code)
	}
	file := filepath.Join(t.TempDir(), "tools.json")
	if err := os.WriteFile(file, []byte(tools3), 0o644); err != nil {
		t.Fatal(err)
	}
	var gotAddr string
	var got Options
	code := Run([]string{"-http", "127.0.0.1:7", "-tools", file, "-page-size", "2", "-versions", "2025-06-18"},
		func(addr string, o Options) int { gotAddr, got = addr, o; return 7 })
	if code != 7 || gotAddr != "127.0.0.1:7" || len(got.Tools) != 3 || string(got.Tools[1]) != `{"name":"b"}` ||
		got.PageSize != 2 || !slices.Equal(got.Versions, []string{"2025-06-18"}) || got.OnMessage == nil {
		t.Errorf("Run: status %d, addr %q, options %+v", code, gotAddr, got)
	}
}
