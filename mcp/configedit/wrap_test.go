package configedit

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/mcp/config"
)

// TestWrapRemoteExact: the wrapped remote entry, written out by hand; the
// saved members' base64 was computed with coreutils:
//
//	printf '%s' '"type": "http", "url": "https://h/mcp"' | base64
//	printf '%s' 'url = "https://h/mcp"
//	bearer_token_env_var = "T"' | base64 -w0
func TestWrapRemoteExact(t *testing.T) {
	for _, tc := range []struct{ client, file, in, want string }{
		{"claude-code", ".mcp.json",
			`{"mcpServers": {"r": {"type": "http", "url": "https://h/mcp", "timeout": 5}}}`,
			`{"mcpServers": {"r": {"type": "stdio", "command": "agentgate", "args": ["guard", "--server", "r", "--url", "https://h/mcp", "--transport", "http"], "env": {"AGENTGATE_UNWRAP": "InR5cGUiOiAiaHR0cCIsICJ1cmwiOiAiaHR0cHM6Ly9oL21jcCI="}, "timeout": 5}}}`},
		{"codex", ".codex/config.toml",
			"[mcp_servers.r]\nurl = \"https://h/mcp\"\nbearer_token_env_var = \"T\"\nenabled = true\n",
			"[mcp_servers.r]\ncommand = \"agentgate\"\nargs = [\"guard\", \"--server\", \"r\", \"--url\", \"https://h/mcp\", \"--header\", \"Authorization: Bearer ${T}\", \"--transport\", \"http\"]\n" +
				"env = { AGENTGATE_UNWRAP = \"dXJsID0gImh0dHBzOi8vaC9tY3AiCmJlYXJlcl90b2tlbl9lbnZfdmFyID0gIlQi\" }\nenv_vars = [\"T\"]\nenabled = true\n"},
	} {
		out, names, _, err := WrapFile(tc.client, tc.file, []byte(tc.in), WrapOptions{})
		if err != nil || string(out) != tc.want || !slices.Equal(names, []string{"r"}) {
			t.Errorf("%s: %v %q\n%s\nwant\n%s", tc.client, err, names, out, tc.want)
		}
		back, _, err := UnwrapFile(tc.client, tc.file, out)
		if err != nil || string(back) != tc.in {
			t.Errorf("%s: unwrap: %v\n%s", tc.client, err, back)
		}
	}
}

// TestWrapRemoteBadHeaderName: a header whose name guard's --header
// refuses (not an RFC 9110 token) leaves the remote entry as it is, named
// with the reason, instead of writing a wrapper guard would not run.
func TestWrapRemoteBadHeaderName(t *testing.T) {
	in := `{"mcpServers": {"r": {"type": "http", "url": "https://h/mcp", "headers": {"X(Y)": "1"}}}}`
	out, names, left, err := WrapFile("claude-code", ".mcp.json", []byte(in), WrapOptions{})
	if err != nil || string(out) != in || len(names) != 0 || len(left) != 1 || left[0].Server != "r" ||
		!strings.Contains(left[0].Reason, `header "X(Y)" is not an HTTP header name`) {
		t.Errorf("wrap: %v %q %+v\n%s", err, names, left, out)
	}
}

// TestWrapRefusesGuardEnv: wrap does not write a wrapper agentgate would
// then refuse or not see through: an entry whose env sets AGENTGATE_MCP
// or PATH is an error naming it, and the file is not edited.
func TestWrapRefusesGuardEnv(t *testing.T) {
	for k, want := range map[string]string{"AGENTGATE_MCP": "cannot wrap: the entry's environment chooses agentgate's own binaries", "PATH": "cannot wrap: the entry's env sets PATH"} {
		data := []byte(`{"mcpServers": {"s": {"command": "node", "args": ["srv.js"], "env": {"` + k + `": "x"}}}}`)
		out, wrapped, _, err := WrapFile("claude-code", ".mcp.json", data, WrapOptions{})
		var ce *config.Error
		if !errors.As(err, &ce) || ce.Field != "env."+k || ce.Server != "s" || !strings.Contains(ce.Msg, want) || out != nil || wrapped != nil {
			t.Errorf("env %s: %v (%q, %v), want an error saying %q", k, err, out, wrapped, want)
		}
	}
}

// TestWrapTOMLRoundTrip: Codex configs the editor once refused wrap
// and unwrap back to the bytes they were.
func TestWrapTOMLRoundTrip(t *testing.T) {
	for name, in := range map[string]string{
		// The last line holds only blanks (no newline): valid TOML, once
		// refused as an "unreadable key".
		"last line blanks": "[mcp_servers.a]\ncommand = \"npx\"\nargs = [\"-y\", \"x\"]\n  \t",
		// TOML 1.1's \xHH escape before the command is skipped whole; the
		// editor once lost the line after it (and with it the command).
		"hex escape": "[mcp_servers.a]\nenv = { X = \"\\x41\" }\ncommand = \"npx\"\nargs = [\"-y\", \"x\"]\n",
	} {
		out, names, _, err := WrapFile("codex", ".codex/config.toml", []byte(in), WrapOptions{})
		if err != nil || len(names) != 1 || names[0] != "a" {
			t.Errorf("%s: WrapFile: %v %v", name, names, err)
			continue
		}
		back, _, err := UnwrapFile("codex", ".codex/config.toml", out)
		if err != nil || string(back) != in {
			t.Errorf("%s: UnwrapFile: %q %v", name, back, err)
		}
	}
}
