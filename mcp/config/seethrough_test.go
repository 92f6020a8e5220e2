package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/mcp/config/syntax"
	"github.com/agentgate/agentgate/mcp/guardargs"
)

// TestSeeThrough: the wrapped forms read as the servers they wrap, in the
// flag spellings guard's own parser accepts; malformed wrappers are
// errors naming the server.
func TestSeeThrough(t *testing.T) {
	// A wrapper's env choosing agentgate's own binaries or code (issue #24
	// finding 3): refused, naming the variable; AGENTGATE_UNWRAP (wrap's
	// own) and the server's other variables are fine.
	for env, bad := range map[string]bool{"AGENTGATE_MCP": true, "agentgate_mcp": true, "AGENTGATE_TOKEN_STORE": true, "LD_PRELOAD": true,
		"DYLD_INSERT_LIBRARIES": true, "AGENTGATE_UNWRAP": false, "NODE_ENV": false, "MCP_AGENTGATE_X": false, "AGENTGATE_FAKESERVER": false} {
		_, err := seeThrough("f", fileResult{servers: []Server{{Name: "n", Line: 3, Transport: Stdio, Command: "agentgate",
			Args: []string{"guard", "--server", "n", "--", "y"}, Env: map[string]string{env: "x"}}}})
		var es Errors
		if got := errors.As(err, &es) && len(es) == 1 && es[0].Field == "env."+env && es[0].Line == 3; got != bad || !bad && err != nil {
			t.Errorf("env %s: error %v, want refused %v", env, err, bad)
		}
	}
	ok := []struct {
		args      []string
		cmd       string
		rest      []string
		url       string
		headers   map[string]string
		transport Transport
		guard     guardargs.Guard
	}{
		{args: []string{"guard", "--server", "s", "--", "npx", "-y", "pkg"}, cmd: "npx", rest: []string{"-y", "pkg"}, guard: guardargs.Guard{Server: "s"}},
		{args: []string{"guard", "-server=s", "-lockfile", "x.lock", "--on-drift=block", "--allow-unlocked", "--", "./srv", "--"}, cmd: "./srv", rest: []string{"--"},
			guard: guardargs.Guard{Server: "s", Lockfile: "x.lock", OnDrift: "block", AllowUnlocked: true}},
		{args: []string{"guard", "--server", "r", "--url", "https://h/mcp", "--header", "Authorization:Bearer ${T}", "--header", "X-A: b"},
			url: "https://h/mcp", headers: map[string]string{"Authorization": "Bearer ${T}", "X-A": "b"}, transport: StreamableHTTP, guard: guardargs.Guard{Server: "r"}},
		{args: []string{"guard", "--server", "r", "--url=https://h/sse", "--transport", "sse"}, url: "https://h/sse", transport: SSE, guard: guardargs.Guard{Server: "r"}},
	}
	for _, tt := range ok {
		res, err := seeThrough("f", fileResult{servers: []Server{{Name: "n", Transport: Stdio, Command: "agentgate", Args: tt.args}}})
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
		_, err := seeThrough("f", fileResult{servers: []Server{{Name: "n", Line: 3, Transport: Stdio, Command: "agentgate", Args: bad}}})
		var es Errors
		if !errors.As(err, &es) || len(es) != 1 || es[0].Server != "n" || es[0].Line != 3 || es[0].Field != "args" {
			t.Errorf("%q: error %v", bad, err)
		}
	}
	// Not a wrapper, or not one that runs the real agentgate (issue #24
	// finding 2): left alone, checked as the program it is.
	wrapper := []string{"guard", "--server", "n", "--", "y"}
	for _, s := range []Server{
		{Name: "n", Transport: Stdio, Command: "agentgate", Args: []string{"lock"}},
		{Name: "n", Transport: Stdio, Command: "not-agentgate", Args: wrapper},
		{Name: "n", Transport: Stdio, Command: "tools/agentgate", Args: wrapper},
		{Name: "n", Transport: Stdio, Command: "./agentgate", Args: wrapper},
		{Name: "n", Transport: Stdio, Command: "/usr/local/bin/agentgate", Args: wrapper},
		{Name: "n", Transport: Stdio, Command: `C:\bin\agentgate.exe`, Args: wrapper},
		{Name: "n", Transport: Stdio, Command: "agentgate.exe", Args: wrapper},
		{Name: "n", Transport: Stdio, Command: "AgentGate", Args: wrapper},
		{Name: "n", Transport: Stdio, Command: "agentgate", Args: wrapper, Env: map[string]string{"PATH": "tools"}},
		{Name: "n", Transport: Stdio, Command: "agentgate", Args: wrapper, Env: map[string]string{"Path": "tools"}},
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

// TestSeeThroughRemoteReading: the --url wrapper reads as guard's bridge
// connects: no --transport falls back to SSE, --transport http does not;
// a client that does not expand args (Codex: no syntax) leaves the
// expansion to guard, in guard's ${VAR} syntax.
func TestSeeThroughRemoteReading(t *testing.T) {
	for _, tc := range []struct {
		syn      syntax.Vars
		args     []string
		fallback bool
		want     syntax.Vars
	}{
		{syntax.Claude, []string{"guard", "--server", "r", "--url", "u"}, true, syntax.Claude},
		{syntax.Cursor, []string{"guard", "--server", "r", "--url", "u", "--transport", "http"}, false, syntax.Cursor},
		{syntax.None, []string{"guard", "--server", "r", "--url", "u", "--transport=http"}, false, syntax.Claude},
		{syntax.AmazonQ, []string{"guard", "--server", "r", "--url", "u"}, true, syntax.Claude},
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

// TestSeeThroughGuardFlags: the see-through reads guard's command line
// with guard's own parser (ParseGuardArgs). Each form here was read
// differently before, by a second parser: the options agentgate-mcp guard
// takes (--max-tools, --max-listing-bytes, --ignore-member), bool values
// strconv.ParseBool reads, a command without "--", "--" among the server's
// args, repeated flags (the last counts) were refused; --header with a
// command, an empty command and a header given twice were accepted.
func TestSeeThroughGuardFlags(t *testing.T) {
	ok := []struct {
		args  []string
		cmd   string
		rest  []string
		guard guardargs.Guard
	}{
		{[]string{"guard", "--server", "s", "--max-tools", "50", "--max-listing-bytes=1000", "--ignore-member", "_meta", "-ignore-member=annotations.title", "--", "npx", "pkg"},
			"npx", []string{"pkg"}, guardargs.Guard{Server: "s", MaxTools: 50, MaxListingBytes: 1000, IgnoreMembers: []string{"_meta", "annotations.title"}}},
		{[]string{"guard", "--server", "s", "--allow-unlocked=1", "--", "x"}, "x", []string{}, guardargs.Guard{Server: "s", AllowUnlocked: true}},
		{[]string{"guard", "--server", "s", "-allow-unlocked=F", "--", "x"}, "x", []string{}, guardargs.Guard{Server: "s"}},
		{[]string{"guard", "--server", "s", "--allow-unpinned-package", "--", "x"}, "x", []string{}, guardargs.Guard{Server: "s", AllowUnpinnedPackage: true}},
		// Go's flag package takes 0x10 as 16 (strconv base 0).
		{[]string{"guard", "-server=s", "-max-tools=0x10", "--", "x"}, "x", []string{}, guardargs.Guard{Server: "s", MaxTools: 16}},
		// No "--": the first argument that is not a flag is the command.
		{[]string{"guard", "--server", "s", "node", "srv.js", "--port", "1"}, "node", []string{"srv.js", "--port", "1"}, guardargs.Guard{Server: "s"}},
		// "--" among the server's args, and "-" as a command.
		{[]string{"guard", "--server", "s", "--", "node", "--", "--server", "t"}, "node", []string{"--", "--server", "t"}, guardargs.Guard{Server: "s"}},
		{[]string{"guard", "--server", "s", "-"}, "-", []string{}, guardargs.Guard{Server: "s"}},
		// Repeated: the last value counts.
		{[]string{"guard", "--server", "a", "--server", "b", "--on-drift", "warn", "--on-drift=block", "--", "x"}, "x", []string{}, guardargs.Guard{Server: "b", OnDrift: "block"}},
		// A value that looks like a flag is a value.
		{[]string{"guard", "--server", "--", "x"}, "x", []string{}, guardargs.Guard{Server: "--"}},
	}
	for _, tt := range ok {
		res, err := seeThrough("f", fileResult{servers: []Server{{Name: "n", Transport: Stdio, Command: "agentgate", Args: tt.args}}})
		if err != nil {
			t.Errorf("%q: %v", tt.args, err)
			continue
		}
		s := res.servers[0]
		if s.Command != tt.cmd || !slices.Equal(s.Args, tt.rest) || s.Transport != Stdio || s.Guard == nil || !reflect.DeepEqual(*s.Guard, tt.guard) {
			t.Errorf("%q: read as %q %q %+v", tt.args, s.Command, s.Args, s.Guard)
		}
	}
	for _, tt := range []struct {
		args []string
		msg  string
	}{
		{[]string{"guard", "--server", "s", "--header", "X: y", "--", "npx"}, "--header and --transport go with --url"},
		{[]string{"guard", "--server", "s", "--transport", "sse", "npx"}, "--header and --transport go with --url"},
		{[]string{"guard", "--server", "s", "", "x"}, "command (the first argument after the flags) is empty"},
		{[]string{"guard", "--server", "s", "--url", "http://h/", "--header", "A: 1", "--header", "a: 2"}, `header "a" is given twice`},
		{[]string{"guard", "--server", "s", "--url", "http://h/", "--header", "A B: 1"}, `"A B: 1" is not Name:value`},
		{[]string{"guard", "--server", "s", "--allow-unlocked=yes", "--", "x"}, `invalid boolean value "yes" for -allow-unlocked`},
		{[]string{"guard", "--server", "s", "--allow-unpinned-package=maybe", "--", "x"}, `invalid boolean value "maybe" for -allow-unpinned-package`},
		{[]string{"guard", "--server", "s", "--max-tools", "many", "--", "x"}, `invalid value "many" for flag -max-tools`},
		{[]string{"guard", "--server", "s", "--max-tools=-1", "--", "x"}, "--max-tools -1: want a positive number"},
		{[]string{"guard", "--server", "s", "--ignore-member", "name", "--", "x"}, `--ignore-member "name": bad member path`},
		{[]string{"guard", "---server", "s", "--", "x"}, "bad flag syntax: ---server"},
		{[]string{"guard", "--server", "s", "-h", "--", "x"}, "asks for guard's help"},
		{[]string{"guard", "--server", "s", "--on-drift", "ignore", "--", "x"}, `--on-drift "ignore": want withhold, block or warn`},
		{[]string{"guard", "--server", "s", "--", "x", "--url", "u"}, ""}, // not refused: --url is the server's arg
	} {
		_, err := seeThrough(".mcp.json", fileResult{servers: []Server{{Name: "n", Line: 3, Transport: Stdio, Command: "agentgate", Args: tt.args}}})
		if tt.msg == "" {
			if err != nil {
				t.Errorf("%q: %v", tt.args, err)
			}
			continue
		}
		var es Errors
		if !errors.As(err, &es) || len(es) != 1 || !strings.HasPrefix(es[0].Error(), `.mcp.json:3: server "n": args: agentgate guard would refuse it: `) ||
			!strings.Contains(es[0].Msg, tt.msg) || !strings.Contains(es[0].Hint, "agentgate guard -h") {
			t.Errorf("%q: error %v (hint %q), want one naming .mcp.json, server n and %q", tt.args, err, func() string {
				if len(es) > 0 {
					return es[0].Hint
				}
				return ""
			}(), tt.msg)
		}
	}
}

// TestWrapperEnvFile: the envFile a client reads for a wrapper is guard's
// environment too: one that sets AGENTGATE_MCP, a loader variable or PATH
// is refused when the server resolves (exit class 2: not Unverifiable),
// naming the file, server and variable (issue #24 findings 2 and 3).
func TestWrapperEnvFile(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ env, want string }{
		{"AGENTGATE_MCP=tools/helper\n", "AGENTGATE_MCP would apply to agentgate guard"},
		{"LD_PRELOAD=tools/x.so\n", "LD_PRELOAD would apply to agentgate guard"},
		{"PATH=tools\n", "the envFile .env sets PATH, where the client would look agentgate up"},
		{"TOKEN=abcd1234\n", ""},
	} {
		if err := os.WriteFile(filepath.Join(dir, ".env"), []byte(tc.env), 0o600); err != nil {
			t.Fatal(err)
		}
		p := &Project{Root: dir}
		s := Server{Name: "n", File: ".vscode/mcp.json", Line: 2, Transport: Stdio, Command: "node", Args: []string{"srv.js"},
			EnvFile: ".env", Guard: &guardargs.Guard{Server: "n"}}
		_, err := p.Resolve(s, func(string) (string, bool) { return "", false })
		var ce *Error
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%q: %v", tc.env, err)
		case tc.want != "" && (!errors.As(err, &ce) || ce.Unverifiable || ce.Field != "envFile" || ce.Server != "n" || !strings.Contains(ce.Msg, tc.want)):
			t.Errorf("%q: error %v, want a class-2 error on envFile saying %q", tc.env, err, tc.want)
		}
		// Not a wrapper: the variables are the server's own.
		s.Guard = nil
		if _, err := p.Resolve(s, func(string) (string, bool) { return "", false }); err != nil {
			t.Errorf("%q without a wrapper: %v", tc.env, err)
		}
	}
}
