package jsonrpc

import (
	"encoding/json"
	"strings"
)

// ListResult splits a list result (one JSON value, as mcp-go received it,
// already checked by CheckMembersOf) into the raw bytes of each element of
// its key member ("tools", "prompts", ...), in order, and the raw value of
// its "nextCursor" member (nil when absent). Members are matched by exact
// name, after decoding escapes. ok is false when the result is not an
// object or its key member is missing or not an array. The elements are
// sub-slices of result, byte for byte. It is the fast form of decoding
// into map[string]json.RawMessage and then the key member into
// []json.RawMessage (FuzzListResult holds it to that).
func ListResult(result []byte, key string) (tools []json.RawMessage, cursor json.RawMessage, ok bool) {
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
		name, vstart, ok := memberName(result, i)
		if !ok {
			return nil, nil, false
		}
		i = vstart
		var vend int
		if name == key {
			if tools, vend, ok = arrayAt(result, i); !ok {
				return nil, nil, false
			}
			haveTools = true
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
		tools = []json.RawMessage{}
	}
	return tools, cursor, true
}

// memberName reads the member name whose quote is at b[i] and the colon
// after it: the name, decoded, and the index of the member's value (past
// blanks); ok is false when b holds no name and colon there.
func memberName(b []byte, i int) (name string, value int, ok bool) {
	if i >= len(b) || b[i] != '"' {
		return "", 0, false
	}
	end := stringEnd(b, i)
	if end < 0 {
		return "", 0, false
	}
	name = string(b[i+1 : end-1])
	if strings.IndexByte(name, '\\') >= 0 {
		if json.Unmarshal(b[i:end], &name) != nil {
			return "", 0, false
		}
	}
	i = skipSpace(b, end)
	if i >= len(b) || b[i] != ':' {
		return "", 0, false
	}
	return name, skipSpace(b, i+1), true
}

// arrayAt splits the JSON array at b[i] (splitArray) and returns the
// index just past it; ok is false when there is no whole array there.
func arrayAt(b []byte, i int) (elems []json.RawMessage, end int, ok bool) {
	if i >= len(b) || b[i] != '[' {
		return nil, 0, false
	}
	elems, n := splitArray(b[i:])
	if n < 0 {
		return nil, 0, false
	}
	return elems, i + n, true
}

// splitArray returns the raw elements of the JSON array at the start of
// b and the index just past it (-1 when it does not end).
func splitArray(b []byte) ([]json.RawMessage, int) {
	var out []json.RawMessage
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
