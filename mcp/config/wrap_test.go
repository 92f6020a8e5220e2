package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
)

// TestSeeThrough: the wrapped forms read as the servers they wrap, in the
// flag spellings guard's own parser accepts; malformed wrappers are
// errors naming the server.
func TestSeeThrough(t *testing.T) {
	ok := []struct {
		args      []string
		cmd       string
		rest      []string
		url       string
		headers   map[string]string
		transport Transport
		guard     Guard
	}{
		{args: []string{"guard", "--server", "s", "--", "npx", "-y", "pkg"}, cmd: "npx", rest: []string{"-y", "pkg"}, guard: Guard{Server: "s"}},
		{args: []string{"guard", "-server=s", "-lockfile", "x.lock", "--on-drift=block", "--allow-unlocked", "--", "./srv", "--"}, cmd: "./srv", rest: []string{"--"},
			guard: Guard{Server: "s", Lockfile: "x.lock", OnDrift: "block", AllowUnlocked: true}},
		{args: []string{"guard", "--server", "r", "--url", "https://h/mcp", "--header", "Authorization:Bearer ${T}", "--header", "X-A: b"},
			url: "https://h/mcp", headers: map[string]string{"Authorization": "Bearer ${T}", "X-A": "b"}, transport: StreamableHTTP, guard: Guard{Server: "r"}},
		{args: []string{"guard", "--server", "r", "--url=https://h/sse", "--transport", "sse"}, url: "https://h/sse", transport: SSE, guard: Guard{Server: "r"}},
	}
	for _, tt := range ok {
		res, err := seeThrough("f", fileResult{servers: []Server{{Name: "n", Transport: Stdio, Command: "/usr/local/bin/agentgate", Args: tt.args}}})
		if err != nil {
			t.Errorf("%q: %v", tt.args, err)
			continue
		}
		s := res.servers[0]
		want := tt.transport
		if want == "" {
			want = Stdio
		}
		if s.Command != tt.cmd || !slices.Equal(s.Args, tt.rest) || s.URL != tt.url || s.Transport != want || s.Guard == nil || !reflect.DeepEqual(*s.Guard, tt.guard) ||
			len(s.Headers) != len(tt.headers) {
			t.Errorf("%q: read as %+v", tt.args, s)
		}
		for k, v := range tt.headers {
			if s.Headers[k] != v {
				t.Errorf("%q: header %s = %q, want %q", tt.args, k, s.Headers[k], v)
			}
		}
	}
	for _, bad := range [][]string{
		{"guard", "--", "npx"},
		{"guard", "--server", "s"},
		{"guard", "--server", "s", "--"},
		{"guard", "--server", "s", "--bogus", "1", "--", "npx"},
		{"guard", "--server", "s", "--url", "u", "--", "npx"},
		{"guard", "--server", "s", "--url", "u", "--header", "nocolon"},
		{"guard", "--server", "s", "--url", "u", "--transport", "ws"},
		{"guard", "--server"},
	} {
		_, err := seeThrough("f", fileResult{servers: []Server{{Name: "n", Line: 3, Transport: Stdio, Command: "agentgate.exe", Args: bad}}})
		var es Errors
		if !errors.As(err, &es) || len(es) != 1 || es[0].Server != "n" || es[0].Line != 3 || es[0].Field != "args" {
			t.Errorf("%q: error %v", bad, err)
		}
	}
	// Not a wrapper: left alone.
	for _, s := range []Server{
		{Name: "n", Transport: Stdio, Command: "agentgate", Args: []string{"lock"}},
		{Name: "n", Transport: Stdio, Command: "not-agentgate", Args: []string{"guard", "--server", "x", "--", "y"}},
	} {
		res, err := seeThrough("f", fileResult{servers: []Server{s}})
		if err != nil || res.servers[0].Guard != nil || res.servers[0].Command != s.Command {
			t.Errorf("%+v: %v %+v", s, err, res.servers[0])
		}
	}
}

// TestSeeThroughMerges: a server wrapped in one file and not in another is
// one server (the same definition), locked once.
func TestSeeThroughMerges(t *testing.T) {
	root := t.TempDir()
	write := func(name, data string) {
		p := filepath.Join(root, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".mcp.json", `{"mcpServers": {"mem": {"command": "agentgate", "args": ["guard", "--server", "mem", "--", "npx", "-y", "pkg"]}}}`)
	write(".cursor/mcp.json", `{"mcpServers": {"mem": {"command": "npx", "args": ["-y", "pkg"]}}}`)
	p, err := Load(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Servers) != 1 || p.Servers[0].Command != "npx" || len(p.Servers[0].AlsoIn) != 1 {
		t.Fatalf("servers: %+v", p.Servers)
	}
}

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

// TestSeeThroughRemoteReading: the --url wrapper reads as guard's bridge
// connects: no --transport falls back to SSE, --transport http does not;
// a client that does not expand args (Codex: no syntax) leaves the
// expansion to guard, in guard's ${VAR} syntax.
func TestSeeThroughRemoteReading(t *testing.T) {
	for _, tc := range []struct {
		syn      VarSyntax
		args     []string
		fallback bool
		want     VarSyntax
	}{
		{SyntaxClaude, []string{"guard", "--server", "r", "--url", "u"}, true, SyntaxClaude},
		{SyntaxCursor, []string{"guard", "--server", "r", "--url", "u", "--transport", "http"}, false, SyntaxCursor},
		{SyntaxNone, []string{"guard", "--server", "r", "--url", "u", "--transport=http"}, false, SyntaxClaude},
		{SyntaxAmazonQ, []string{"guard", "--server", "r", "--url", "u"}, true, SyntaxClaude},
	} {
		res, err := seeThrough("f", fileResult{servers: []Server{{Name: "r", Transport: Stdio, Command: "agentgate", Args: tc.args, Syntax: tc.syn,
			Env: map[string]string{"AGENTGATE_UNWRAP": "x"}, EnvVars: []string{"T"}}}})
		if err != nil {
			t.Fatal(err)
		}
		s := res.servers[0]
		if s.FallbackSSE != tc.fallback || s.Syntax != tc.want || s.Env != nil || s.EnvVars != nil || s.Transport != StreamableHTTP {
			t.Errorf("%s %q: read as %+v", tc.syn, tc.args, s)
		}
	}
}
