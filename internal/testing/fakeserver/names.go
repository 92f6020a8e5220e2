package fakeserver

import "github.com/agentgate/agentgate/internal/demo"

// The server's types and functions, under the names the tests use.
type (
	Options = demo.Options
	Message = demo.Message
	Server  = demo.Server
	Surface = demo.Surface
)

// Serve is demo.Serve: newline-delimited JSON-RPC on r and w.
var Serve = demo.Serve

// NewServer is demo.NewServer.
var NewServer = demo.NewServer

// The misbehaviours (demo.Misbehave*).
const (
	MisbehaveCrashList   = demo.MisbehaveCrashList
	MisbehaveAnswerTwice = demo.MisbehaveAnswerTwice
	MisbehaveUnsolicited = demo.MisbehaveUnsolicited
	MisbehaveWrongID     = demo.MisbehaveWrongID
)
