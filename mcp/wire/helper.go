package wire

// helper.go: agentgate's side: find agentgate-mcp and run a capture in it.

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/agentgate/agentgate/mcp/config"
)

// HelperName is the helper's executable name.
const HelperName = "agentgate-mcp"

// HelperEnv names the environment variable that gives agentgate-mcp's
// path explicitly (for tests and packagers).
const HelperEnv = "AGENTGATE_MCP"

// DefaultMaxHelperResponse bounds a response (1 GiB): 10,000 tools of
// 4 KB are 40 MB.
const DefaultMaxHelperResponse = 1 << 30

// DefaultGreetTimeout bounds the wait for agentgate-mcp's greeting, the
// line it writes as soon as it starts: an agentgate-mcp silent that long
// is an older version (or does not start), and is killed.
const DefaultGreetTimeout = 10 * time.Second

// helperWaitDelay is how long agentgate waits, after asking agentgate-mcp
// to stop (SIGTERM), before killing it.
const helperWaitDelay = 10 * time.Second

// Sentinels a *HelperError unwraps to (besides context.Canceled when the
// caller's context ended).
var (
	ErrNoHelper      = errors.New("agentgate-mcp not found")
	ErrHelperVersion = errors.New("agentgate-mcp is another version")
	ErrHelperFailed  = errors.New("agentgate-mcp failed")
)

// HelperError is a failure of agentgate-mcp itself, as opposed to one of
// the servers it captures: no server was verified.
type HelperError struct {
	Path       string // the helper's path; "" when not found
	Msg        string // what went wrong (redacted)
	StderrTail string // the helper's last stderr lines (redacted)
	Kind       error  // ErrNoHelper, ErrHelperVersion, ErrHelperFailed or context.Canceled
	// Overloaded is set when the helper was killed by SIGKILL (as the
	// kernel's out-of-memory killer does) or answered more than agentgate
	// reads: not a broken install, but listings too large for the machine.
	Overloaded bool
}

// Error is Msg, preceded by the helper's path when it was found.
func (e *HelperError) Error() string {
	if e.Path == "" {
		return e.Msg
	}
	return HelperName + " (" + e.Path + "): " + e.Msg
}

// Unwrap returns the sentinel classifying the error.
func (e *HelperError) Unwrap() error { return e.Kind }

// FindHelper returns the path of agentgate-mcp: $AGENTGATE_MCP when set
// (it must name an executable file), else agentgate-mcp in the directory
// of the running executable (symbolic links resolved, then as invoked),
// else agentgate-mcp on $PATH (agentgate-mcp.exe on Windows). getenv reads the environment. Not finding
// it is a *HelperError unwrapping to ErrNoHelper.
func FindHelper(getenv func(string) string) (string, error) {
	if p := getenv(HelperEnv); p != "" {
		if err := isExecutable(p); err != nil {
			return "", &HelperError{Msg: fmt.Sprintf("%s=%s: %v", HelperEnv, p, err), Kind: ErrNoHelper}
		}
		return p, nil
	}
	var tried []string
	if exe, err := os.Executable(); err == nil {
		dirs := []string{filepath.Dir(exe)}
		if real, err := filepath.EvalSymlinks(exe); err == nil && filepath.Dir(real) != dirs[0] {
			dirs = append([]string{filepath.Dir(real)}, dirs...)
		}
		for _, d := range dirs {
			p := filepath.Join(d, HelperName+exeSuffix)
			if isExecutable(p) == nil {
				return p, nil
			}
			tried = append(tried, d)
		}
	}
	for _, d := range filepath.SplitList(getenv("PATH")) {
		if d == "" || !filepath.IsAbs(d) {
			continue // like exec.LookPath, never the working directory implicitly
		}
		if p := filepath.Join(d, HelperName+exeSuffix); isExecutable(p) == nil {
			return p, nil
		}
	}
	tried = append(tried, "$PATH")
	return "", &HelperError{
		Msg:  fmt.Sprintf("%s not found (looked in %s; %s is not set)", HelperName, strings.Join(tried, ", "), HelperEnv),
		Kind: ErrNoHelper}
}

// isExecutable returns nil when p is a regular file with an execute bit
// (on Windows, which has none: a regular file).
func isExecutable(p string) error {
	fi, err := os.Stat(p)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() || (exeSuffix == "" && fi.Mode().Perm()&0o111 == 0) {
		return errors.New("not an executable file")
	}
	return nil
}

// Helper runs captures in agentgate-mcp.
type Helper struct {
	Path string   // agentgate-mcp (see FindHelper)
	Dir  string   // its working directory; "" = the caller's
	Env  []string // its environment, inherited by stdio servers; nil = the caller's
	// MaxResponse bounds the response; 0 = DefaultMaxHelperResponse.
	MaxResponse int64
	// GreetTimeout bounds the wait for agentgate-mcp's greeting (see the
	// protocol); 0 = DefaultGreetTimeout.
	GreetTimeout time.Duration
	// Detach, when set, lets CaptureAll return the results as soon as it
	// has read them, while agentgate-mcp is still stopping its servers:
	// Detach receives a function that waits until agentgate-mcp has
	// exited (every server gone) and returns what went wrong after the
	// answer (a non-zero exit, bytes after the response), or nil. The
	// caller must call it before exiting. Without Detach, CaptureAll
	// itself waits, and such a failure is its error.
	Detach func(wait func() error)
}

// CaptureAll is mcp/capture's Capture run in agentgate-mcp: it starts
// h.Path, writes the request to its stdin, reads the results from its
// stdout and copies progress lines from its stderr to opts.Progress.
// Results come in the order of servers, with raw tools byte for byte and
// errors that unwrap as in the helper.
//
// The request is written to agentgate-mcp's stdin, which then stays open
// until it exits: when ctx ends, agentgate closes it (agentgate-mcp then
// stops every server it started and answers with cancelled results), and
// kills agentgate-mcp if it has not exited 10 s later. When agentgate
// itself dies, the pipe closes just the same (and on Linux agentgate-mcp
// also gets SIGTERM as its parent-death signal). Any failure of the helper itself (not found, another
// version, a crash, a response that does not decode, larger than
// MaxResponse, or a non-zero exit) is a *HelperError with the helper's
// stderr tail, and no results: no server counts as verified.
//
// A server whose definition holds a string that is not valid UTF-8 is not
// sent (JSON would alter it): its result is an *Error (ErrConnect).
func (h Helper) CaptureAll(ctx context.Context, servers []config.Resolved, opts Options) ([]Result, error) {
	redact := func(s string) string {
		for _, r := range servers {
			s = r.Redact(s)
		}
		return s
	}
	results := make([]Result, len(servers))
	var send []config.Resolved
	var index []int // send[i] is servers[index[i]]
	for i, s := range servers {
		if field := invalidUTF8(reflect.ValueOf(s), ""); field != "" {
			results[i] = Result{Server: s.Name, Err: &Error{Server: s.Name, File: s.File, Stage: StageStart, Kind: ErrConnect,
				Msg: fmt.Sprintf("%s holds bytes that are not valid UTF-8, which agentgate cannot pass to %s; use UTF-8", field, HelperName)}}
			continue
		}
		send = append(send, s)
		index = append(index, i)
	}
	if len(send) == 0 {
		return results, nil
	}
	got, err := h.run(ctx, send, opts, redact)
	if err != nil {
		return nil, err
	}
	for i, r := range got {
		results[index[i]] = r
	}
	return results, nil
}

// responseLimit is the default bound of a response: DefaultMaxHelperResponse,
// or more when the servers' listing caps add up to more, so that servers
// within their own caps can never fail the whole response.
func responseLimit(servers []config.Resolved, opts Options) int64 {
	var sum int64
	for _, s := range servers {
		n := opts.ForServer(s.Server).MaxListingBytes
		sum += n + 1<<20 // the result's own framing, error text and stderr tail
	}
	return max(DefaultMaxHelperResponse, sum)
}

func (h Helper) run(ctx context.Context, servers []config.Resolved, opts Options, redact func(string) string) ([]Result, error) {
	fail := func(kind error, tail, format string, args ...any) *HelperError {
		return &HelperError{Path: h.Path, Msg: redact(fmt.Sprintf(format, args...)), StderrTail: redact(tail), Kind: kind}
	}
	req, err := json.Marshal(NewRequest(servers, opts))
	if err != nil {
		return nil, fail(ErrHelperFailed, "", "cannot encode the request: %v", err)
	}
	limit := h.MaxResponse
	if limit <= 0 {
		limit = responseLimit(servers, opts)
	}
	runCtx, stop := context.WithCancel(ctx)
	cmd := exec.CommandContext(runCtx, h.Path)
	cmd.Dir, cmd.Env = h.Dir, h.Env
	sink := &stderrSink{progress: opts.Progress}
	if sink.progress == nil {
		sink.progress = opts.Waiting
	}
	cmd.Stderr = sink
	setHelperAttr(cmd)
	in, err := cmd.StdinPipe()
	if err != nil {
		stop()
		return nil, fail(ErrHelperFailed, "", "%v", err)
	}
	cmd.Cancel = func() error { return in.Close() } // EOF: stop (see the protocol)
	cmd.WaitDelay = helperWaitDelay
	out, err := cmd.StdoutPipe()
	if err != nil {
		stop()
		return nil, fail(ErrHelperFailed, "", "%v", err)
	}
	if err := cmd.Start(); err != nil {
		stop()
		return nil, fail(ErrHelperFailed, "", "cannot start it: %v", err)
	}
	go func() {
		// A helper that dies before reading makes this fail (EPIPE); what
		// it printed tells why. The pipe stays open (see the protocol).
		_, _ = in.Write(append(req, '\n'))
	}()
	br := bufio.NewReaderSize(out, 64<<10)
	greet := cmp.Or(h.GreetTimeout, DefaultGreetTimeout)
	// A helper that has not greeted within greet is killed before its
	// stdin closes: an older one would take that EOF as its request's end
	// and start the servers.
	timer := time.AfterFunc(greet, func() { _ = cmd.Process.Kill() })
	rerr := readGreeting(br)
	if !timer.Stop() {
		rerr = fmt.Errorf("%w: it did not say its version within %s (an agentgate-mcp older than protocol %d says nothing until its input ends), and was stopped",
			ErrHelperVersion, greet, ProtocolVersion)
	}
	var results []Result
	var rest io.Reader
	if rerr == nil {
		results, rest, rerr = readResults(br, servers, limit)
	}
	// finish reads what follows the response and waits for the helper.
	finish := func() error {
		defer stop()
		if rerr == nil {
			if n, _ := io.Copy(io.Discard, rest); n > 0 {
				rerr = errors.New("the response has bytes after its tools")
			}
		} else {
			stop() // close stdin, then kill after helperWaitDelay
			io.Copy(io.Discard, out)
		}
		werr := cmd.Wait()
		if werr != nil && cmd.ProcessState != nil && cmd.ProcessState.Success() {
			// Wait reports the cancellation even when the helper, told to
			// stop, answered and exited 0: its answer stands.
			werr = nil
		}
		tail := sink.tail()
		over := killed(werr) || errors.As(rerr, new(*overLimitError))
		var ve *VersionError
		switch {
		case errors.As(rerr, &ve):
			return fail(ErrHelperVersion, "", "%v", ve)
		case errors.Is(rerr, ErrHelperVersion):
			return fail(ErrHelperVersion, tail, "%v", rerr)
		case ctx.Err() != nil && (rerr != nil || werr != nil):
			return fail(context.Canceled, tail, "interrupted before it answered")
		case rerr != nil && werr != nil:
			return overloaded(fail(ErrHelperFailed, tail, "%v, and %s", werr, rerr), over)
		case rerr != nil:
			return overloaded(fail(ErrHelperFailed, tail, "%v", rerr), over)
		case werr != nil:
			return overloaded(fail(ErrHelperFailed, tail, "%v after answering", werr), over)
		}
		return nil
	}
	if rerr == nil && h.Detach != nil {
		h.Detach(finish)
		return results, nil
	}
	if err := finish(); err != nil {
		return nil, err
	}
	return results, nil
}

// overloaded sets e.Overloaded when over is true, and returns e.
func overloaded(e *HelperError, over bool) *HelperError {
	e.Overloaded = over
	return e
}

// killed reports whether err is the exit of a process killed by SIGKILL.
func killed(err error) bool {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return false
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL
}

// invalidUTF8 returns the path (such as "env FOO" or "args[2]") of the
// first string in v, a config.Server or part of one, that is not valid
// UTF-8, or "".
func invalidUTF8(v reflect.Value, path string) string {
	switch v.Kind() {
	case reflect.String:
		if !utf8.ValidString(v.String()) {
			return path
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if f := invalidUTF8(v.Field(i), strings.ToLower(v.Type().Field(i).Name)); f != "" {
				return f
			}
		}
	case reflect.Slice:
		for i := range v.Len() {
			if f := invalidUTF8(v.Index(i), fmt.Sprintf("%s[%d]", path, i)); f != "" {
				return f
			}
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			if !utf8.ValidString(it.Key().String()) {
				return path + " (a name)"
			}
			if f := invalidUTF8(it.Value(), path+" "+it.Key().String()); f != "" {
				return f
			}
		}
	}
	return ""
}

// stderrSink receives agentgate-mcp's stderr: progress and waiting lines
// (those starting "agentgate: ") go to progress when it is set; everything else
// is kept, the last 8 KiB or 40 lines, for the error of a failed helper.
type stderrSink struct {
	mu       sync.Mutex
	progress io.Writer
	partial  []byte
	lines    []string
	size     int
}

const (
	tailBytes = 8 << 10
	tailLines = 40
)

func (s *stderrSink) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.partial = append(s.partial, p...)
	for {
		i := bytes.IndexByte(s.partial, '\n')
		if i < 0 {
			if len(s.partial) > tailBytes {
				s.keep(string(s.partial))
				s.partial = s.partial[:0]
			}
			return len(p), nil
		}
		line := string(s.partial[:i])
		s.partial = s.partial[i+1:]
		if s.progress != nil && strings.HasPrefix(line, "agentgate: ") {
			io.WriteString(s.progress, line+"\n")
			continue
		}
		s.keep(line)
	}
}

func (s *stderrSink) keep(line string) {
	if len(line) > tailBytes {
		line = line[len(line)-tailBytes:]
	}
	s.lines = append(s.lines, line)
	s.size += len(line) + 1
	for len(s.lines) > tailLines || (s.size > tailBytes && len(s.lines) > 1) {
		s.size -= len(s.lines[0]) + 1
		s.lines = s.lines[1:]
	}
}

// tail returns the kept lines, the last one unterminated included.
func (s *stderrSink) tail() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.partial) > 0 {
		s.keep(string(s.partial))
		s.partial = nil
	}
	if len(s.lines) == 0 {
		return ""
	}
	return strings.ToValidUTF8(strings.Join(s.lines, "\n")+"\n", "\uFFFD")
}
