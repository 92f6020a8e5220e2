package wire

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentgate/agentgate/mcp/config"
)

// helperModeEnv makes this test binary act as agentgate-mcp (see
// TestMain); its value selects the behaviour.
const helperModeEnv = "WIRE_TEST_HELPER"

// TestMain runs the test binary as a helper when helperModeEnv is set:
//
//	echo     Serve with echoCapture
//	hang     Serve with a capture that reports "agentgate: NAME: hanging"
//	         on stderr, then waits for SIGINT/SIGTERM and answers cancelled
//	other    Serve as another agentgate version
//	garbage  print a line that is not a response, exit 0
//	crash    print a panic-like stderr, exit 2 without answering
//	trailing answer, then print more bytes
//	killed   read the request, then kill itself with SIGKILL
//	huge     answer one server with a 1 MiB tool
//	old      act as a protocol 2 agentgate-mcp from before the request
//	         was one line: read stdin to EOF before anything else (then
//	         create the file $WIRE_TEST_STARTED, as if starting servers)
func TestMain(m *testing.M) {
	mode := os.Getenv(helperModeEnv)
	if mode == "" {
		os.Exit(m.Run())
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	serve := func(c func(context.Context, []config.Resolved, Options) []Result) int {
		return Serve(ctx, nil, os.Stdin, os.Stdout, os.Stderr, staged(c))
	}
	switch mode {
	case "echo":
		os.Exit(serve(echoCapture))
	case "hang":
		os.Exit(serve(func(ctx context.Context, servers []config.Resolved, opts Options) []Result {
			for _, s := range servers {
				fmt.Fprintf(opts.Progress, "agentgate: %s: hanging\n", s.Name)
			}
			<-ctx.Done()
			res := make([]Result, len(servers))
			for i, s := range servers {
				res[i] = Result{Server: s.Name, Err: &Error{Server: s.Name, Stage: StageInitialize, Msg: "capture cancelled", Kind: context.Canceled}}
			}
			return res
		}))
	case "other":
		version = "v0.0.0-other"
		os.Exit(serve(echoCapture))
	case "garbage":
		fmt.Println("hello, this is not agentgate-mcp")
		os.Exit(0)
	case "crash":
		bufio.NewReader(os.Stdin).ReadString('\n')
		fmt.Fprintln(os.Stderr, "panic: boom\n\ngoroutine 1 [running]:\nmain.main()")
		os.Exit(2)
	case "killed":
		bufio.NewReader(os.Stdin).ReadString('\n')
		p, _ := os.FindProcess(os.Getpid())
		p.Kill() // SIGKILL, as the out-of-memory killer sends
		select {}
	case "trailing":
		serve(echoCapture)
		fmt.Print("extra")
		os.Exit(0)
	case "old":
		io.ReadAll(os.Stdin)
		os.WriteFile(os.Getenv("WIRE_TEST_STARTED"), nil, 0o644)
		os.Exit(0)
	case "huge":
		os.Exit(serve(func(ctx context.Context, servers []config.Resolved, opts Options) []Result {
			return []Result{{Server: servers[0].Name, Tools: []json.RawMessage{json.RawMessage(`"` + strings.Repeat("x", 1<<20) + `"`)}}}
		}))
	}
	fmt.Fprintf(os.Stderr, "unknown %s=%s\n", helperModeEnv, mode)
	os.Exit(99)
}

// echoCapture answers each server from its definition: Args are its raw
// tools, base64-encoded (the request is JSON: a raw argument would have its
// invalid UTF-8 replaced on the way); Command "fail:KIND" makes it fail with that kind (a name in
// kinds, or "plain" for an error that is not an *Error); the protocol is
// "p-" + Name, the stderr tail "tail of " + Name, the elapsed time
// len(Name) seconds. Progress lines go to opts.Progress when set.
func echoCapture(ctx context.Context, servers []config.Resolved, opts Options) []Result {
	res := make([]Result, len(servers))
	for i, s := range servers {
		if opts.Progress != nil {
			fmt.Fprintf(opts.Progress, "agentgate: %s: done\n", s.Name)
		}
		r := Result{Server: s.Name, Protocol: "p-" + s.Name, Elapsed: time.Duration(len(s.Name)) * time.Second}
		if kind, ok := strings.CutPrefix(s.Command, "fail:"); ok {
			r.StderrTail = "tail of " + s.Name
			if kind == "plain" {
				r.Err = errors.New("plain failure")
			} else {
				k, _ := kindError(kind)
				r.Err = &Error{Server: s.Name, File: s.File, Stage: StageList, Msg: "failed: " + kind, Hints: []string{"fix " + kind, "or not"}, Kind: k}
			}
		} else {
			if s.Command == "pkg" {
				r.Package = &Package{Ecosystem: "file", Name: s.Name + ".js", Integrity: "sha256-x", Registry: s.Env["REGISTRY"]}
			}
			for _, a := range s.Args {
				raw, err := base64.StdEncoding.DecodeString(a)
				if err != nil {
					panic(err)
				}
				r.Tools = append(r.Tools, json.RawMessage(raw))
			}
		}
		res[i] = r
	}
	return res
}

// rawTools are tool objects whose bytes any re-encoding would change:
// whitespace, escapes, HTML characters, U+2028, invalid UTF-8 inside a
// string, a big number, duplicate keys.
var rawTools = []string{
	`{"name":"a","description":"x"}`,
	"{ \"name\" : \"b\",\n\t\"description\": \"<b>&amp;</b> \\u003c \u2028\" }",
	"{\"name\":\"c\",\"description\":\"bad \xff\xfe utf-8\"}",
	`{"name":"d","inputSchema":{"type":"object","maximum":9007199254740993,"x":1,"x":2}}`,
	`{}`,
}

// b64 base64-encodes each string, for echoCapture.
func b64(raw ...string) []string {
	out := make([]string, len(raw))
	for i, r := range raw {
		out[i] = base64.StdEncoding.EncodeToString([]byte(r))
	}
	return out
}

// TestRoundTrip runs Serve in-process on a pipe and reads its response as
// Helper does: tools arrive byte for byte, every error kind survives as
// errors.Is, and *Error fields and the other result fields arrive intact.
func TestRoundTrip(t *testing.T) {
	servers := []config.Resolved{
		{Server: config.Server{Name: "tools", File: ".mcp.json", Args: b64(rawTools...)}},
		{Server: config.Server{Name: "none", File: ".mcp.json"}},
	}
	for _, k := range kinds {
		servers = append(servers, config.Resolved{Server: config.Server{Name: "k-" + k.name, File: ".vscode/mcp.json", Command: "fail:" + k.name}})
	}
	servers = append(servers, config.Resolved{Server: config.Server{Name: "plain", File: "x.toml", Command: "fail:plain"}})
	results := roundTrip(t, servers, Options{})
	if len(results) != len(servers) {
		t.Fatalf("%d results for %d servers", len(results), len(servers))
	}
	if got := results[0]; got.Err != nil || len(got.Tools) != len(rawTools) {
		t.Fatalf("tools: %+v", got)
	}
	for i, want := range rawTools {
		if got := string(results[0].Tools[i]); got != want {
			t.Errorf("tool %d: got %q, want %q", i, got, want)
		}
	}
	if r := results[0]; r.Server != "tools" || r.Protocol != "p-tools" || r.Elapsed != 5*time.Second {
		t.Errorf("result fields: %+v", r)
	}
	if r := results[1]; r.Err != nil || len(r.Tools) != 0 {
		t.Errorf("a server with no tools: %+v", r)
	}
	for i, k := range kinds {
		r := results[2+i]
		var e *Error
		if !errors.As(r.Err, &e) {
			t.Fatalf("%s: %T %v is not an *Error", k.name, r.Err, r.Err)
		}
		if !errors.Is(r.Err, k.err) {
			t.Errorf("%s: errors.Is(%v, %v) is false", k.name, r.Err, k.err)
		}
		for _, other := range kinds {
			if other.name != k.name && errors.Is(r.Err, other.err) {
				t.Errorf("%s: also errors.Is %v", k.name, other.err)
			}
		}
		want := Error{Server: "k-" + k.name, File: ".vscode/mcp.json", Stage: StageList, Msg: "failed: " + k.name}
		if e.Server != want.Server || e.File != want.File || e.Stage != want.Stage || e.Msg != want.Msg ||
			len(e.Hints) != 2 || e.Hints[0] != "fix "+k.name || e.Hints[1] != "or not" {
			t.Errorf("%s: got %+v, want %+v", k.name, *e, want)
		}
		if r.StderrTail != "tail of k-"+k.name || r.Tools != nil {
			t.Errorf("%s: tail %q, tools %v", k.name, r.StderrTail, r.Tools)
		}
	}
	plain := results[len(results)-1]
	var e *Error
	if !errors.As(plain.Err, &e) || e.Msg != "plain failure" || e.Kind != nil || e.Server != "plain" || e.File != "x.toml" {
		t.Errorf("a plain error: %#v", plain.Err)
	}
}

// TestHintsAcrossVersions: an error's "hints" member is optional and an
// unknown member is ignored, so a response from an agentgate-mcp built
// before hints (hint text inside "msg") or after some later optional
// member still reads, as the package doc says.
func TestHintsAcrossVersions(t *testing.T) {
	servers := []config.Resolved{{Server: config.Server{Name: "old", File: ".mcp.json"}}, {Server: config.Server{Name: "new", File: ".mcp.json"}}}
	header := fmt.Sprintf(`{"protocol":%d,"agentgate":%q,"results":[`+
		`{"elapsedNs":1,"error":{"stage":"start","msg":"command \"x\" not found\nhint: install x","kind":"connect"},"toolSizes":[]},`+
		`{"elapsedNs":2,"error":{"stage":"start","msg":"command \"y\" not found","hints":["install y"],"kind":"connect","later":{"a":1}},"toolSizes":[],"laterToo":true}]}`+"\n",
		ProtocolVersion, Version())
	results, err := readResponse(strings.NewReader(greeting()+header), servers, DefaultMaxHelperResponse)
	if err != nil {
		t.Fatal(err)
	}
	var old, cur *Error
	if !errors.As(results[0].Err, &old) || old.Msg != "command \"x\" not found\nhint: install x" || old.Hints != nil || !errors.Is(old, ErrConnect) {
		t.Errorf("older helper: %#v", results[0].Err)
	}
	if !errors.As(results[1].Err, &cur) || cur.Msg != `command "y" not found` || len(cur.Hints) != 1 || cur.Hints[0] != "install y" {
		t.Errorf("newer helper: %#v", results[1].Err)
	}
}

// TestPackageRoundTrip: a result's package arrives with every member; a
// result without one has none.
func TestPackageRoundTrip(t *testing.T) {
	servers := []config.Resolved{
		{Server: config.Server{Name: "local", Command: "pkg", Env: map[string]string{"REGISTRY": "http://127.0.0.1:1/r"}}},
		{Server: config.Server{Name: "plain", Command: "pkg"}},
		{Server: config.Server{Name: "none"}},
	}
	results := roundTrip(t, servers, Options{})
	want := Package{Ecosystem: "file", Name: "local.js", Integrity: "sha256-x", Registry: "http://127.0.0.1:1/r"}
	if p := results[0].Package; p == nil || *p != want {
		t.Errorf("local: %+v, want %+v", p, want)
	}
	if p := results[1].Package; p == nil || p.Registry != "" || p.Name != "plain.js" {
		t.Errorf("plain: %+v", p)
	}
	if results[2].Package != nil {
		t.Errorf("none: %+v", results[2].Package)
	}
}

// staged is c as a CaptureFunc whose processes are gone when it returns.
func staged(c func(context.Context, []config.Resolved, Options) []Result) CaptureFunc {
	return func(ctx context.Context, s []config.Resolved, o Options) ([]Result, func()) {
		return c(ctx, s, o), func() {}
	}
}

// roundTrip serves a request for servers in-process and reads the
// response.
func roundTrip(t *testing.T, servers []config.Resolved, opts Options) []Result {
	t.Helper()
	req, err := json.Marshal(NewRequest(servers, opts))
	if err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if code := Serve(context.Background(), nil, bytes.NewReader(req), &out, &errOut, staged(echoCapture)); code != 0 {
		t.Fatalf("Serve: exit %d, stderr %s", code, errOut.String())
	}
	if opts.Progress == nil && errOut.Len() > 0 {
		t.Errorf("stderr without progress asked for: %q", errOut.String())
	}
	results, err := readResponse(&out, servers, DefaultMaxHelperResponse)
	if err != nil {
		t.Fatalf("readResponse: %v", err)
	}
	return results
}

// TestRequestCarriesDefinitions: the resolved definitions, secrets
// included, and the options reach the helper as sent.
func TestRequestCarriesDefinitions(t *testing.T) {
	s := config.Resolved{
		Server: config.Server{Name: "n", Client: "codex", File: ".codex/config.toml", Line: 3, Transport: config.StreamableHTTP,
			FallbackSSE: true, Command: "c", Args: []string{"a"}, Env: map[string]string{"K": "v"}, EnvVars: []string{"E"},
			Cwd: "/w", URL: "https://h/mcp", Headers: map[string]string{"Authorization": "Bearer tok"},
			Timeout: 7 * time.Second, AlsoIn: []string{".mcp.json:2"}},
		Secrets: []string{"tok", "v"},
	}
	opts := Options{Timeout: 3 * time.Second, Concurrency: 2, MaxResponseBytes: 99, MaxPages: 4, Progress: io.Discard, Packages: true, Root: "/repo"}
	data, err := json.Marshal(NewRequest([]config.Resolved{s}, opts))
	if err != nil {
		t.Fatal(err)
	}
	req, err := ReadRequest(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(req.Servers[0])
	want, _ := json.Marshal(s)
	if !bytes.Equal(got, want) {
		t.Errorf("server:\n got %s\nwant %s", got, want)
	}
	o := req.CaptureOptions(os.Stderr)
	if o.Timeout != 3*time.Second || o.Concurrency != 2 || o.MaxResponseBytes != 99 || o.MaxPages != 4 || o.Progress != os.Stderr || !o.Packages || o.Root != "/repo" {
		t.Errorf("options: %+v", o)
	}
	if o := (&Request{}).CaptureOptions(os.Stderr); o.Progress != nil {
		t.Errorf("progress without asking: %+v", o)
	}
}

// pv is ProtocolVersion as the messages and errors write it.
var pv = strconv.Itoa(ProtocolVersion)

// TestReadRequestRejects: what agentgate-mcp refuses to read.
func TestReadRequestRejects(t *testing.T) {
	tests := []struct {
		name, in, want string
		version        bool
	}{
		{"empty", "", "not a JSON object", false},
		{"garbage", "hello", "not a JSON object", false},
		{"other version", `{"protocol":` + pv + `,"agentgate":"v0.0.0-other"}`, "agentgate v0.0.0-other (protocol " + pv + ") and agentgate-mcp " + Version() + " (protocol " + pv + ") are different versions", true},
		{"other protocol", `{"protocol":1,"agentgate":"` + Version() + `"}`, "(protocol 1)", true},
		{"bad servers", `{"protocol":` + pv + `,"agentgate":"` + Version() + `","servers":{}}`, "does not decode", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadRequest(strings.NewReader(tc.in))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want %q", err, tc.want)
			}
			if errors.Is(err, ErrHelperVersion) != tc.version {
				t.Errorf("errors.Is(ErrHelperVersion) = %v", !tc.version)
			}
		})
	}
}

// TestReadResponseRejects: a response that is not exactly what Serve
// writes is an error, never a partial result.
func TestReadResponseRejects(t *testing.T) {
	one := []config.Resolved{{Server: config.Server{Name: "a"}}}
	h := func(rest string) string {
		return `{"protocol":` + pv + `,"agentgate":"` + Version() + `"` + rest
	}
	tests := []struct{ name, in, want string }{
		{"empty", "", "does not start with a JSON header"},
		{"garbage", "hello\n", "does not start with a JSON header"},
		{"no newline", h(`,"results":[{"toolSizes":[]}]}`), "does not end with a newline"},
		{"count", h(`,"results":[]}`) + "\n", "0 results for 1 servers"},
		{"short", h(`,"results":[{"toolSizes":[5]}]}`) + "\n{}", "ends before its 5 bytes"},
		{"trailing", h(`,"results":[{"toolSizes":[2]}]}`) + "\n{}x", "bytes after its tools"},
		{"negative", h(`,"results":[{"toolSizes":[-1]}]}`) + "\n", "more than"},
		{"too large declared", h(`,"results":[{"toolSizes":[2000]}]}`) + "\n", "more than 1000 bytes"},
		{"too large header", h(`,"results":[{"stderrTail":"`+strings.Repeat("x", 2000)+`"}]}`) + "\n", "larger than 1000 bytes"},
		{"unknown kind", h(`,"results":[{"error":{"stage":"start","msg":"m","kind":"nope"},"toolSizes":[]}]}`) + "\n", `unknown error kind "nope"`},
		{"error and tools", h(`,"results":[{"error":{"stage":"start","msg":"m"},"toolSizes":[2]}]}`) + "\n{}", "both an error and tools"},
		{"refused", h(`,"refused":"why","results":[]}`) + "\n", "refused the request: why"},
		{"version", `{"protocol":` + pv + `,"agentgate":"v0.0.0-other","results":[]}` + "\n", "different versions"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := readResponse(strings.NewReader(greeting()+tc.in), one, 1000)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want %q", err, tc.want)
			}
			if res != nil {
				t.Errorf("results with an error: %v", res)
			}
		})
	}
}

// greeting is the first line of a response from this version.
func greeting() string {
	return fmt.Sprintf(`{"protocol":%d,"agentgate":%q}`+"\n", ProtocolVersion, Version())
}

// TestReadGreeting: the greeting is read before anything else, and a
// helper of another version, or one that does not greet, is refused
// there: an older helper's refusal (its response header) names its
// versions, so it reads as a version error too.
func TestReadGreeting(t *testing.T) {
	one := []config.Resolved{{Server: config.Server{Name: "a"}}}
	tests := []struct {
		name, in, want string
		version        bool
	}{
		{"empty", "", "does not start with a JSON header: EOF", false},
		{"garbage", "hello\n", "does not start with a JSON header", false},
		{"no versions", "{}\n", "greeting naming the helper's versions", false},
		{"no newline", strings.TrimSuffix(greeting(), "\n"), "does not start with a JSON header: EOF", false},
		{"too long", strings.Repeat(" ", 70<<10) + "{}\n", "longer than 65536 bytes", false},
		{"another version", `{"protocol":` + pv + `,"agentgate":"v0.0.0-other"}` + "\n", "agentgate-mcp v0.0.0-other (protocol " + pv + ") are different versions", true},
		{"protocol 2 refusal", `{"protocol":2,"agentgate":"` + Version() + `","refused":"x","results":[]}` + "\n", "agentgate-mcp " + Version() + " (protocol 2) are different versions", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := readResponse(strings.NewReader(tc.in), one, 1000)
			if err == nil || !strings.Contains(err.Error(), tc.want) || res != nil {
				t.Fatalf("got %v, %v; want an error containing %q", res, err, tc.want)
			}
			if errors.Is(err, ErrHelperVersion) != tc.version {
				t.Errorf("errors.Is(ErrHelperVersion) = %v, want %v", !tc.version, tc.version)
			}
		})
	}
}

// helper returns a Helper running this test binary in mode.
func helper(t *testing.T, mode string) Helper {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return Helper{Path: exe, Env: append(os.Environ(), helperModeEnv+"="+mode)}
}

// TestHelperProcess runs real helper processes.
func TestHelperProcess(t *testing.T) {
	servers := []config.Resolved{
		{Server: config.Server{Name: "a", File: ".mcp.json", Args: b64(rawTools...)}, Secrets: []string{"s3cr3t-value"}},
		{Server: config.Server{Name: "b", File: ".mcp.json", Command: "fail:timeout"}},
	}
	t.Run("echo", func(t *testing.T) {
		var progress bytes.Buffer
		res, err := helper(t, "echo").CaptureAll(context.Background(), servers, Options{Progress: &progress})
		if err != nil {
			t.Fatal(err)
		}
		for i, want := range rawTools {
			if string(res[0].Tools[i]) != want {
				t.Errorf("tool %d: %q, want %q", i, res[0].Tools[i], want)
			}
		}
		if !errors.Is(res[1].Err, context.DeadlineExceeded) || res[1].Err.Error() != `server "b" (.mcp.json): tools/list: failed: timeout` {
			t.Errorf("b: %v", res[1].Err)
		}
		if got := progress.String(); got != "agentgate: a: done\nagentgate: b: done\n" {
			t.Errorf("progress: %q", got)
		}
	})
	// Windows has no signals: a killed process exits with status 1.
	killedMsg := "signal: killed"
	if runtime.GOOS == "windows" {
		killedMsg = "exit status 1"
	}
	failures := []struct {
		mode, want, tail string
		kind             error
		overloaded       bool // HelperError.Overloaded
	}{
		{"garbage", "does not start with a JSON header", "", ErrHelperFailed, false},
		{"crash", "exit status 2, and the response does not start with a JSON header: EOF", "panic: boom\n\ngoroutine 1 [running]:\nmain.main()\n", ErrHelperFailed, false},
		{"killed", killedMsg, "", ErrHelperFailed, runtime.GOOS != "windows"},
		{"trailing", "bytes after its tools", "", ErrHelperFailed, false},
		{"other", "agentgate " + Version() + " (protocol " + pv + ") and agentgate-mcp v0.0.0-other (protocol " + pv + ") are different versions", "", ErrHelperVersion, false},
	}
	for _, tc := range failures {
		t.Run(tc.mode, func(t *testing.T) {
			h := helper(t, tc.mode)
			res, err := h.CaptureAll(context.Background(), servers, Options{})
			var he *HelperError
			if !errors.As(err, &he) || res != nil {
				t.Fatalf("got %v, %v; want a *HelperError and no results", res, err)
			}
			if !errors.Is(err, tc.kind) || !strings.Contains(he.Msg, tc.want) || he.StderrTail != tc.tail || he.Path != h.Path {
				t.Errorf("got %+v\nwant kind %v, msg containing %q, tail %q", *he, tc.kind, tc.want, tc.tail)
			}
			if he.Overloaded != tc.overloaded {
				t.Errorf("Overloaded = %v, want %v", he.Overloaded, tc.overloaded)
			}
		})
	}
	// An agentgate-mcp from before the greeting waits for EOF, which
	// agentgate never sends: without the greeting both wait for ever.
	// It is killed once GreetTimeout passes, before it reads an EOF that
	// would start its servers, and reported as another version.
	t.Run("older helper that waits for EOF", func(t *testing.T) {
		h := helper(t, "old")
		started := filepath.Join(t.TempDir(), "started")
		h.Env = append(h.Env, "WIRE_TEST_STARTED="+started)
		h.GreetTimeout = 300 * time.Millisecond
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		res, err := h.CaptureAll(ctx, servers, Options{})
		if ctx.Err() != nil {
			t.Fatal("CaptureAll waited for the older helper until the test's deadline")
		}
		if res != nil || !errors.Is(err, ErrHelperVersion) || !strings.Contains(err.Error(), "did not say its version within 300ms") {
			t.Fatalf("got %v, %v; want ErrHelperVersion", res, err)
		}
		if _, err := os.Stat(started); err == nil {
			t.Error("the older helper got its EOF and went on to capture")
		}
	})
	t.Run("too large", func(t *testing.T) {
		h := helper(t, "huge")
		h.MaxResponse = 1 << 19
		_, err := h.CaptureAll(context.Background(), servers[:1], Options{})
		var he *HelperError
		if !errors.As(err, &he) || !errors.Is(err, ErrHelperFailed) || !strings.Contains(err.Error(), "more than 524288 bytes") || !he.Overloaded {
			t.Errorf("got %#v, want an Overloaded *HelperError", err)
		}
	})
	t.Run("not executable", func(t *testing.T) {
		_, err := Helper{Path: filepath.Join(t.TempDir(), "nope")}.CaptureAll(context.Background(), servers, Options{})
		if !errors.Is(err, ErrHelperFailed) || !strings.Contains(err.Error(), "cannot start it") {
			t.Errorf("got %v", err)
		}
	})
}

// TestHelperCancel cancels the context while the helper's capture hangs:
// the helper gets SIGTERM, answers with cancelled results, and exits.
func TestHelperCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	servers := []config.Resolved{{Server: config.Server{Name: "slow", File: ".mcp.json"}}}
	progress := &cancelOnLine{line: "agentgate: slow: hanging\n", cancel: cancel}
	res, err := helper(t, "hang").CaptureAll(ctx, servers, Options{Progress: progress})
	if err != nil {
		t.Fatal(err)
	}
	var e *Error
	if !errors.As(res[0].Err, &e) || !errors.Is(e, context.Canceled) || e.Msg != "capture cancelled" || e.Stage != StageInitialize {
		t.Errorf("got %#v", res[0].Err)
	}
}

// cancelOnLine calls cancel when line has been written to it.
type cancelOnLine struct {
	buf    bytes.Buffer
	line   string
	cancel func()
}

func (c *cancelOnLine) Write(p []byte) (int, error) {
	c.buf.Write(p)
	if strings.Contains(c.buf.String(), c.line) {
		c.cancel()
	}
	return len(p), nil
}

// TestInvalidUTF8NotSent: a definition JSON would alter is refused for
// that server alone, naming the field, without starting the helper for it.
func TestInvalidUTF8NotSent(t *testing.T) {
	servers := []config.Resolved{
		{Server: config.Server{Name: "ok", File: ".mcp.json", Args: b64(`{"name":"t"}`)}},
		{Server: config.Server{Name: "bad", File: ".mcp.json", Env: map[string]string{"TOKEN": "a\xffb"}}},
	}
	res, err := helper(t, "echo").CaptureAll(context.Background(), servers, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Err != nil || string(res[0].Tools[0]) != `{"name":"t"}` {
		t.Errorf("ok: %+v", res[0])
	}
	if !errors.Is(res[1].Err, ErrConnect) || !strings.Contains(res[1].Err.Error(), "env TOKEN holds bytes that are not valid UTF-8") {
		t.Errorf("bad: %v", res[1].Err)
	}
	// Only invalid servers: the helper is not started at all.
	res, err = Helper{Path: "/nonexistent"}.CaptureAll(context.Background(), servers[1:], Options{})
	if err != nil || !errors.Is(res[0].Err, ErrConnect) {
		t.Errorf("got %v, %v", res, err)
	}
}

// TestFindHelper: $AGENTGATE_MCP, then PATH; missing is ErrNoHelper.
func TestFindHelper(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, HelperName+exeSuffix)
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(dir, "plain")
	if err := os.WriteFile(plain, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	empty := t.TempDir()
	tests := []struct {
		name     string
		env      map[string]string
		want     string
		wantErr  string
		notFound bool
	}{
		// The OS's own words follow (unix: "stat ...: no such file or
		// directory"; Windows: "GetFileAttributesEx ...").
		{"explicit", map[string]string{HelperEnv: plain + "x", "PATH": dir}, "", "AGENTGATE_MCP=" + plain + "x: ", true},
		{"explicit wins", map[string]string{HelperEnv: exe, "PATH": empty}, exe, "", false},
		{"explicit not executable", map[string]string{HelperEnv: plain, "PATH": dir}, "", "not an executable file", true},
		{"path", map[string]string{"PATH": strings.Join([]string{empty, "relative", dir}, string(os.PathListSeparator))}, exe, "", false},
		{"nowhere", map[string]string{"PATH": empty}, "", "agentgate-mcp not found (looked in ", true},
		{"relative path entries are skipped", map[string]string{"PATH": "."}, "", "not found", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "explicit not executable" && exeSuffix != "" {
				t.Skip("on Windows any regular file counts as executable (exe_windows.go)")
			}
			if tc.name == "relative path entries are skipped" {
				t.Chdir(dir)
			}
			got, err := FindHelper(func(k string) string { return tc.env[k] })
			if tc.wantErr == "" {
				if err != nil || got != tc.want {
					t.Fatalf("got %q, %v; want %q", got, err, tc.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || errors.Is(err, ErrNoHelper) != tc.notFound {
				t.Fatalf("got %q, %v; want an error containing %q", got, err, tc.wantErr)
			}
		})
	}
}

// TestStderrSink: progress lines are forwarded only when asked for; the
// rest is kept, bounded to the last 40 lines and 8 KiB.
func TestStderrSink(t *testing.T) {
	var progress bytes.Buffer
	s := &stderrSink{progress: &progress}
	for _, chunk := range []string{"agentgate: a: sta", "rting (0.0s)\nnot progress\nagentgate: a: done (0.1s)\n", "last, unterminated"} {
		s.Write([]byte(chunk))
	}
	if got := progress.String(); got != "agentgate: a: starting (0.0s)\nagentgate: a: done (0.1s)\n" {
		t.Errorf("progress %q", got)
	}
	if got := s.tail(); got != "not progress\nlast, unterminated\n" {
		t.Errorf("tail %q", got)
	}
	quiet := &stderrSink{}
	quiet.Write([]byte("agentgate: a: done\n"))
	if got := quiet.tail(); got != "agentgate: a: done\n" {
		t.Errorf("without progress, the tail keeps every line: %q", got)
	}
	many := &stderrSink{}
	for i := range 100 {
		fmt.Fprintf(many, "line %d\n", i)
	}
	if got := strings.Count(many.tail(), "\n"); got != 40 || !strings.HasPrefix(many.tail(), "line 60\n") {
		t.Errorf("40 lines kept: %d, %q", got, many.tail()[:20])
	}
	long := &stderrSink{}
	fmt.Fprintf(long, "%s\n%s", strings.Repeat("a", 6000), strings.Repeat("b", 6000))
	if got := long.tail(); got != strings.Repeat("b", 6000)+"\n" {
		t.Errorf("8 KiB kept: %d bytes", len(got))
	}
}

// readResponse reads what agentgate-mcp writes for a request for servers
// from r, the greeting and the response (reading at most limit bytes
// after the greeting), up to EOF. Tools are sub-slices of one buffer.
func readResponse(r io.Reader, servers []config.Resolved, limit int64) ([]Result, error) {
	br := bufio.NewReader(r)
	if err := readGreeting(br); err != nil {
		return nil, err
	}
	results, rest, err := readResults(br, servers, limit)
	if err != nil {
		return nil, err
	}
	var b [1]byte
	if _, err := io.ReadFull(rest, b[:]); err != io.EOF {
		return nil, errors.New("the response has bytes after its tools")
	}
	return results, nil
}
