package config

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// VS Code reads the repository root's .mcp.json too (Claude Code's file),
// for Copilot: microsoft/vscode
// src/vs/workbench/contrib/mcp/common/discovery/workspaceDotMcpDiscovery.ts
// registers every workspace folder's .mcp.json, and
// nativeMcpDiscoveryAdapters.ts claudeConfigToServerDefinition reads it:
// JSON.parse (strict JSON: a comment or trailing comma and VS Code reads no
// server), a truthy "url" is an HTTP server with no headers, anything else
// is a stdio server (command, args, env, cwd = the folder), and no
// variable is expanded ("type" is not read). That is the reader at
// microsoft/vscode 4397565 / cf89be7; a later mcpEnvironmentVariableExpansion.ts
// (1ea38b9) expands ${VAR} and ${VAR:-default} in command, args, env, url
// and header values of servers that carry an expansion marker, so newer
// versions may read the file as Claude Code does. The notes therefore say
// "VS Code versions whose reader ...". agentgate locks Claude Code's
// reading of the file; where VS Code would start a server differently, the
// server carries a note saying how, so that the difference is seen
// (agentgate servers, agentgate verify) rather than silently unpinned. A
// difference is a note, not an error: the file is valid for Claude Code,
// and the server VS Code starts is the same program (or endpoint) given
// text instead of a value, which most servers list the same tools for.

// dotMcpFile is the file both Claude Code and VS Code read.
const dotMcpFile = ".mcp.json"

// noteVSCodeReading adds to each server read from the root .mcp.json the
// ways VS Code's reading of it differs from Claude Code's.
func noteVSCodeReading(res *fileResult, data []byte) {
	if !json.Valid(data) {
		// Comments, trailing commas or a byte order mark: JSON.parse
		// fails and VS Code starts none of the file's servers, so none
		// runs differently from what is locked.
		return
	}
	for i := range res.servers {
		s := &res.servers[i]
		if s.Transport != Stdio && len(s.Headers) > 0 {
			s.Notes = append(s.Notes, "VS Code also starts this server from "+dotMcpFile+"; VS Code versions whose reader of it drops headers connect without "+strings.Join(slices.Sorted(maps.Keys(s.Headers)), ", "))
		}
		var fields []string
		check := func(field, v string) {
			if strings.Contains(v, "${") && !slices.Contains(fields, field) {
				fields = append(fields, field)
			}
		}
		check("command", s.Command)
		for _, a := range s.Args {
			check("args", a)
		}
		for _, k := range slices.Sorted(maps.Keys(s.Env)) {
			check("env."+k, s.Env[k])
		}
		check("url", s.URL)
		if len(fields) > 0 {
			s.Notes = append(s.Notes, fmt.Sprintf("VS Code also starts this server from %s; VS Code versions whose reader of it expands no variables pass %s with ${...} as written", dotMcpFile, strings.Join(fields, ", ")))
		}
	}
}
