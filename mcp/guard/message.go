package guard

// message.go: what guard reads of a JSON-RPC message: its envelope.

import (
	"encoding/json"

	"github.com/agentgate/agentgate/mcp/jsonrpc"
)

// badMessage is why readMessage refused a message: public for the other
// side (no text of the message's), detail for the log.
type badMessage struct {
	notJSON        bool
	public, detail string
}

// readMessage is guard's one reader of a JSON-RPC message, the server's
// and the client's alike (noun names it in errors: "reply", "request"):
// msg (without its newline) must be JSON (json.Valid), must not repeat a
// member name or break capture's case rule (jsonrpc.CheckMembersOf), and
// must be one JSON-RPC 2.0 message as MCP allows it (jsonrpc.ParseEnvelope). A
// message it refuses is never forwarded.
func readMessage(msg []byte, noun string) (jsonrpc.Envelope, *badMessage) {
	if !json.Valid(msg) {
		return jsonrpc.Envelope{}, &badMessage{notJSON: true, public: "it is not JSON", detail: "not JSON"}
	}
	if err := jsonrpc.CheckMembersOf(msg, noun); err != nil {
		return jsonrpc.Envelope{}, &badMessage{public: "it repeats a member name", detail: err.Error()}
	}
	env, err := jsonrpc.ParseEnvelope(msg)
	if err != nil {
		return env, &badMessage{public: "it is not a valid JSON-RPC message", detail: "not a valid JSON-RPC message: " + err.Error()}
	}
	return env, nil
}

// soleID returns the raw value of the id member of the JSON object msg
// when it has exactly one (nil otherwise, or when msg is not an object),
// and whether msg has a method member: what a refused message's answer
// can go by (refuse, refuseClient).
func soleID(msg []byte) (id []byte, method bool) {
	ms, _ := jsonrpc.ObjectMembers(msg)
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
	ms, ok := jsonrpc.ObjectMembers(obj)
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
