package jsonrpc

// rawjson.go: the raw readers of objects, arrays and ids, and the check
// that every answer answers one request (Exchange).

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"sync"
)

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
		name, vstart, ok := memberName(obj, i)
		if !ok {
			return nil, false
		}
		m := RawMember{Name: name, KeyStart: i}
		i = vstart
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

// InstructionsOf returns the "instructions" string of an initialize or
// server/discover result, or nil when it has none (absent, null, or not a
// string): the value capture locks as the server's instructions. An
// unpaired surrogate escape decodes as U+FFFD, which is how the
// instructions hash encodes it.
func InstructionsOf(result json.RawMessage) *string {
	var r map[string]json.RawMessage
	if json.Unmarshal(result, &r) != nil {
		return nil
	}
	var in string
	raw, ok := r["instructions"]
	if !ok || len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &in) != nil {
		return nil
	}
	return &in
}

// IDKey is the key of a JSON-RPC id, the same for every spelling of one
// value: a string by its decoded text, a number by its exact value ("1",
// "1.0" and "1e0" are one key). ok is false for any other value.
func IDKey(raw []byte) (key string, ok bool) {
	if len(raw) == 0 {
		return "", false
	}
	if PlainID(raw) && string(raw) != "-0" { // no escape, no fraction: the key is the text (FuzzIDKey)
		if raw[0] == '"' {
			return "s" + string(raw[1:len(raw)-1]), true
		}
		return "n" + string(raw), true
	}
	return slowIDKey(raw)
}

// slowIDKey is IDKey for every id, decoded by encoding/json and math/big.
func slowIDKey(raw []byte) (key string, ok bool) {
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return "", false
		}
		return "s" + s, true
	}
	r, ok := new(big.Rat).SetString(string(raw))
	if !ok || strings.ContainsAny(string(raw), " \t") {
		return "", false
	}
	return "n" + r.RatString(), true
}

// MaxPlainID is the longest id PlainID accepts.
const MaxPlainID = 64

// PlainID reports whether b is a plain id: an integer (an optional minus
// and decimal digits, no leading zero) or a string of printable ASCII
// without quote or backslash, at most MaxPlainID bytes. Each is one JSON
// token that IDKey reads without escapes.
func PlainID(b []byte) bool {
	if len(b) == 0 || len(b) > MaxPlainID {
		return false
	}
	if b[0] == '"' {
		if len(b) < 2 || b[len(b)-1] != '"' {
			return false
		}
		for _, c := range b[1 : len(b)-1] {
			if c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
				return false
			}
		}
		return true
	}
	d := b
	if d[0] == '-' {
		d = d[1:]
	}
	if len(d) == 0 || (d[0] == '0' && len(d) > 1) {
		return false
	}
	for _, c := range d {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// ErrBrokenExchange starts the error of a server whose answers do not
// match the requests sent to it one for one (Exchange).
var ErrBrokenExchange = errors.New("the server broke JSON-RPC")

// An Exchange checks that a server answers each request sent to it once
// and nothing else: Sent records each request the client writes,
// Received checks each message the server sends. A response to an id
// never sent, or to one already answered (a second tools/list answer
// that adds a tool, a wrong id), or a batch (which can hold answers) is
// an error wrapping ErrBrokenExchange: a client could take either answer,
// so what the server lists cannot be verified. Ids are compared by
// value (IDKey). A response with a null id and an error (the server could
// not read a message) answers nothing and passes. The zero value is
// ready; it is safe for concurrent use.
type Exchange struct {
	mu       sync.Mutex
	waiting  map[string]string // id key -> method, sent and not yet answered
	answered map[string]string // id key -> method, answered
	err      error             // the first error of Received
}

// Sent records the request msg (one JSON-RPC message the client writes;
// notifications, responses and anything else are ignored).
func (x *Exchange) Sent(msg []byte) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method *string         `json:"method"`
	}
	if json.Unmarshal(msg, &m) != nil || m.Method == nil || m.ID == nil {
		return
	}
	key, ok := IDKey(m.ID)
	if !ok {
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.waiting == nil {
		x.waiting = map[string]string{}
	}
	x.waiting[key] = *m.Method
	delete(x.answered, key)
}

// Received checks msg, one message of the server's that CheckMembersOf
// accepted (it is not checked again), and returns the error described at
// Exchange, also kept for Err.
func (x *Exchange) Received(msg []byte) error {
	t := msg[skipSpace(msg, 0):]
	if len(t) > 0 && t[0] == '[' {
		return x.fail(fmt.Errorf("%w: it sent a batch (an array of messages), which MCP does not allow since 2025-06-18", ErrBrokenExchange))
	}
	ms, ok := ObjectMembers(t)
	if !ok {
		return nil
	}
	var id []byte
	response := false
	for _, m := range ms {
		switch m.Name {
		case "method":
			return nil // a request or notification of the server's
		case "id":
			id = t[m.Start:m.End]
		case "result", "error":
			response = true
		}
	}
	if id == nil || !response || string(id) == "null" && hasMember(ms, "error") {
		return nil
	}
	shown := string(id)
	if len(shown) > 40 {
		shown = shown[:40] + "..."
	}
	key, ok := IDKey(id)
	x.mu.Lock()
	defer x.mu.Unlock()
	if method, sent := x.waiting[key]; ok && sent {
		delete(x.waiting, key)
		if x.answered == nil {
			x.answered = map[string]string{}
		}
		x.answered[key] = method
		return nil
	}
	if method, twice := x.answered[key]; ok && twice {
		return x.failLocked(fmt.Errorf("%w: it answered the request with id %s (%s) a second time", ErrBrokenExchange, shown, method))
	}
	return x.failLocked(fmt.Errorf("%w: it sent an answer with id %s, which agentgate never sent", ErrBrokenExchange, shown))
}

// hasMember reports whether the members ms include name.
func hasMember(ms []RawMember, name string) bool {
	for _, m := range ms {
		if m.Name == name {
			return true
		}
	}
	return false
}

// Err is the first error Received returned, or nil.
func (x *Exchange) Err() error {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.err
}

func (x *Exchange) fail(err error) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.failLocked(err)
}

func (x *Exchange) failLocked(err error) error {
	if x.err == nil {
		x.err = err
	}
	return err
}
