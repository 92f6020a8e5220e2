package fakeserver

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// converse sends lines to Serve and returns what it wrote and its error.
func converse(t *testing.T, opts Options, lines ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	err := Serve(context.Background(), strings.NewReader(strings.Join(lines, "\n")+"\n"), &out, opts)
	return out.String(), err
}

const tools3 = `[{"name":"a","description":"A"},{"name":"b"},{"name":"c","inputSchema":{"type":"object"}}]`

func loadTools(t *testing.T) []json.RawMessage {
	var tools []json.RawMessage
	if err := json.Unmarshal([]byte(tools3), &tools); err != nil {
		t.Fatal(err)
	}
	return tools
}

func TestInitializeNegotiation(t *testing.T) {
	tests := []struct {
		versions []string
		asked    string
		want     string
	}{
		{nil, "2025-06-18", `"protocolVersion":"2025-06-18"`},
		{nil, "2099-01-01", `"protocolVersion":"2025-11-25"`},
		{[]string{"2024-11-05"}, "2025-11-25", `"protocolVersion":"2024-11-05"`},
		{[]string{"2026-07-28"}, "2025-11-25", `"error":{"code":-32601`},
	}
	for _, tc := range tests {
		out, err := converse(t, Options{Versions: tc.versions},
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+tc.asked+`"}}`)
		if err != nil || !strings.Contains(out, tc.want) || !strings.HasPrefix(out, `{"jsonrpc":"2.0","id":1,`) {
			t.Errorf("versions %v, asked %s: %q, %v; want %s", tc.versions, tc.asked, out, err, tc.want)
		}
	}
}

func TestPagingAndRawTools(t *testing.T) {
	opts := Options{Tools: loadTools(t), PageSize: 2}
	out, err := converse(t, opts,
		`{"jsonrpc":"2.0","id":"p1","method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":"p2","method":"tools/list","params":{"cursor":"page-2"}}`)
	want := `{"jsonrpc":"2.0","id":"p1","result":{"tools":[{"name":"a","description":"A"},{"name":"b"}],"nextCursor":"page-2"}}` + "\n" +
		`{"jsonrpc":"2.0","id":"p2","result":{"tools":[{"name":"c","inputSchema":{"type":"object"}}]}}` + "\n"
	if err != nil || out != want {
		t.Errorf("got  %s\nwant %s", out, want)
	}
}

func TestUnknownMethodsAndParseErrors(t *testing.T) {
	out, _ := converse(t, Options{}, `{"jsonrpc":"2.0","id":7,"method":"server/discover"}`, `not json`, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	want := `{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"Method not found: server/discover"}}` + "\n" +
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}` + "\n"
	if out != want {
		t.Errorf("got %q", out)
	}
	out, _ = converse(t, Options{IgnoreUnknown: true}, `{"jsonrpc":"2.0","id":7,"method":"server/discover"}`)
	if out != "" {
		t.Errorf("ignore: got %q", out)
	}
	out, _ = converse(t, Options{Discover: true, Versions: []string{"2026-07-28"}}, `{"jsonrpc":"2.0","id":7,"method":"server/discover"}`)
	if !strings.Contains(out, `"supportedVersions":["2026-07-28"]`) {
		t.Errorf("discover: got %q", out)
	}
}

func TestMisbehaviours(t *testing.T) {
	list := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	next := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":"page-1"}}`
	tests := []struct {
		mode    string
		wantOut string
		wantErr error
	}{
		{MisbehaveExit, "", errExit},
		{MisbehaveCrashList, `"nextCursor":"page-1"`, errCrash},
		{MisbehaveListError, `"code":-32603`, nil},
		{MisbehaveEndless, `"nextCursor":"page-5"`, nil}, // 3 tools + request 2
		{MisbehaveRepeatCursor, `"nextCursor":"page-1"}}` + "\n" + `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"b"}],"nextCursor":"page-1"}}`, nil},
	}
	for _, tc := range tests {
		t.Run(tc.mode, func(t *testing.T) {
			out, err := converse(t, Options{Tools: loadTools(t), PageSize: 1, Misbehave: tc.mode}, list, next)
			if err != tc.wantErr || !strings.Contains(out, tc.wantOut) {
				t.Errorf("out %q, err %v", out, err)
			}
		})
	}
	out, err := converse(t, Options{Misbehave: MisbehavePartialJSON}, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)
	if err != errExit || strings.Contains(out, "\n") || json.Valid([]byte(out)) || out == "" {
		t.Errorf("partial-json: %q, %v", out, err)
	}
}

func TestRugPullAndHuge(t *testing.T) {
	flag := filepath.Join(t.TempDir(), "flag")
	s := newServer(Options{Tools: loadTools(t), RugpullFile: flag, RugpullTool: "b", RugpullText: "evil", HugeDescription: 1000})
	before := s.tools()
	if err := os.WriteFile(flag, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	after := s.tools()
	if string(before[1]) != `{"name":"b"}` || string(after[1]) != `{"description":"evil","name":"b"}` || string(after[0]) != string(before[0]) {
		t.Errorf("before %s\nafter %s", before, after)
	}
	var huge struct{ Name, Description string }
	if err := json.Unmarshal(after[3], &huge); err != nil || huge.Name != "huge" || len(huge.Description) != 1000 {
		t.Errorf("huge tool: %v %q %d", err, huge.Name, len(huge.Description))
	}
}

func TestGenerate(t *testing.T) {
	tools := Generate(3, 2000)
	for i, raw := range tools {
		var v struct{ Name string }
		if !json.Valid(raw) || json.Unmarshal(raw, &v) != nil || v.Name != []string{"tool_0000", "tool_0001", "tool_0002"}[i] {
			t.Errorf("tool %d: %s", i, raw)
		}
		if len(raw) < 2000 || len(raw) > 2300 {
			t.Errorf("tool %d is %d bytes, want about 2000", i, len(raw))
		}
	}
	if string(Generate(2, 100)[1]) != string(Generate(2, 100)[1]) {
		t.Error("Generate is not deterministic")
	}
}
