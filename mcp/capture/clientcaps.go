package capture

// clientcaps.go: the client capabilities capture declares
// (config.Resolved.ClientCapabilities, from agentgate.toml's
// client-capabilities) and its answers to the requests a server may then
// send while it is captured.

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/agentgate/agentgate/mcp/config"
)

// SamplingRefusal is the message of the JSON-RPC error (code -1) capture
// answers a sampling/createMessage with.
const SamplingRefusal = "agentgate lock does not sample: it only lists the server's tools to pin them (client-capabilities in agentgate.toml declares sampling so that the tools a sampling client sees can be pinned)"

// samplingCode is the JSON-RPC error code of SamplingRefusal: -1, the
// code the MCP specification's sampling section gives for a user who
// rejected the request.
const samplingCode = -1

// clientCapabilities is what capture declares for the names of
// config.Resolved.ClientCapabilities: roots (with listChanged: false,
// since the roots never change during a capture), sampling and
// elicitation (form mode: an empty object). No names: the zero value,
// "capabilities": {}, as before the key existed.
func clientCapabilities(names []string) mcp.ClientCapabilities {
	var c mcp.ClientCapabilities
	for _, n := range names {
		switch n {
		case config.CapRoots:
			c.Roots = &struct {
				ListChanged bool `json:"listChanged,omitempty"`
			}{}
		case config.CapSampling:
			c.Sampling = &mcp.SamplingCapability{}
		case config.CapElicitation:
			c.Elicitation = &mcp.ElicitationCapability{}
		}
	}
	return c
}

// declares reports whether the session declared capability name.
func (s *session) declares(name string) bool {
	return slices.Contains(s.r.ClientCapabilities, name)
}

// serverRequest answers a request the server sends during a capture:
//   - roots/list (roots declared): the repository root as one file:// root,
//     what an editor gives a server for the open project;
//   - sampling/createMessage (sampling declared): the JSON-RPC error
//     SamplingRefusal, code -1;
//   - elicitation/create (elicitation declared): {"action":"decline"};
//   - ping: {};
//   - anything else, or a method of a capability not declared: method not
//     found (-32601).
//
// No request ever waits: the answer is immediate, so a server that waits
// for it goes on to answer the listing.
func (s *session) serverRequest(_ context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	result := func(v any) (*transport.JSONRPCResponse, error) {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		return transport.NewJSONRPCResultResponse(req.ID, b), nil
	}
	switch {
	case req.Method == string(mcp.MethodPing):
		return result(struct{}{})
	case req.Method == string(mcp.MethodListRoots) && s.declares(config.CapRoots):
		return result(map[string]any{"roots": []map[string]string{s.root()}})
	case req.Method == string(mcp.MethodSamplingCreateMessage) && s.declares(config.CapSampling):
		return transport.NewJSONRPCErrorResponse(req.ID, samplingCode, SamplingRefusal, nil), nil
	case req.Method == string(mcp.MethodElicitationCreate) && s.declares(config.CapElicitation):
		return result(map[string]string{"action": "decline"})
	}
	return transport.NewJSONRPCErrorResponse(req.ID, mcp.METHOD_NOT_FOUND,
		"agentgate lock does not answer "+req.Method+" (agentgate.toml's client-capabilities does not declare it)", nil), nil
}

// sseEvent returns remote.Options.OnEvent for a legacy SSE session that
// declares capabilities (nil otherwise: nothing changes): mcp-go's SSE
// client transport does not hand server requests to a handler, so capture
// reads them from the event stream itself, answers them with
// serverRequest, and POSTs the answer to the session's endpoint, as the
// transport posts requests.
func (s *session) sseEvent(ctx context.Context, sse bool) func([]byte) {
	if !sse || len(s.r.ClientCapabilities) == 0 {
		return nil
	}
	return func(data []byte) {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(data, &m) != nil || m.Method == "" || len(m.ID) == 0 || string(m.ID) == "null" {
			return // a response, a notification, or the endpoint event
		}
		var id mcp.RequestId
		tr, ok := s.tr.(*transport.SSE) // set before the stream starts
		if json.Unmarshal(m.ID, &id) != nil || !ok {
			return
		}
		resp, err := s.serverRequest(ctx, transport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: id, Method: m.Method})
		if err != nil {
			return
		}
		body, err := json.Marshal(resp)
		endpoint := tr.GetEndpoint()
		if err != nil || endpoint == nil {
			return
		}
		go func() { // never on the stream's reader
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint.String(), bytes.NewReader(body))
			if err != nil {
				return
			}
			req.Header.Set("Content-Type", "application/json")
			if r, err := s.rt.HTTP.Do(req); err == nil {
				_, _ = io.Copy(io.Discard, r.Body)
				_ = r.Body.Close()
			}
		}()
	}
}

// root is the repository's root as roots/list gives it: {"uri":
// "file:///...", "name": its directory name}. It is Options.Root, or
// the working directory (the CLI runs capture from the root) when unset.
func (s *session) root() map[string]string {
	dir := s.opts.Root
	if dir == "" {
		dir, _ = os.Getwd()
	}
	return map[string]string{"uri": FileURI(dir), "name": filepath.Base(dir)}
}

// FileURI is the file:// URI of the absolute path dir, as clients send
// roots: file:///home/me/repo, file:///C:/Users/me/repo on Windows, with
// characters outside a URI path percent-encoded.
func FileURI(dir string) string {
	p := filepath.ToSlash(dir)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // C:/x -> /C:/x
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}
