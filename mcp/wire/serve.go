package wire

// serve.go: agentgate-mcp's side of the protocol.

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/agentgate/agentgate/mcp/config"
)

// CaptureFunc captures servers; mcp/capture's CaptureAll is the one.
type CaptureFunc func(ctx context.Context, servers []config.Resolved, opts Options) []Result

// Serve is agentgate-mcp: with no arguments it reads one request from
// stdin, captures its servers with capture (progress lines, when the
// request asks for them, go to stderr) and writes the response to stdout;
// it returns the exit code: 0 when it answered (failures of servers are in
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
		fmt.Fprintf(stderr, "%s: hint: agentgate starts %s and talks to it over stdin and stdout; run agentgate instead\n", HelperName, HelperName)
		return 2
	}
	req, err := ReadRequest(stdin)
	if err != nil {
		fmt.Fprintf(stderr, "%s: error: %v\n", HelperName, err)
		var ve *VersionError
		if errors.As(err, &ve) {
			fmt.Fprintf(stderr, "%s: hint: install both from the same version: go install github.com/agentgate/agentgate/cmd/...@VERSION\n", HelperName)
			if werr := WriteRefusal(stdout, ve.Error()); werr != nil {
				fmt.Fprintf(stderr, "%s: error: write the response: %v\n", HelperName, werr)
			}
		}
		return 2
	}
	results := capture(ctx, req.Servers, req.CaptureOptions(stderr))
	if err := WriteResponse(stdout, results); err != nil {
		fmt.Fprintf(stderr, "%s: error: write the response: %v\n", HelperName, err)
		return 1
	}
	return 0
}
