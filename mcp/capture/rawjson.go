package capture

// rawjson.go: the raw-message readers of this package, for agentgate
// guard, which must check a server's messages exactly as capture does.

import (
	"encoding/json"
	"strings"
)

// CheckMembers reports an error when the JSON-RPC message msg repeats a
// member name in any object, or has two members whose names differ only
// in case where a Go client and a JavaScript or Python client would read
// different ones (see the doc of the member rules in members.go). msg
// should be valid JSON (json.Valid): syntax errors are not reported.
func CheckMembers(msg []byte) error { return checkMembers(msg) }

// CheckMembersOf is CheckMembers, with the same rules, for a message that
// its errors call noun ("request" for a client's message; CheckMembers
// says "reply").
func CheckMembersOf(msg []byte, noun string) error { return checkMembersOf(msg, noun) }

// RawMember is one member of a JSON object as sent: its name, decoded,
// and the offsets in the object's bytes of its name (the opening quote)
// and of its value (Start to End).
type RawMember struct {
	Name                 string
	KeyStart, Start, End int
}

// ObjectMembers splits the JSON object obj (leading and trailing space
// allowed) into its members, in order, without decoding their values; ok
// is false when obj is not a well-formed object at this level. Names are
// decoded (escapes resolved) and compared by the caller.
func ObjectMembers(obj []byte) (members []RawMember, ok bool) {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return nil, false
	}
	i++
	for {
		i = skipSpace(obj, i)
		if i < len(obj) && obj[i] == '}' {
			return members, true
		}
		if i >= len(obj) || obj[i] != '"' {
			return nil, false
		}
		end := stringEnd(obj, i)
		if end < 0 {
			return nil, false
		}
		name := string(obj[i+1 : end-1])
		if strings.IndexByte(name, '\\') >= 0 {
			if json.Unmarshal(obj[i:end], &name) != nil {
				return nil, false
			}
		}
		m := RawMember{Name: name, KeyStart: i}
		i = skipSpace(obj, end)
		if i >= len(obj) || obj[i] != ':' {
			return nil, false
		}
		i = skipSpace(obj, i+1)
		vend := valueEnd(obj, i)
		if vend < 0 {
			return nil, false
		}
		m.Start, m.End = i, vend
		members = append(members, m)
		i = skipSpace(obj, vend)
		switch {
		case i < len(obj) && obj[i] == ',':
			i++
		case i < len(obj) && obj[i] == '}':
		default:
			return nil, false
		}
	}
}

// ArrayElements splits the JSON array arr (no leading space) into the raw
// bytes of its elements, sub-slices of arr; ok is false when arr is not a
// well-formed array at this level.
func ArrayElements(arr []byte) (elems []json.RawMessage, ok bool) {
	if len(arr) == 0 || arr[0] != '[' {
		return nil, false
	}
	elems, n := splitArray(arr)
	return elems, n >= 0 && skipSpace(arr, n) == len(arr)
}

// InstructionsOf returns the "instructions" string of an initialize
// result, or nil when it has none (absent, null or not a string): the
// value capture locks as the server's instructions.
func InstructionsOf(result json.RawMessage) *string { return instructionsOf(result) }
