package jsonrpc

import (
	"encoding/json"
	"strings"
	"testing"
)

func FuzzCheckMembers(f *testing.F) {
	for _, s := range []string{`{"a":1,"a":2}`, `{"result":{"tools":[],"Tools":[]}}`, `[{"id":1},{"ID":1}]`, `{"a":"\"","b":{"c":[{"d":1,"d":2}]}}`, `{"\u0061":1,"a":2}`, `{`, `"`, `{"a`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		err := CheckMembersOf(b, "reply")
		// Exact repeats in any object are what encoding/json's map
		// decoding hides: if b decodes into nested maps with fewer members
		// than it names, CheckMembersOf must have refused it. (Checked for
		// flat objects, the common case.)
		var m map[string]json.RawMessage
		if err == nil && json.Unmarshal(b, &m) == nil {
			if n := countTopMembers(b); n >= 0 && n != len(m) {
				t.Fatalf("accepted %q: %d members named, %d distinct", b, n, len(m))
			}
		}
	})
}

// countTopMembers counts the members of the top-level object b names, with
// a json.Decoder (-1 when b is not one).
func countTopMembers(b []byte) int {
	d := json.NewDecoder(strings.NewReader(string(b)))
	if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
		return -1
	}
	n := 0
	for d.More() {
		if _, err := d.Token(); err != nil {
			return -1
		}
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			return -1
		}
		n++
	}
	return n
}
