package config

import "slices"

// clientDeclares is what each client declares in initialize, by client
// format name: observed by running the client (scripts/test-clients.sh,
// the versions of testdata/clients) or, for clients that cannot be run
// here, as their makers document it; docs/config.md ("What the clients
// declare") has the table with its sources. A client not listed declares
// nothing agentgate knows of.
var clientDeclares = map[string][]string{
	"claude-code": {CapElicitation, CapRoots},              // observed: Claude Code 2.1.197
	"codex":       {CapElicitation},                        // observed: Codex 0.171.0 (form and url; agentgate declares form)
	"gemini":      {CapRoots},                              // observed: Gemini CLI 0.61.0 sessions (mcp list declares none)
	"qwen":        {CapRoots},                              // observed: Qwen Code 0.15.10 sessions (mcp list declares none)
	"opencode":    {CapRoots},                              // observed: opencode 1.18.33
	"vscode":      {CapElicitation, CapRoots, CapSampling}, // documented (code.visualstudio.com MCP developer guide)
	"cursor":      {CapElicitation, CapRoots},              // documented (Cursor's "Protocol support" table)
}

// fileReaders lists, for a default config file read by more than its own
// client, every client that reads it: VS Code and Copilot CLI read the
// root .mcp.json too (Copilot CLI declares nothing agentgate could
// observe: its sessions need a login).
var fileReaders = map[string][]string{
	dotMcpFile: {"claude-code", "vscode", "copilot"},
}

// declaredCapabilities returns the client capabilities (sorted
// ClientCapabilityNames) that the clients reading config file rel, read
// with the given client format, declare in initialize: the union over
// those clients. Load gives it to every server without an agentgate.toml
// client-capabilities, so that a server is captured as its own clients
// see it; nil when none declares any.
func declaredCapabilities(rel, client string) []string {
	readers := fileReaders[rel]
	if readers == nil {
		readers = []string{client}
	}
	var caps []string
	for _, c := range readers {
		caps = append(caps, clientDeclares[c]...)
	}
	slices.Sort(caps)
	return slices.Compact(caps)
}
