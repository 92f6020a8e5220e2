package wire

// protocol.go: the bytes agentgate and agentgate-mcp exchange.
//
// Request (agentgate -> agentgate-mcp's stdin): one line holding a JSON
// object, a Request. agentgate then keeps the pipe open until it has read
// the response: EOF on agentgate-mcp's stdin means agentgate is gone
// (killed, or its terminal closed) or wants the capture stopped, and
// agentgate-mcp then stops every server as on SIGTERM. Server definitions
// hold resolved secrets (env values, headers): they travel only over this
// pipe, never in arguments, the environment or a file.
//
// Greeting (agentgate-mcp's stdout, first, before it reads the request):
// one line holding a JSON object with the helper's protocol and agentgate
// versions. agentgate reads it within a bound (Helper.GreetTimeout) and
// refuses a helper of another version before it waits for any answer: an
// agentgate-mcp older than the greeting (protocol 2 and before) says
// nothing until it has read the request up to EOF, which agentgate never
// sends, so without the greeting the two would wait for each other for
// ever. Such a helper is killed when the bound passes, before it could
// start a server, and reported as another version.
//
// Response (agentgate-mcp's stdout, after the greeting, then EOF): one line holding a JSON
// object (a response header: the helper's protocol and agentgate versions,
// then one result per requested server, in request order, each giving the
// byte length of every raw tool), followed by the raw bytes of every tool
// of every result, concatenated in order. Raw tools are never re-encoded,
// so they arrive byte for byte, except an element mcp/capture redacted
// (it echoed a credential of the session), which travels redacted with
// the hashes of what the server sent ("sent", "instructionsSent"). Errors travel as stage, message, hints
// and a kind naming their sentinel, so that errors.Is and *Error (with
// its Hints) survive the trip.
//
// Hints ("hints": a list of strings in an error, omitted when empty) were
// added without a new ProtocolVersion: the member is optional, and both
// sides ignore members they do not know. Released builds of different
// agentgate versions never talk (each refuses the other's Version), so a
// mix only happens between builds that both call themselves "devel"
// (checkouts): an older agentgate-mcp sends a failed stdio command's
// hint inside "msg" as a "\nhint: ..." line, which a newer agentgate
// prints as part of the message, under it, instead of as an
// "agentgate: hint: " line; a newer agentgate-mcp sends "hints", which an
// older agentgate ignores, so the message arrives without its hint. The
// same holds for the hint of a listing over a limit (which setting to
// raise), which agentgate once chose from the message's text and
// agentgate-mcp now sends in "hints": an older agentgate-mcp's arrives
// without it. Nothing fails either way, and no exit code changes.
//
// The fields "protocol" and "agentgate" of the request, the greeting and
// the header, and the greeting's place (the first line, written before
// the request is read) are frozen: whatever ProtocolVersion becomes, each
// side can always read them and refuse a peer of another version.

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/agentgate/agentgate/mcp/config"
)

// ProtocolVersion is the version of the protocol between agentgate and
// agentgate-mcp. Both also compare their agentgate versions (Version), so
// this changes when the framing changes: builds from a checkout all call
// themselves "devel", and only this number tells them apart. 4: results
// carry the hashes of redacted elements (Result.Sent), which an older
// agentgate would ignore and hash the redacted text instead; 3: the
// greeting, and `agentgate-mcp guard` given agentgate's versions
// (GuardArgs); 2: the request is one line and EOF after it cancels.
const ProtocolVersion = 4

// MaxRequestBytes bounds the request agentgate-mcp reads (server
// definitions are small).
const MaxRequestBytes = 64 << 20

// Request is what agentgate sends to agentgate-mcp.
type Request struct {
	Protocol  int               `json:"protocol"`  // ProtocolVersion
	Agentgate string            `json:"agentgate"` // Version() of the sender
	Options   RequestOptions    `json:"options"`   // how to capture
	Servers   []config.Resolved `json:"servers"`   // what to capture, secrets resolved
}

// RequestOptions are Options as they travel: Progress asks agentgate-mcp
// to write progress lines to its stderr.
type RequestOptions struct {
	Timeout          time.Duration `json:"timeout"`               // nanoseconds
	Concurrency      int           `json:"concurrency"`           // Options.Concurrency
	MaxResponseBytes int64         `json:"maxResponseBytes"`      // Options.MaxResponseBytes
	MaxPages         int           `json:"maxPages"`              // Options.MaxPages
	MaxListingBytes  int64         `json:"maxListingBytes"`       // Options.MaxListingBytes
	MaxTools         int           `json:"maxTools"`              // Options.MaxTools
	Progress         bool          `json:"progress"`              // Options.Progress was not nil
	Waiting          bool          `json:"waiting,omitempty"`     // Options.Waiting was not nil
	WaitAfter        time.Duration `json:"waitAfter,omitempty"`   // Options.WaitAfter, nanoseconds
	Interactive      bool          `json:"interactive,omitempty"` // Options.Interactive
	Packages         bool          `json:"packages,omitempty"`    // Options.Packages
	Root             string        `json:"root,omitempty"`        // Options.Root
}

// NewRequest returns the request to capture servers with opts.
func NewRequest(servers []config.Resolved, opts Options) *Request {
	return &Request{
		Protocol:  ProtocolVersion,
		Agentgate: Version(),
		Options: RequestOptions{
			Timeout: opts.Timeout, Concurrency: opts.Concurrency,
			MaxResponseBytes: opts.MaxResponseBytes, MaxPages: opts.MaxPages,
			MaxListingBytes: opts.MaxListingBytes, MaxTools: opts.MaxTools,
			Progress: opts.Progress != nil, Interactive: opts.Interactive,
			Waiting: opts.Waiting != nil, WaitAfter: opts.WaitAfter,
			Packages: opts.Packages, Root: opts.Root,
		},
		Servers: servers,
	}
}

// CaptureOptions returns the request's options, with progress and waiting
// lines going to progress when the request asks for them.
func (r *Request) CaptureOptions(progress io.Writer) Options {
	o := Options{
		Timeout: r.Options.Timeout, Concurrency: r.Options.Concurrency,
		MaxResponseBytes: r.Options.MaxResponseBytes, MaxPages: r.Options.MaxPages,
		MaxListingBytes: r.Options.MaxListingBytes, MaxTools: r.Options.MaxTools,
		Interactive: r.Options.Interactive, Packages: r.Options.Packages, Root: r.Options.Root,
		WaitAfter: r.Options.WaitAfter,
	}
	if r.Options.Progress {
		o.Progress = progress
	}
	if r.Options.Waiting {
		o.Waiting = progress
	}
	return o
}

// versions is the frozen part of a request and of a response header.
type versions struct {
	Protocol  int    `json:"protocol"`
	Agentgate string `json:"agentgate"`
}

// mismatch reports whether the peer's versions differ from this binary's.
func (v versions) mismatch() bool {
	return v.Protocol != ProtocolVersion || v.Agentgate != Version()
}

// responseHeader is the first line of a response.
type responseHeader struct {
	versions
	// Refused says why agentgate-mcp captured nothing (a version
	// mismatch); Results is then empty.
	Refused string       `json:"refused,omitempty"`
	Results []wireResult `json:"results"`
}

// wireResult is a Result without its server and tool bytes.
type wireResult struct {
	Protocol   string     `json:"protocol,omitempty"`
	Elapsed    int64      `json:"elapsedNs"`
	Error      *wireError `json:"error,omitempty"`
	StderrTail string     `json:"stderrTail,omitempty"`
	ToolSizes  []int64    `json:"toolSizes"` // byte length of each raw tool, in order
	// Byte lengths of each raw prompt, template and resource, after the
	// tools in the same order; nil (absent) when the list is nil.
	PromptSizes   []int64  `json:"promptSizes,omitempty"`
	TemplateSizes []int64  `json:"templateSizes,omitempty"`
	ResourceSizes []int64  `json:"resourceSizes,omitempty"`
	Instructions  *string  `json:"instructions,omitempty"`
	Package       *Package `json:"package,omitempty"`
	// Result.Sent and Result.InstructionsSent (protocol 4).
	Sent             []Sent `json:"sent,omitempty"`
	InstructionsSent string `json:"instructionsSent,omitempty"`
}

// lists returns the raw lists of res in the order their bytes travel, with
// the header fields that give their sizes.
func lists(res *Result, wr *wireResult) []struct {
	raws  *[]json.RawMessage
	sizes *[]int64
} {
	return []struct {
		raws  *[]json.RawMessage
		sizes *[]int64
	}{{&res.Tools, &wr.ToolSizes}, {&res.Prompts, &wr.PromptSizes}, {&res.ResourceTemplates, &wr.TemplateSizes}, {&res.Resources, &wr.ResourceSizes}}
}

// wireError is an *Error without its server and file (the requester knows
// them).
type wireError struct {
	Stage Stage    `json:"stage"`
	Msg   string   `json:"msg"`
	Hints []string `json:"hints,omitempty"` // Error.Hints (added with agentgate's typed hints; see the package doc)
	Kind  string   `json:"kind,omitempty"`  // a name in kinds; "" for none
}

// kinds names every sentinel an *Error may unwrap to, in the order they
// are tried.
var kinds = []struct {
	name string
	err  error
}{
	{"timeout", context.DeadlineExceeded},
	{"canceled", context.Canceled},
	{"connect", ErrConnect},
	{"exited", ErrExited},
	{"http", ErrHTTP},
	{"rpc", ErrRPC},
	{"too-large", ErrTooLarge},
	{"pagination", ErrPagination},
	{"protocol", ErrProtocol},
	{"auth", ErrAuth},
	{"package", ErrPackage},
}

func kindName(err error) string {
	for _, k := range kinds {
		if errors.Is(err, k.err) {
			return k.name
		}
	}
	return ""
}

func kindError(name string) (error, bool) {
	if name == "" {
		return nil, true
	}
	for _, k := range kinds {
		if k.name == name {
			return k.err, true
		}
	}
	return nil, false
}

// ReadRequest reads a request, one line, from r (at most MaxRequestBytes;
// EOF ends the line too). It reads nothing after the line's newline when r
// is a *bufio.Reader. A request from another version is a *VersionError,
// returned with no request.
func ReadRequest(r io.Reader) (*Request, error) {
	var req Request
	if err := readVersioned(r, &req, "{protocol, agentgate, options, servers}"); err != nil {
		return nil, err
	}
	return &req, nil
}

// readVersioned reads one JSON request, one line, from r (at most
// MaxRequestBytes; EOF ends the line too) into req after checking its frozen
// versions; it reads nothing after the line's newline when r is a
// *bufio.Reader. shape names the request's members for the error about a
// request that is not JSON.
func readVersioned(r io.Reader, req any, shape string) error {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReader(r)
	}
	var data []byte
	for {
		chunk, err := br.ReadSlice('\n')
		data = append(data, chunk...)
		if len(data) > MaxRequestBytes {
			return fmt.Errorf("the request is larger than %d bytes", MaxRequestBytes)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil && err != io.EOF {
			return fmt.Errorf("read the request: %v", err)
		}
		break
	}
	var v versions
	if err := json.Unmarshal(data, &v); err != nil {
		return fmt.Errorf("the request is not a JSON object %s: %v", shape, err)
	}
	if v.mismatch() {
		return &VersionError{Agentgate: v.Agentgate, Protocol: v.Protocol, Helper: Version(), HelperProtocol: ProtocolVersion}
	}
	if err := json.Unmarshal(data, req); err != nil {
		return fmt.Errorf("the request does not decode: %v", err)
	}
	return nil
}

// VersionError is a request or a response from a peer of another version.
type VersionError struct {
	Agentgate      string // agentgate's version
	Protocol       int    // agentgate's protocol version
	Helper         string // agentgate-mcp's version
	HelperProtocol int    // agentgate-mcp's protocol version
}

// Error names both versions and both protocol versions.
func (e *VersionError) Error() string {
	if e.Agentgate == "" {
		return fmt.Sprintf("an older agentgate (one that gives agentgate-mcp no version) and agentgate-mcp %s (protocol %d) are different versions",
			e.Helper, e.HelperProtocol)
	}
	return fmt.Sprintf("agentgate %s (protocol %d) and agentgate-mcp %s (protocol %d) are different versions",
		e.Agentgate, e.Protocol, e.Helper, e.HelperProtocol)
}

// Is reports ErrHelperVersion.
func (e *VersionError) Is(target error) bool { return target == ErrHelperVersion }

// WriteGreeting writes the greeting: the first line agentgate-mcp writes,
// before it reads the request.
func WriteGreeting(w io.Writer) error {
	b, err := json.Marshal(versions{ProtocolVersion, Version()})
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// maxGreetingBytes bounds the greeting line agentgate reads.
const maxGreetingBytes = 64 << 10

// readGreeting reads the greeting from br: a helper of another version is
// a *VersionError (an older helper's refusal of the request, which also
// names its versions, included); a first line that is not a JSON object
// naming versions is an error.
func readGreeting(br *bufio.Reader) error {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > maxGreetingBytes {
			return fmt.Errorf("the response does not start with a greeting: its first line is longer than %d bytes", maxGreetingBytes)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil {
			return fmt.Errorf("the response does not start with a JSON header: %v", err)
		}
		break
	}
	var v struct {
		Protocol  *int    `json:"protocol"`
		Agentgate *string `json:"agentgate"`
	}
	if err := json.Unmarshal(line, &v); err != nil {
		return fmt.Errorf("the response does not start with a JSON header: %v", err)
	}
	if v.Protocol == nil || v.Agentgate == nil {
		return errors.New("the response does not start with a greeting naming the helper's versions")
	}
	if got := (versions{*v.Protocol, *v.Agentgate}); got.mismatch() {
		return &VersionError{Agentgate: Version(), Protocol: ProtocolVersion, Helper: got.Agentgate, HelperProtocol: got.Protocol}
	}
	return nil
}

// WriteRefusal writes the response of a helper that captured nothing,
// giving its versions and why.
func WriteRefusal(w io.Writer, why string) error {
	return writeHeader(w, responseHeader{versions: versions{ProtocolVersion, Version()}, Refused: why, Results: []wireResult{}})
}

// WriteResponse writes the response for results (see the protocol above).
func WriteResponse(w io.Writer, results []Result) error {
	h := responseHeader{versions: versions{ProtocolVersion, Version()}, Results: make([]wireResult, len(results))}
	for i, res := range results {
		wr := wireResult{Protocol: res.Protocol, Elapsed: int64(res.Elapsed), StderrTail: res.StderrTail, ToolSizes: []int64{}}
		if res.Err == nil {
			wr.Instructions, wr.Package = res.Instructions, res.Package
			wr.Sent, wr.InstructionsSent = res.Sent, res.InstructionsSent
		}
		if res.Err != nil {
			we := &wireError{Msg: res.Err.Error(), Kind: kindName(res.Err)}
			var e *Error
			if errors.As(res.Err, &e) {
				we.Stage, we.Msg, we.Hints = e.Stage, e.Msg, e.Hints
			}
			wr.Error = we
		} else {
			for _, l := range lists(&res, &wr) {
				if *l.raws == nil && l.sizes != &wr.ToolSizes {
					continue
				}
				*l.sizes = []int64{}
				for _, t := range *l.raws {
					*l.sizes = append(*l.sizes, int64(len(t)))
				}
			}
		}
		h.Results[i] = wr
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	if err := writeHeader(bw, h); err != nil {
		return err
	}
	for _, res := range results {
		if res.Err != nil {
			continue
		}
		for _, l := range lists(&res, &wireResult{}) {
			for _, t := range *l.raws {
				if _, err := bw.Write(t); err != nil {
					return err
				}
			}
		}
	}
	return bw.Flush()
}

func writeHeader(w io.Writer, h responseHeader) error {
	b, err := json.Marshal(h)
	if err != nil {
		return err
	}
	if _, err := w.Write(append(b, '\n')); err != nil {
		return err
	}
	if f, ok := w.(interface{ Flush() error }); ok {
		return f.Flush()
	}
	return nil
}

// overLimitError is a response larger than agentgate reads.
type overLimitError struct{ msg string }

func (e *overLimitError) Error() string { return e.msg }

// overLimit returns an *overLimitError with the formatted message.
func overLimit(format string, args ...any) error {
	return &overLimitError{fmt.Sprintf(format, args...)}
}

// readResults reads, from r after the greeting, what agentgate-mcp writes
// for a request for servers (at most limit bytes) up to the end of the
// last tool: rest is what follows, which must be nothing (agentgate reads
// it while agentgate-mcp is still stopping its servers).
func readResults(r io.Reader, servers []config.Resolved, limit int64) (results []Result, rest io.Reader, err error) {
	lr := &io.LimitedReader{R: r, N: limit + 1}
	dec := json.NewDecoder(lr)
	var h responseHeader
	if err := dec.Decode(&h); err != nil {
		if lr.N <= 0 {
			return nil, nil, overLimit("the response is larger than %d bytes", limit)
		}
		return nil, nil, fmt.Errorf("the response does not start with a JSON header: %v", err)
	}
	if h.mismatch() {
		return nil, nil, &VersionError{Agentgate: Version(), Protocol: ProtocolVersion, Helper: h.Agentgate, HelperProtocol: h.Protocol}
	}
	if h.Refused != "" {
		return nil, nil, fmt.Errorf("agentgate-mcp refused the request: %s", h.Refused)
	}
	if len(h.Results) != len(servers) {
		return nil, nil, fmt.Errorf("the response has %d results for %d servers", len(h.Results), len(servers))
	}
	rest = io.MultiReader(dec.Buffered(), lr)
	var nl [1]byte
	if _, err := io.ReadFull(rest, nl[:]); err != nil || nl[0] != '\n' {
		return nil, nil, errors.New("the response header does not end with a newline")
	}
	var total int64
	for i, wr := range h.Results {
		if wr.Error != nil && len(wr.ToolSizes)+len(wr.PromptSizes)+len(wr.TemplateSizes)+len(wr.ResourceSizes) > 0 {
			return nil, nil, fmt.Errorf("result %d has both an error and tools", i)
		}
		for _, l := range lists(&Result{}, &wr) {
			for _, n := range *l.sizes {
				if n < 0 || n > limit-total {
					return nil, nil, overLimit("the response declares more than %d bytes of tools", limit)
				}
				total += n
			}
		}
	}
	blob := make([]byte, total)
	if _, err := io.ReadFull(rest, blob); err != nil {
		if lr.N <= 0 {
			return nil, nil, overLimit("the response is larger than %d bytes", limit)
		}
		return nil, nil, fmt.Errorf("the response ends before its %d bytes of tools: %v", total, err)
	}
	results = make([]Result, len(servers))
	var off int64
	for i, wr := range h.Results {
		s := servers[i]
		res := Result{Server: s.Name, Protocol: wr.Protocol, Elapsed: time.Duration(wr.Elapsed), StderrTail: wr.StderrTail}
		if wr.Error != nil {
			kind, ok := kindError(wr.Error.Kind)
			if !ok {
				return nil, nil, fmt.Errorf("result %d: unknown error kind %q", i, wr.Error.Kind)
			}
			res.Err = &Error{Server: s.Name, File: s.File, Stage: wr.Error.Stage, Msg: wr.Error.Msg, Hints: wr.Error.Hints, Kind: kind}
		} else {
			res.Instructions, res.Package = wr.Instructions, wr.Package
			res.Sent, res.InstructionsSent = wr.Sent, wr.InstructionsSent
			for _, l := range lists(&res, &wr) {
				if *l.sizes == nil {
					continue
				}
				*l.raws = make([]json.RawMessage, len(*l.sizes))
				for j, n := range *l.sizes {
					(*l.raws)[j] = blob[off : off+n : off+n]
					off += n
				}
			}
		}
		results[i] = res
	}
	return results, rest, nil
}
