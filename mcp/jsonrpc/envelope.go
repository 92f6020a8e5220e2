package jsonrpc

// envelope.go: the top level of one JSON-RPC message, checked as MCP
// allows it.

import (
	"bytes"
	"encoding/json"
	"errors"
)

// Envelope is the top level of one JSON-RPC message: raw values (nil when
// absent, sub-slices of Raw) and the method, decoded.
type Envelope struct {
	ID, Params, Result, Error []byte
	Method                    string
	HasMethod                 bool
	Raw                       []byte // the whole message
	IDAt                      int    // the offset of ID in Raw
	ResultAt                  int    // the offset of Result in Raw
}

// Response reports whether the message is a response (result or error).
func (e *Envelope) Response() bool { return !e.HasMethod }

// ParseEnvelope reads the envelope of msg, a JSON value that json.Valid
// accepted and CheckMembersOf did not refuse. It fails when msg is
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
func ParseEnvelope(msg []byte) (Envelope, error) {
	e, version, err := readEnvelope(msg)
	if err != nil {
		return e, err
	}
	if s, ok := String(version); !ok || s != "2.0" {
		return e, errors.New(`it has no "jsonrpc": "2.0"`)
	}
	if e.HasMethod {
		return e, e.checkRequest()
	}
	return e, e.checkResponse()
}

// readEnvelope reads the top-level members of msg into an Envelope, and
// returns the raw value of "jsonrpc" (nil when absent). It fails when msg
// is not an object or its method is not a string.
func readEnvelope(msg []byte) (e Envelope, version []byte, err error) {
	ms, ok := ObjectMembers(msg)
	if !ok {
		if t := bytes.TrimSpace(msg); len(t) > 0 && t[0] == '[' {
			return e, nil, errors.New("a batch (MCP has no batches since 2025-06-18)")
		}
		return e, nil, errors.New("not a JSON object")
	}
	e.Raw = msg
	for _, m := range ms {
		v := msg[m.Start:m.End]
		switch m.Name {
		case "jsonrpc":
			version = v
		case "id":
			e.ID, e.IDAt = v, m.Start
		case "method":
			var ok bool
			if e.Method, ok = String(v); !ok {
				return e, nil, errors.New("its method is not a string")
			}
			e.HasMethod = true
		case "params":
			e.Params = v
		case "result":
			e.Result, e.ResultAt = v, m.Start
		case "error":
			e.Error = v
		}
	}
	return e, version, nil
}

// validID reports whether the raw id starts as a string or a number does.
func validID(id []byte) bool {
	return len(id) > 0 && (id[0] == '"' || id[0] == '-' || id[0] >= '0' && id[0] <= '9')
}

// checkRequest applies ParseEnvelope's rules for a request or
// notification.
func (e *Envelope) checkRequest() error {
	switch {
	case e.Result != nil || e.Error != nil:
		return errors.New("it has both a method and a result or error")
	case e.ID != nil && !validID(e.ID):
		return errors.New("its id is neither a string nor a number")
	case e.ID != nil && e.ID[0] != '"' && !ExactInteger(e.ID):
		return errors.New("its id is a number but not an integer of at most 2^53-1 in magnitude")
	case e.Params != nil && e.Params[0] != '{' && string(e.Params) != "null":
		return errors.New("its params are not an object")
	}
	return nil
}

// checkResponse applies ParseEnvelope's rules for a response.
func (e *Envelope) checkResponse() error {
	switch {
	case e.ID == nil:
		return errors.New("it has neither a method nor an id")
	case (e.Result == nil) == (e.Error == nil):
		return errors.New("a response needs exactly one of result and error")
	case !validID(e.ID) && !(string(e.ID) == "null" && e.Error != nil):
		return errors.New("its id is neither a string nor a number")
	case e.Result != nil && e.Result[0] != '{':
		return errors.New("its result is not an object")
	case e.Error != nil:
		var er struct {
			Code    *json.Number `json:"code"`
			Message *string      `json:"message"`
		}
		if e.Error[0] != '{' || json.Unmarshal(e.Error, &er) != nil || er.Code == nil || er.Message == nil {
			return errors.New("its error is not an object with a code and a message")
		}
		if _, err := er.Code.Int64(); err != nil {
			return errors.New("its error code is not an integer")
		}
	}
	return nil
}

// ExactInteger reports whether the JSON number n is an integer written
// without fraction or exponent whose magnitude is at most 2^53-1, the
// integers every JSON reader (float64 included) reads as the same value.
func ExactInteger(n []byte) bool {
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

// String decodes the JSON string v: directly when it is plain printable
// ASCII (PlainID), else with encoding/json. ok is false when v
// is not a string.
func String(v []byte) (s string, ok bool) {
	if len(v) == 0 || v[0] != '"' {
		return "", false
	}
	if PlainID(v) {
		return string(v[1 : len(v)-1]), true
	}
	return s, json.Unmarshal(v, &s) == nil
}
