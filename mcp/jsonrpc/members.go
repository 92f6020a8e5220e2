package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ErrAmbiguous starts the text of the error for a message that
// CheckMembersOf refuses.
var ErrAmbiguous = errors.New("ambiguous JSON-RPC message")

// maxMessageDepth is the deepest nesting CheckMembersOf follows; deeper
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

// CheckMembersOf reports an error (wrapping ErrAmbiguous) when the
// JSON-RPC message msg (one message, or a batch array of them) repeats a
// member name in any object, or breaks the case rule above in the objects
// it applies to: where a Go client and a JavaScript or Python client
// would read different members. It is capture's rule for a server's
// reply, which guard applies to the messages of both sides. Names are
// compared after decoding escapes ("tool\u0073" is "tools"). noun names
// the message in errors ("reply", "request"). msg should be valid JSON
// (json.Valid): CheckMembersOf does not report syntax errors (the JSON
// decoder does), and never panics or loops on invalid input.
func CheckMembersOf(msg []byte, noun string) error {
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
				return fmt.Errorf("%w: nested deeper than %d levels", ErrAmbiguous, maxMessageDepth)
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
				return fmt.Errorf("%w: %s names the member %q twice (clients disagree on which copy counts)", ErrAmbiguous, where, name)
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
			return fmt.Errorf("%w: %s names the member %q twice (clients disagree on which copy counts)", ErrAmbiguous, where, name)
		}
		f.set[string(name)] = true
	}
	if f.path == pathOther {
		return nil
	}
	k := foldKey(string(name))
	if other, ok := f.folded[k]; ok {
		return fmt.Errorf("%w: %s has both %q and %q (names that differ only in case: Go reads one, JavaScript and Python the other)", ErrAmbiguous, where, other, name)
	}
	if known, ok := readNames[k]; ok && known != string(name) {
		return fmt.Errorf("%w: %s has %q, a case variant of %q (Go would read it as %q, JavaScript and Python would not)", ErrAmbiguous, where, name, known, known)
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
