package guard

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/lock"
)

// session feeds one proxy a tools/list request (id 1) answered by first,
// then tools/list requests 2, "b", 3 and "c" answered by second, twice,
// and returns what the client got, the log and the withheld names.
func session(p *proxy, first, second []byte) (string, string, string) {
	var log strings.Builder
	p.opts.Log = &log
	out := &bytes.Buffer{}
	p.out.Reset(out)
	p.fromClient([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	p.fromServer(first)
	for _, id := range []string{`2`, `"b"`, `3`, `"c"`} {
		p.fromClient([]byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/list"}`))
	}
	p.fromServer(second)
	p.fromServer(second)
	return out.String(), log.String(), fmt.Sprint(p.withheld)
}

// idLast is the listing with its id (raw) moved after the result.
func idLast(listing, id string) string {
	return strings.TrimSuffix(strings.Replace(listing, `"id":1,`, ``, 1), "}") + `,"id":` + id + `}`
}

// FuzzMemo: the fast path for repeated listings (memo.go: recall and the
// verdict cache) forwards, logs and withholds exactly what the plain path
// (every message checked in full) does, for any pair of server messages.
func FuzzMemo(f *testing.F) {
	raws := loadTools(f)[:2] // small inputs: the fuzzer mutates them faster
	listing := string(listingOf(raws))
	with := func(old, new string) string { return strings.Replace(listing, old, new, 1) }
	for _, pair := range [][2]string{
		{listing, with(`"id":1,`, `"id":2,`)},
		{listing, with(`"id":1,`, `"id":"b",`)},
		{listing, with(`"id":1,`, `"id":3 ,`)},
		{listing, with(`"id":1,`, `"id":2.0,`)},
		{listing, with(`"id":1,`, `"id":"\u0062",`)},
		{listing, with(`"id":1,`, `"id":02,`)},
		{listing, with(`"id":1,`, `"id":2,"id":3,`)},
		{listing, with(`"id":1,`, `"id":4,`)},
		{listing, with(`"id":1,`, `"id":{},`)},
		{listing, with(`"id":1,`, `"id":"b","x":"",`)},
		{with(`"id":1,`, `"id":"a",`), with(`"id":1,`, `"id":"bb",`)},
		{listing, with(`"id":1,`, `"id":2,`) + " "},
		{listing, strings.Replace(with(`"id":1,`, `"id":2,`), "Echo", "Ecno", 1)},
		{idLast(listing, `1`), idLast(listing, `2`)},
		{`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"echo","x":1},{"name":"echo"}]}}`,
			`{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"echo","x":1},{"name":"echo"}]}}`},
		{`{"jsonrpc":"2.0","id":1,"result":{"tools":[ ]}}`, `{"jsonrpc":"2.0","id":2,"result":{"tools":[ ]}}`},
	} {
		f.Add([]byte(pair[0]), []byte(pair[1]))
	}
	// A drifted tool in a listing repeated under an id of another length,
	// the id before or after the result: what is withheld is cut at the
	// recalled offsets, which must move with the id. The padding picks
	// every pins and mode (by the lengths, below).
	drift := strings.Replace(listing, "Echo", "Ecno", 1)
	for _, pair := range [][2]string{
		{drift, strings.Replace(drift, `"id":1,`, `"id":"b",`, 1)},
		{idLast(drift, `1`), idLast(drift, `"b"`)},
	} {
		for i := range 3 {
			for j := range 3 {
				f.Add([]byte(pair[0]+strings.Repeat(" ", i)), []byte(pair[1]+strings.Repeat(" ", j)))
			}
		}
	}
	v1, v2 := lockFor(f, lock.Version1, raws), lockFor(f, lock.Version2, raws)
	f.Fuzz(func(t *testing.T, first, second []byte) {
		// The pins and the mode are picked by the inputs' lengths, so
		// that one run is one session of each path.
		pins := []*Pins{v1, v2, nil}[len(second)%3]
		mode := []Mode{Withhold, Block, Warn}[len(first)%3]
		fast := newProxy(Options{Server: "fake", Pins: pins, Mode: mode}, nil)
		plain := newProxy(Options{Server: "fake", Pins: pins, Mode: mode}, nil)
		plain.plain = true
		fo, fl, fw := session(fast, first, second)
		po, pl, pw := session(plain, first, second)
		if fo != po || fl != pl || fw != pw {
			t.Fatalf("pins %v mode %s: the fast path differs from the plain one\nfast:\n%s%s%s\nplain:\n%s%s%s", pins != nil, mode, fo, fl, fw, po, pl, pw)
		}
	})
}

// TestMemoRecalls: a listing repeated with another id (integer or plain
// string) is recalled, not checked again, and forwarded byte for byte;
// one that differs elsewhere, or whose id needs decoding, is checked in
// full, and a changed tool is withheld.
func TestMemoRecalls(t *testing.T) {
	raws := loadTools(t)
	listing := listingOf(raws)
	p := newProxy(Options{Server: "fake", Pins: lockFor(t, lock.Version2, raws)}, nil)
	for _, tc := range []struct {
		id     string
		msg    string
		recall bool
		tools  int
	}{
		{`1`, string(listing), false, len(raws)},
		{`22`, strings.Replace(string(listing), `"id":1,`, `"id":22,`, 1), true, len(raws)},
		{`"req-7"`, strings.Replace(string(listing), `"id":1,`, `"id":"req-7",`, 1), true, len(raws)},
		{`"\u0041"`, strings.Replace(string(listing), `"id":1,`, `"id":"\u0041",`, 1), false, len(raws)},
		{`5`, strings.Replace(strings.Replace(string(listing), `"id":1,`, `"id":5,`, 1), "Echo the text back.", "Echo the text back!", 1), false, len(raws) - 1},
		{`6`, strings.Replace(strings.Replace(string(listing), `"id":1,`, `"id":6,`, 1), "Echo the text back.", "Echo the text back!", 1), true, len(raws) - 1},
	} {
		out := &bytes.Buffer{}
		p.out.Reset(out)
		hits := p.memoHits
		p.fromClient([]byte(`{"jsonrpc":"2.0","id":` + tc.id + `,"method":"tools/list"}`))
		p.fromServer([]byte(tc.msg))
		if got := p.memoHits > hits; got != tc.recall {
			t.Errorf("id %s: recalled %v, want %v", tc.id, got, tc.recall)
		}
		var resp struct {
			ID     json.RawMessage
			Result struct{ Tools []json.RawMessage }
		}
		// A withholding listing is preceded by guard's notifications/message
		// (notify.go), once for one set of withheld names: id 5 only.
		lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
		if notes := len(lines) - 1; notes != map[bool]int{true: 1}[tc.id == "5"] ||
			notes == 1 && !strings.Contains(lines[0], `"method":"notifications/message"`) {
			t.Errorf("id %s: %d lines before the response: %q", tc.id, notes, lines[:notes])
		}
		if err := json.Unmarshal([]byte(lines[len(lines)-1]), &resp); err != nil || string(resp.ID) != tc.id {
			t.Fatalf("id %s: %v: %s", tc.id, err, out)
		}
		if len(resp.Result.Tools) != tc.tools {
			t.Errorf("id %s: %d tools forwarded, want %d", tc.id, len(resp.Result.Tools), tc.tools)
		}
		if tc.tools == len(raws) && out.String() != tc.msg+"\n" {
			t.Errorf("id %s: a listing that matches was not forwarded byte for byte", tc.id)
		}
	}
	if !reflect.DeepEqual(p.withheld[kindTool], map[string]bool{"echo": true}) {
		t.Errorf("withheld %v, want echo", p.withheld)
	}
}
