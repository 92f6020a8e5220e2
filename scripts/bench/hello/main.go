//go:build agentgate_bench

// Command hello is the yardstick for `agentgate version`: a hello-world Go
// binary built the same way (go build -o). Behind the agentgate_bench build
// tag, so `go install ./...` skips it.
package main

import (
	"fmt"
	"os"
)

func main() { fmt.Fprintln(os.Stdout, "hello") }
