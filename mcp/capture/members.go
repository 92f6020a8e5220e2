package capture

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"
)

// errAmbiguous starts the text of an error for a message that names a
// member twice; the capture fails with ErrProtocol.
var errAmbiguous = errors.New("ambiguous JSON-RPC message")

// maxMessageDepth is the deepest nesting checkMembers follows; deeper
// messages are refused (encoding/json refuses them too).
const maxMessageDepth = 10000

// The objects of a JSON-RPC message whose members mcp-go or capture read
// with encoding/json, which matches member names without regard to case:
// the envelope, its result, error and params, and the initialize result's
// serverInfo and capabilities. In these, two members whose names differ
// only in case ("tools" and "Tools", "result" and "RESULT", also under
// Unicode folding: "s" and the long s "ſ") are refused, and so is a
// member that is a case variant of a member agentgate or mcp-go reads
// (readNames) without being it ("Result" alone): encoding/json and a
// JavaScript or Python client would read different copies, or one would
// read a member the other does not see. Everywhere else only exact repeats
// are refused: tool definitions are read with exact names, and "userId"
// and "userID" are two honest schema properties.
const (
	pathOther = iota
	pathEnvelope
	pathResult
	pathError
	pathParams
	pathServerInfo
	pathCapabilities
)

// readNames are the members read in the folded objects, by fold key.
var readNames = func() map[string]string {
	m := map[string]string{}
	for _, n := range []string{"jsonrpc", "id", "result", "error", "method", "params", "code", "message", "data",
		"tools", "nextCursor", "protocolVersion", "capabilities", "serverInfo", "instructions", "name", "version", "_meta"} {
		m[foldKey(n)] = n
	}
	return m
}()

// checkMembers reports an error when the JSON-RPC message msg (one
// message, or a batch array of them) repeats a member name in any object,
// or breaks the case rule above in the objects it applies to. Names are
// compared after decoding escapes ("tool\u0073" is "tools"). msg should be
// valid JSON: checkMembers does not report syntax errors (the JSON decoder
// does), and never panics or loops on invalid input.
func checkMembers(msg []byte) error { return checkMembersOf(msg, "reply") }

// checkMembersOf is checkMembers with noun naming the message in errors
// ("the reply", "the request's \"params\" object").
func checkMembersOf(msg []byte, noun string) error {
	c := memberChecker{b: msg, noun: noun}
	return c.run()
}

type memberFrame struct {
	obj     bool
	wantKey bool
	path    int      // pathOther, pathEnvelope, ...
	key     []byte   // the last member name read (objects), decoded
	names   [][]byte // member names so far, decoded
	set     map[string]bool
	folded  map[string]string // fold key -> name, in folded objects
}

type memberChecker struct {
	b     []byte
	noun  string // what errors call the message: "reply", "request"
	stack []memberFrame
	depth int
}

func (c *memberChecker) run() error {
	b := c.b
	for i := 0; i < len(b); {
		switch ch := b[i]; ch {
		case '{', '[':
			if c.depth >= maxMessageDepth {
				return fmt.Errorf("%w: nested deeper than %d levels", errAmbiguous, maxMessageDepth)
			}
			path := c.childPath()
			if c.depth == len(c.stack) {
				c.stack = append(c.stack, memberFrame{})
			}
			f := &c.stack[c.depth]
			c.depth++
			f.obj, f.wantKey, f.path = ch == '{', ch == '{', path
			f.key, f.names, f.set, f.folded = nil, f.names[:0], nil, nil
			i++
		case '}', ']':
			if c.depth == 0 {
				return nil
			}
			c.depth--
			i++
		case ',':
			if c.depth > 0 && c.stack[c.depth-1].obj {
				c.stack[c.depth-1].wantKey = true
			}
			i++
		case ':':
			if c.depth > 0 {
				c.stack[c.depth-1].wantKey = false
			}
			i++
		case '"':
			end := stringEnd(b, i)
			if end < 0 {
				return nil
			}
			if c.depth > 0 && c.stack[c.depth-1].obj && c.stack[c.depth-1].wantKey {
				if err := c.member(&c.stack[c.depth-1], b[i:end]); err != nil {
					return err
				}
			}
			i = end
		default:
			i++
		}
	}
	return nil
}

// childPath is the path of a value opened at the current position.
func (c *memberChecker) childPath() int {
	if c.depth == 0 {
		return pathEnvelope
	}
	f := &c.stack[c.depth-1]
	if !f.obj {
		if c.depth == 1 {
			return pathEnvelope // an element of a batch
		}
		return pathOther
	}
	k := string(f.key)
	switch f.path {
	case pathEnvelope:
		switch {
		case strings.EqualFold(k, "result"):
			return pathResult
		case strings.EqualFold(k, "error"):
			return pathError
		case strings.EqualFold(k, "params"):
			return pathParams
		}
	case pathResult:
		switch {
		case strings.EqualFold(k, "serverInfo"):
			return pathServerInfo
		case strings.EqualFold(k, "capabilities"):
			return pathCapabilities
		}
	}
	return pathOther
}

var pathNames = [...]string{pathOther: "", pathEnvelope: "", pathResult: "result", pathError: "error", pathParams: "params",
	pathServerInfo: "result.serverInfo", pathCapabilities: "result.capabilities"}

// member records the member name whose JSON string (quotes included) is
// quoted in the object f.
func (c *memberChecker) member(f *memberFrame, quoted []byte) error {
	name := quoted[1 : len(quoted)-1]
	if bytes.IndexByte(name, '\\') >= 0 {
		var s string
		if err := json.Unmarshal(quoted, &s); err != nil {
			return nil // not JSON: the decoder reports it
		}
		name = []byte(s)
	}
	f.key = name
	where := "the " + c.noun
	if n := pathNames[f.path]; n != "" {
		where = fmt.Sprintf("the %s's %q object", c.noun, n)
	} else if f.path == pathOther {
		where = "an object in the " + c.noun
	}
	if f.set == nil {
		for _, n := range f.names {
			if bytes.Equal(n, name) {
				return fmt.Errorf("%w: %s names the member %q twice (clients disagree on which copy counts)", errAmbiguous, where, name)
			}
		}
		f.names = append(f.names, name)
		if len(f.names) > 32 {
			f.set = make(map[string]bool, 64)
			for _, n := range f.names {
				f.set[string(n)] = true
			}
		}
	} else {
		if f.set[string(name)] {
			return fmt.Errorf("%w: %s names the member %q twice (clients disagree on which copy counts)", errAmbiguous, where, name)
		}
		f.set[string(name)] = true
	}
	if f.path == pathOther {
		return nil
	}
	k := foldKey(string(name))
	if other, ok := f.folded[k]; ok {
		return fmt.Errorf("%w: %s has both %q and %q (names that differ only in case: Go reads one, JavaScript and Python the other)", errAmbiguous, where, other, name)
	}
	if known, ok := readNames[k]; ok && known != string(name) {
		return fmt.Errorf("%w: %s has %q, a case variant of %q (Go would read it as %q, JavaScript and Python would not)", errAmbiguous, where, name, known, known)
	}
	if f.folded == nil {
		f.folded = map[string]string{}
	}
	f.folded[k] = string(name)
	return nil
}

// stringEnd returns the index just past the JSON string starting at b[i]
// (a quote), or -1 when it does not end.
func stringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

// foldKey maps s to one representative of its case-folding class: each
// rune is replaced by the smallest rune of its unicode.SimpleFold orbit,
// so two names that encoding/json would match (it folds the same way)
// get the same key.
func foldKey(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if r == utf8.RuneError {
			b.WriteRune(r)
			continue
		}
		min := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			if f < min {
				min = f
			}
		}
		b.WriteRune(min)
	}
	return b.String()
}

// sseChecker passes an event stream through unchanged, and checks the
// data of every event with checkMembers before the blank line that ends
// the event reaches the reader: an ambiguous event (or one whose data
// lines together exceed max bytes) makes Read fail, after calling onBad,
// so that mcp-go never dispatches it.
type sseChecker struct {
	rc      io.ReadCloser
	max     int64
	onBad   func(error)
	onEvent func([]byte) // each accepted event's data (a copy); nil: none
	// exchange, when not nil, checks each event's JSON data
	// (Exchange.Received) after checkMembers.
	exchange *Exchange
	line     []byte // the current line so far
	data     []byte // the current event's data so far
	err      error
}

func (s *sseChecker) Read(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.rc.Read(p)
	start := 0
	for i := 0; i < n; i++ {
		if p[i] != '\n' {
			continue
		}
		s.line = append(s.line, p[start:i]...)
		start = i + 1
		if e := s.endLine(); e != nil {
			s.err = e
			s.onBad(e)
			return 0, e
		}
		s.line = s.line[:0]
	}
	s.line = append(s.line, p[start:n]...)
	if int64(len(s.line)) > s.max {
		s.line = s.line[:0] // limitedBody bounds lines; this only bounds memory
	}
	if err == io.EOF && len(s.data) > 0 {
		// A reader dispatches an event the stream ends in.
		if e := s.dispatch(s.data); e != nil {
			s.err = e
			s.onBad(e)
			return 0, e
		}
	}
	return n, err
}

func (s *sseChecker) endLine() error {
	line := bytes.TrimSuffix(s.line, []byte("\r"))
	if len(line) == 0 {
		data := s.data
		s.data = s.data[:0]
		if len(data) > 0 {
			return s.dispatch(data)
		}
		return nil
	}
	v, ok := bytes.CutPrefix(line, []byte("data:"))
	if !ok {
		return nil
	}
	v = bytes.TrimPrefix(v, []byte(" "))
	if len(s.data) > 0 {
		s.data = append(s.data, '\n')
	}
	s.data = append(s.data, v...)
	if int64(len(s.data)) > s.max {
		return errBodyTooLarge
	}
	return nil
}

// dispatch checks one event's data and, when accepted, hands a copy to
// onEvent.
func (s *sseChecker) dispatch(data []byte) error {
	if err := checkMembers(data); err != nil {
		return err
	}
	if s.exchange != nil && json.Valid(data) {
		if err := s.exchange.Received(data); err != nil {
			return err
		}
	}
	if s.onEvent != nil {
		s.onEvent(bytes.Clone(data))
	}
	return nil
}

func (s *sseChecker) Close() error { return s.rc.Close() }

// checkedBody reads a whole (non-stream) body of at most max bytes, and
// checks it with checkMembers and then, when x is not nil, with
// x.Received, when it is JSON.
func checkedBody(rc io.ReadCloser, x *Exchange) (io.ReadCloser, error) {
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		return nil, err
	}
	if json.Valid(b) {
		if err := checkMembers(b); err != nil {
			return nil, err
		}
		if x != nil {
			if err := x.Received(b); err != nil {
				return nil, err
			}
		}
	}
	return io.NopCloser(bytes.NewReader(b)), nil
}

// listResult splits a list result (one JSON value, as mcp-go received it,
// already checked by checkMembers) into the raw bytes of each element of
// its key member ("tools", "prompts", ...), in order, and the raw value of
// its "nextCursor" member (nil when absent). Members are matched by exact
// name, after decoding escapes. ok is false when the result is not an
// object or its key member is missing or not an array. The elements are
// sub-slices of result, byte for byte. It is the fast form of decoding
// into map[string]json.RawMessage and then the key member into
// []json.RawMessage (FuzzListResult holds it to that).
func listResult(result []byte, key string) (tools []jsonRaw, cursor jsonRaw, ok bool) {
	i := skipSpace(result, 0)
	if i >= len(result) || result[i] != '{' {
		return nil, nil, false
	}
	i++
	haveTools := false
	for {
		i = skipSpace(result, i)
		if i < len(result) && result[i] == '}' {
			break
		}
		if i >= len(result) || result[i] != '"' {
			return nil, nil, false
		}
		end := stringEnd(result, i)
		if end < 0 {
			return nil, nil, false
		}
		name := string(result[i+1 : end-1])
		if strings.IndexByte(name, '\\') >= 0 {
			if json.Unmarshal(result[i:end], &name) != nil {
				return nil, nil, false
			}
		}
		i = skipSpace(result, end)
		if i >= len(result) || result[i] != ':' {
			return nil, nil, false
		}
		i = skipSpace(result, i+1)
		var vend int
		if name == key {
			if i >= len(result) || result[i] != '[' {
				return nil, nil, false
			}
			var n int
			if tools, n = splitArray(result[i:]); n < 0 {
				return nil, nil, false
			}
			vend, haveTools = i+n, true
		} else if vend = valueEnd(result, i); vend < 0 {
			return nil, nil, false
		}
		if name == "nextCursor" {
			cursor = result[i:vend:vend]
		}
		i = skipSpace(result, vend)
		if i < len(result) && result[i] == ',' {
			i++
		}
	}
	if !haveTools {
		return nil, nil, false
	}
	if tools == nil {
		tools = []jsonRaw{}
	}
	return tools, cursor, true
}

// splitArray returns the raw elements of the JSON array at the start of
// b and the index just past it (-1 when it does not end).
func splitArray(b []byte) ([]jsonRaw, int) {
	var out []jsonRaw
	i := skipSpace(b, 1)
	if i < len(b) && b[i] == ']' {
		return nil, i + 1
	}
	for i < len(b) {
		end := valueEnd(b, i)
		if end < 0 {
			return nil, -1
		}
		out = append(out, b[i:end:end])
		i = skipSpace(b, end)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
			continue
		}
		if i < len(b) && b[i] == ']' {
			return out, i + 1
		}
		return nil, -1
	}
	return nil, -1
}

// valueEnd returns the index just past the JSON value starting at b[i],
// or -1 when it does not end.
func valueEnd(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				e := stringEnd(b, j)
				if e < 0 {
					return -1
				}
				j = e - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	default: // number, true, false, null
		j := i
		for j < len(b) && !strings.ContainsRune(",}] \t\r\n", rune(b[j])) {
			j++
		}
		if j == i {
			return -1
		}
		return j
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}
