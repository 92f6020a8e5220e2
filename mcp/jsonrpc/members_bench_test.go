package jsonrpc

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/internal/testing/fakeserver"
)

// benchListReply is a tools/list reply of n tools with ~1 KiB schemas.
func benchListReply(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"jsonrpc":"2.0","id":"agentgate-tools-list-1","result":{"tools":[`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"name":"tool_%d","description":"Does thing %d with care.","inputSchema":{"type":"object","properties":{`, i, i)
		for j := 0; j < 12; j++ {
			if j > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `"param_%d":{"type":"string","description":"the %d-th parameter, escaped \"quote\""}`, j, j)
		}
		b.WriteString(`},"required":["param_0"]}}`)
	}
	b.WriteString(`]}}`)
	return []byte(b.String())
}

// BenchmarkCheckMembers is the cost CheckMembersOf adds to every message,
// next to json.Valid, which the stdio pump already runs on each line
// (scripts/bench prints the ratio).
func BenchmarkCheckMembers(b *testing.B) {
	msg := benchListReply(1000)
	if err := CheckMembersOf(msg, "reply"); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(msg)))
	for b.Loop() {
		_ = CheckMembersOf(msg, "reply")
	}
}

func BenchmarkJSONValid(b *testing.B) {
	msg := benchListReply(1000)
	b.SetBytes(int64(len(msg)))
	for b.Loop() {
		_ = json.Valid(msg)
	}
}

// generatedReply is a tools/list reply of the fake's generated tools (4 KB
// schemas: objects of about 60 members), as scripts/bench.sh target 4
// lists them.
func generatedReply(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"jsonrpc":"2.0","id":"agentgate-tools-list-1","result":{"tools":[`)
	for i, t := range fakeserver.Generate(n, 4096) {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(t)
	}
	b.WriteString(`]}}`)
	return []byte(b.String())
}

func BenchmarkCheckMembersWideObjects(b *testing.B) {
	msg := generatedReply(1000)
	b.SetBytes(int64(len(msg)))
	for b.Loop() {
		if err := CheckMembersOf(msg, "reply"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkJSONValidWideObjects(b *testing.B) {
	msg := generatedReply(1000)
	b.SetBytes(int64(len(msg)))
	for b.Loop() {
		_ = json.Valid(msg)
	}
}

// FuzzListResult holds ListResult to the plain decoding it replaces: into
// map[string]json.RawMessage, then "tools" into []json.RawMessage, for
// every valid JSON text without repeated members.
func FuzzListResult(f *testing.F) {
	for _, s := range []string{
		`{"tools":[{"name":"a"},{"name":"b","x":[1,2,{"y":"]}"}]}],"nextCursor":"c"}`,
		`{"tools":[]}`, `{"tools":null}`, `{"Tools":[]}`, `{"tool\u0073":[1]}`, ` { "tools" : [ 1 , "2" , [ ] ] , "nextCursor" : null } `,
		`{"nextCursor":7,"tools":[true,false,null,-1.5e3]}`, `[]`, `"x"`, `{}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) || CheckMembersOf(b, "reply") != nil {
			return
		}
		tools, cursor, ok := ListResult(b, "tools")
		var m map[string]json.RawMessage
		var want []json.RawMessage
		wantOK := json.Unmarshal(b, &m) == nil && m != nil
		if wantOK {
			raw, has := m["tools"]
			wantOK = has && json.Unmarshal(raw, &want) == nil && want != nil
		}
		if ok != wantOK {
			t.Fatalf("%q: ok %v, plain %v", b, ok, wantOK)
		}
		if !ok {
			return
		}
		if len(tools) != len(want) {
			t.Fatalf("%q: %d tools, plain %d", b, len(tools), len(want))
		}
		for i := range tools {
			if string(tools[i]) != string(want[i]) {
				t.Fatalf("%q: tool %d %q, plain %q", b, i, tools[i], want[i])
			}
		}
		if string(cursor) != string(m["nextCursor"]) {
			t.Fatalf("%q: cursor %q, plain %q", b, cursor, m["nextCursor"])
		}
	})
}

// BenchmarkListResult and BenchmarkListResultPlain: the tools/list result
// split by ListResult and by encoding/json (the 4 MB page of 1,000 tools
// with 4 KB schemas that scripts/bench.sh target 4 lists ten times).
func BenchmarkListResult(b *testing.B) {
	res := generatedResult(b)
	b.SetBytes(int64(len(res)))
	for b.Loop() {
		if _, _, ok := ListResult(res, "tools"); !ok {
			b.Fatal("not ok")
		}
	}
}

func BenchmarkListResultPlain(b *testing.B) {
	res := generatedResult(b)
	b.SetBytes(int64(len(res)))
	for b.Loop() {
		var m map[string]json.RawMessage
		var tools []json.RawMessage
		if json.Unmarshal(res, &m) != nil || json.Unmarshal(m["tools"], &tools) != nil {
			b.Fatal("not ok")
		}
	}
}

func generatedResult(b *testing.B) []byte {
	var env struct {
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(generatedReply(1000), &env); err != nil {
		b.Fatal(err)
	}
	return env.Result
}
