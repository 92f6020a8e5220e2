// Package jsonrpc reads JSON-RPC messages raw, as MCP servers and clients
// send them, for agentgate-mcp's capture (a server's replies) and guard
// (the messages of both sides): the member rule every message must keep
// (CheckMembersOf: no repeated member, no case variant a Go client and a
// JavaScript or Python client would read differently), the envelope
// (ParseEnvelope), ids compared by value (IDKey, PlainID), the check
// that each answer answers one request (Exchange), and the splitting of
// objects, arrays and list results without decoding their values
// (ObjectMembers, ArrayElements, ListResult), each element a sub-slice
// of the message, byte for byte. It has no transport: it links neither
// package net nor mcp-go.
package jsonrpc
