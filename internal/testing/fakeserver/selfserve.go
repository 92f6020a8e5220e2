package fakeserver

import (
	"os"
	"testing"

	"github.com/agentgate/agentgate/mcp/config"
)

// Env, set to "1", makes a test binary that calls SelfServe the fake.
const Env = "AGENTGATE_FAKESERVER"

// SelfServe runs the fake (Main, on the binary's arguments) and exits
// when the test binary was started as one (Env=1), so that stdio tests
// spawn a real process: call it first in TestMain.
func SelfServe() {
	if os.Getenv(Env) == "1" {
		os.Exit(Main(os.Args[1:]))
	}
}

// Stdio is a stdio server definition named name, declared in file, that
// runs this test binary as the fake with args (see SelfServe).
func Stdio(tb testing.TB, name, file string, args ...string) config.Resolved {
	exe, err := os.Executable()
	if err != nil {
		tb.Fatal(err)
	}
	return config.Resolved{Server: config.Server{
		Name: name, File: file, Transport: config.Stdio,
		Command: exe, Args: args, Env: map[string]string{Env: "1"},
	}}
}
