package capture

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/agentgate/agentgate/mcp/config/syntax"
	"github.com/agentgate/agentgate/mcp/jsonrpc"
	"github.com/agentgate/agentgate/mcp/wire"
)

type jsonRaw = json.RawMessage

// list sends tools/list through the transport itself, page by page, and
// keeps every tool object's bytes as received (see the package doc).
func (s *session) list(ctx context.Context) ([]jsonRaw, error) {
	return s.listAll(ctx, mcp.MethodToolsList, "tools", wire.StageList, &s.page)
}

// listAll sends method (tools/list, prompts/list, resources/templates/list
// or resources/list) page by page and returns the elements of every
// page's key array, each exactly as received (a reply that repeats a
// member name anywhere never gets here: the transport's CheckMembersOf
// refuses it). Errors are at stage; *page counts the pages (several
// lists run at once, each with its own count).
//
// The pages of every list of the server add up to at most MaxListingBytes
// (s.listed counts them across lists), and one list holds at most
// MaxTools elements: the page that crosses a cap fails the server.
func (s *session) listAll(ctx context.Context, method mcp.MCPMethod, key string, stage wire.Stage, page *int) ([]jsonRaw, error) {
	tools := []jsonRaw{}
	seen := map[string]bool{}
	var cursor *string
	for *page = 1; ; *page++ {
		if *page > s.opts.MaxPages {
			return nil, s.errorAt(stage, wire.ErrPagination, "stopped after %d pages: the server keeps sending new cursors (a server bug, or more %s than MaxPages allows)", s.opts.MaxPages, key)
		}
		params := map[string]any{}
		if cursor != nil {
			params["cursor"] = *cursor
		}
		req := transport.JSONRPCRequest{
			JSONRPC: mcp.JSONRPC_VERSION,
			ID:      mcp.NewRequestId(fmt.Sprintf("agentgate-%s-%d", strings.ReplaceAll(string(method), "/", "-"), *page)),
			Method:  string(method),
		}
		if mcp.IsModernProtocol(s.protocol) {
			// 2026-07-28: every request carries its protocol metadata.
			params["_meta"] = map[string]any{
				mcp.MetaKeyProtocolVersion:    s.protocol,
				mcp.MetaKeyClientInfo:         clientInfo,
				mcp.MetaKeyClientCapabilities: clientCapabilities(s.r.ClientCapabilities),
			}
			enc, _ := json.Marshal(params)
			req.Header = http.Header{}
			for k, v := range mcp.StandardHeaders(s.protocol, method, enc) {
				req.Header.Set(k, v)
			}
		}
		if len(params) > 0 {
			req.Params = params
		}
		resp, err := s.tr.SendRequest(ctx, req)
		if err != nil {
			e := *s.fail(ctx, err)
			if stage != wire.StageList && e.Stage == wire.StageList {
				e.Stage = stage
			}
			return nil, &e
		}
		if resp.Error != nil {
			return nil, s.errorAt(stage, wire.ErrRPC, "page %d: server replied with JSON-RPC error %d: %s", *page, resp.Error.Code, resp.Error.Message)
		}
		if int64(len(resp.Result)) > s.opts.MaxResponseBytes {
			return nil, s.tooLargeAt(stage)
		}
		if total := s.listed.Add(int64(len(resp.Result))); total > s.opts.MaxListingBytes {
			e := s.errorAt(stage, wire.ErrTooLarge, "the listing is larger than %d bytes after %d pages (the limit per server: max-listing-bytes in agentgate.toml)",
				s.opts.MaxListingBytes, *page)
			e.Hints = []string{fmt.Sprintf("if the server really lists this much, raise its limit in agentgate.toml: [servers.%s] max-listing-bytes = \"512MiB\" (default %d MiB)",
				syntax.TOMLKey(s.r.Name), wire.DefaultMaxListingBytes>>20)}
			return nil, e
		}
		// Members are matched by exact name (a struct would also take
		// "Tools"); jsonrpc.CheckMembersOf already refused repeats and case variants.
		items, rawCursor, ok := jsonrpc.ListResult(resp.Result, key)
		if !ok {
			if v := bytes.TrimLeft(resp.Result, " \t\r\n"); len(v) == 0 || v[0] != '{' {
				return nil, s.errorAt(stage, wire.ErrProtocol, "page %d: result is not an object {%s: [...], nextCursor?}", *page, key)
			}
			return nil, s.errorAt(stage, wire.ErrProtocol, "page %d: result has no %q array", *page, key)
		}
		tools = append(tools, items...)
		if len(tools) > s.opts.MaxTools {
			e := s.errorAt(stage, wire.ErrTooLarge, "the server listed more than %d %s after %d pages (the limit per server: max-tools in agentgate.toml)",
				s.opts.MaxTools, key, *page)
			e.Hints = []string{fmt.Sprintf("if the server really lists this many tools, raise its limit in agentgate.toml: [servers.%s] max-tools = 50000 (default %d)",
				syntax.TOMLKey(s.r.Name), wire.DefaultMaxTools)}
			return nil, e
		}
		next, err := cursorOf(rawCursor)
		if err != nil {
			return nil, s.errorAt(stage, wire.ErrProtocol, "page %d: nextCursor is not a string: %s", *page, s.clip(string(rawCursor), 80, false))
		}
		if next == "" {
			return tools, nil
		}
		if seen[next] {
			return nil, s.errorAt(stage, wire.ErrPagination, "page %d repeated the cursor %q of an earlier page: the listing would never end (a server bug)", *page, s.clip(next, 80, false))
		}
		seen[next] = true
		cursor = &next
	}
}

// cursorOf decodes a nextCursor member: "" when absent, null or empty.
func cursorOf(raw jsonRaw) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var next string
	err := json.Unmarshal(raw, &next)
	return next, err
}

// ambiguous is the error for a message CheckMembersOf or the exchange
// refuses.
func (s *session) ambiguous(err error) *wire.Error {
	if errors.Is(err, jsonrpc.ErrBrokenExchange) {
		return s.errorf(wire.ErrProtocol, "%v; a client could take either answer, so agentgate cannot verify what the server lists", err)
	}
	return s.errorf(wire.ErrProtocol, "%v; agentgate pins only what every client reads the same way", err)
}

// tooLarge is the error for a page of the current stage over
// MaxResponseBytes.
func (s *session) tooLarge() *wire.Error { return s.tooLargeAt(s.stage) }

// tooLargeAt is the error for a page of stage over MaxResponseBytes, with
// its hint: no setting raises that limit.
func (s *session) tooLargeAt(stage wire.Stage) *wire.Error {
	e := s.errorAt(stage, wire.ErrTooLarge, "a response is larger than %d bytes (the limit per %s page)", s.opts.MaxResponseBytes, stage)
	e.Hints = []string{fmt.Sprintf("one page of the listing is over %d MiB: the server sends more than any MCP client should read; report it to the server's maintainers, or exclude it in agentgate.toml",
		wire.DefaultMaxResponseBytes>>20)}
	return e
}
