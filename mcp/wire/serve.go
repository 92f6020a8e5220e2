package wire

// serve.go: agentgate-mcp's side of the protocol.

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/agentgate/agentgate/mcp/config"
)

// CaptureFunc captures servers and returns their results as soon as it has
// them, with wait, which returns once every process it started is gone;
// mcp/capture's Capture is the one.
type CaptureFunc func(ctx context.Context, servers []config.Resolved, opts Options) (results []Result, wait func())

// runInstead is the hint for agentgate-mcp's capture run by hand (with an
// argument, or without agentgate's request on stdin).
const runInstead = "agentgate-mcp is started by agentgate, which sends it the servers to capture: run agentgate lock (or diff, ci) instead"

// Serve is agentgate-mcp: with no arguments it writes the greeting (its
// versions; see the protocol), reads one request from stdin, captures its servers with capture (progress lines, when the
// request asks for them, go to stderr), writes the response to stdout as
// soon as it has the results, and returns once every server is gone;
// stdin reaching EOF after the request cancels the capture as ctx ending
// does (agentgate died or wants it stopped: see the protocol). It returns
// the exit code: 0 when it answered (failures of servers are in
// the results), 2 for a request it cannot read or one from another version
// (it then answers with a refusal naming its own version, and captures
// nothing), 1 when the response cannot be written. ctx should end on
// SIGINT and SIGTERM: capture then stops every server it started, and the
// cancelled results are still written. "agentgate-mcp -version" prints the
// version.
func Serve(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, capture CaptureFunc) int {
	switch {
	case len(args) == 1 && (args[0] == "-version" || args[0] == "--version" || args[0] == "version"):
		fmt.Fprintf(stdout, "%s %s (protocol %d)\n", HelperName, Version(), ProtocolVersion)
		return 0
	case len(args) > 0:
		fmt.Fprintf(stderr, "%s: error: unexpected argument %q\n", HelperName, args[0])
		fmt.Fprintf(stderr, "agentgate: hint: %s\n", runInstead)
		return 2
	}
	if err := WriteGreeting(stdout); err != nil {
		fmt.Fprintf(stderr, "%s: error: write the greeting: %v\n", HelperName, err)
		return 1
	}
	br := bufio.NewReader(stdin)
	req, err := ReadRequest(br)
	if err != nil {
		fmt.Fprintf(stderr, "%s: error: %v\n", HelperName, err)
		var ve *VersionError
		if !errors.As(err, &ve) {
			fmt.Fprintf(stderr, "agentgate: hint: %s\n", runInstead)
		} else {
			for _, h := range ve.Hints() {
				fmt.Fprintf(stderr, "agentgate: hint: %s\n", h)
			}
			if werr := WriteRefusal(stdout, ve.Error()); werr != nil {
				fmt.Fprintf(stderr, "%s: error: write the response: %v\n", HelperName, werr)
			}
		}
		return 2
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		_, _ = io.Copy(io.Discard, br) // until agentgate closes the pipe or dies
		cancel()
	}()
	results, wait := capture(ctx, req.Servers, req.CaptureOptions(stderr))
	// Answer first, then wait for the servers to be gone: agentgate can
	// write and report meanwhile, and waits for this process to exit.
	err = WriteResponse(stdout, results)
	wait()
	if err != nil {
		fmt.Fprintf(stderr, "%s: error: write the response: %v\n", HelperName, err)
		return 1
	}
	return 0
}
