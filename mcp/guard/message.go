package guard

// message.go: what guard reads of a JSON-RPC message: its envelope.

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/agentgate/agentgate/mcp/capture"
)

// envelope is the top level of one JSON-RPC message: raw values (nil when
// absent) and the method, decoded.
type envelope struct {
	id, params, result, error []byte
	method                    string
	hasMethod                 bool
	raw                       []byte // the whole message
	idAt                      int    // the offset of id in raw
	resultAt                  int    // the offset of result in raw
}

// response reports whether the message is a response (result or error).
func (e *envelope) response() bool { return !e.hasMethod }

// badMessage is why readMessage refused a message: public for the other
// side (no text of the message's), detail for the log.
type badMessage struct {
	notJSON        bool
	public, detail string
}

// readMessage is guard's one reader of a JSON-RPC message, the server's
// and the client's alike (noun names it in errors: "reply", "request"):
// msg (without its newline) must be JSON (json.Valid), must not repeat a
// member name or break capture's case rule (capture.CheckMembersOf), and
// must be one JSON-RPC 2.0 message as MCP allows it (parseEnvelope). A
// message it refuses is never forwarded.
func readMessage(msg []byte, noun string) (envelope, *badMessage) {
	if !json.Valid(msg) {
		return envelope{}, &badMessage{notJSON: true, public: "it is not JSON", detail: "not JSON"}
	}
	if err := capture.CheckMembersOf(msg, noun); err != nil {
		return envelope{}, &badMessage{public: "it repeats a member name", detail: err.Error()}
	}
	env, err := parseEnvelope(msg)
	if err != nil {
		return env, &badMessage{public: "it is not a valid JSON-RPC message", detail: "not a valid JSON-RPC message: " + err.Error()}
	}
	return env, nil
}

// parseEnvelope reads the envelope of msg, a JSON value that json.Valid
// accepted and capture.CheckMembersOf did not refuse. It fails when msg is
// not one JSON-RPC 2.0 message as MCP allows it: an object (batches are
// refused) with "jsonrpc": "2.0"; a request or notification has a string
// method, params (when present) that are an object (or null, which some
// clients send for none), an id (when present)
// that is a string or an integer of at most 2^53-1 in magnitude (MCP
// forbids null; a fraction, an exponent or a larger integer is a number
// that JavaScript and Python clients and servers read as different
// values, so guard could not tell which request an answer is for), and
// neither result nor error; a response has an id (null only with an
// error) and exactly one of a result object and an error object whose
// code is an integer and whose message is a string.
func parseEnvelope(msg []byte) (envelope, error) {
	var e envelope
	ms, ok := capture.ObjectMembers(msg)
	if !ok {
		if t := bytes.TrimSpace(msg); len(t) > 0 && t[0] == '[' {
			return e, errors.New("a batch (MCP has no batches since 2025-06-18)")
		}
		return e, errors.New("not a JSON object")
	}
	e.raw = msg
	var version []byte
	for _, m := range ms {
		v := msg[m.Start:m.End]
		switch m.Name {
		case "jsonrpc":
			version = v
		case "id":
			e.id, e.idAt = v, m.Start
		case "method":
			var ok bool
			if e.method, ok = jsonString(v); !ok {
				return e, errors.New("its method is not a string")
			}
			e.hasMethod = true
		case "params":
			e.params = v
		case "result":
			e.result, e.resultAt = v, m.Start
		case "error":
			e.error = v
		}
	}
	if s, ok := jsonString(version); !ok || s != "2.0" {
		return e, errors.New(`it has no "jsonrpc": "2.0"`)
	}
	idKind := byte(0)
	if e.id != nil {
		idKind = e.id[0]
	}
	validID := idKind == '"' || idKind == '-' || (idKind >= '0' && idKind <= '9')
	if e.hasMethod {
		if e.result != nil || e.error != nil {
			return e, errors.New("it has both a method and a result or error")
		}
		if e.id != nil && !validID {
			return e, errors.New("its id is neither a string nor a number")
		}
		if e.id != nil && idKind != '"' && !exactInteger(e.id) {
			return e, errors.New("its id is a number but not an integer of at most 2^53-1 in magnitude")
		}
		if e.params != nil && e.params[0] != '{' && string(e.params) != "null" {
			return e, errors.New("its params are not an object")
		}
		return e, nil
	}
	switch {
	case e.id == nil:
		return e, errors.New("it has neither a method nor an id")
	case (e.result == nil) == (e.error == nil):
		return e, errors.New("a response needs exactly one of result and error")
	case !validID && !(string(e.id) == "null" && e.error != nil):
		return e, errors.New("its id is neither a string nor a number")
	case e.result != nil && e.result[0] != '{':
		return e, errors.New("its result is not an object")
	case e.error != nil:
		var er struct {
			Code    *json.Number `json:"code"`
			Message *string      `json:"message"`
		}
		if e.error[0] != '{' || json.Unmarshal(e.error, &er) != nil || er.Code == nil || er.Message == nil {
			return e, errors.New("its error is not an object with a code and a message")
		}
		if _, err := er.Code.Int64(); err != nil {
			return e, errors.New("its error code is not an integer")
		}
	}
	return e, nil
}

// exactInteger reports whether the JSON number n is an integer written
// without fraction or exponent whose magnitude is at most 2^53-1, the
// integers every JSON reader (float64 included) reads as the same value.
func exactInteger(n []byte) bool {
	d := n
	if len(d) > 0 && d[0] == '-' {
		d = d[1:]
	}
	if len(d) == 0 || len(d) > 16 {
		return false
	}
	v := int64(0)
	for _, c := range d {
		if c < '0' || c > '9' {
			return false
		}
		v = v*10 + int64(c-'0')
	}
	return v <= 1<<53-1
}

// jsonString decodes the JSON string v: directly when it is plain
// printable ASCII (capture.PlainID), else with encoding/json. ok is false when v
// is not a string.
func jsonString(v []byte) (s string, ok bool) {
	if len(v) == 0 || v[0] != '"' {
		return "", false
	}
	if capture.PlainID(v) {
		return string(v[1 : len(v)-1]), true
	}
	return s, json.Unmarshal(v, &s) == nil
}

// soleID returns the raw value of the id member of the JSON object msg
// when it has exactly one (nil otherwise, or when msg is not an object),
// and whether msg has a method member: what a refused message's answer
// can go by (refuse, refuseClient).
func soleID(msg []byte) (id []byte, method bool) {
	ms, _ := capture.ObjectMembers(msg)
	n := 0
	for _, m := range ms {
		switch m.Name {
		case "id":
			id = msg[m.Start:m.End]
			n++
		case "method":
			method = true
		}
	}
	if n != 1 {
		return nil, method
	}
	return id, method
}

// member returns the raw value of the member name in the JSON object obj,
// matched by exact name; nil when absent or obj is not an object.
func member(obj []byte, name string) []byte {
	ms, ok := capture.ObjectMembers(obj)
	if !ok {
		return nil
	}
	for _, m := range ms {
		if m.Name == name {
			return obj[m.Start:m.End]
		}
	}
	return nil
}
