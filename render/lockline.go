package render

import (
	"bytes"
	"encoding/json"
)

// LockfileLine returns the 1-based line in lockfile of the member
// `"name": "<tool>"` of the tool named tool under servers.<server>.tools,
// or of the key of servers.<server> when tool is "", for annotations such
// as GitHub's ::error file=agentgate.lock,line=N::. It returns 0 when there
// is no such server or tool, or lockfile is not valid JSON. Keys and names
// are compared after JSON unescaping, so any layout works, not only the
// canonical one.
func LockfileLine(lockfile []byte, server, tool string) int {
	dec := json.NewDecoder(bytes.NewReader(lockfile))
	line := func() int { return 1 + bytes.Count(lockfile[:dec.InputOffset()], []byte("\n")) }
	if found, _ := findMember(dec, "servers"); !found {
		return 0
	}
	if found, _ := findMember(dec, server); !found {
		return 0
	}
	if tool == "" {
		return line() // the server key's line
	}
	if found, _ := findMember(dec, "tools"); !found {
		return 0
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('[') {
		return 0
	}
	for dec.More() {
		found, ok := findMember(dec, "name")
		if !ok {
			return 0
		}
		if !found {
			continue // a tool without a name, consumed whole
		}
		n := line() // the key's line
		v, err := dec.Token()
		if err != nil {
			return 0
		}
		if s, ok := v.(string); ok && s == tool {
			return n
		}
		for dec.More() { // the rest of this tool
			if _, ok := key(dec); !ok || !skip(dec) {
				return 0
			}
		}
		if _, err := dec.Token(); err != nil { // '}'
			return 0
		}
	}
	return 0
}

// findMember enters the object that is dec's next value and reads up to and
// including the key name (found). When the object has no such member it
// consumes the whole object. ok is false on a decoding error or when the
// value is not an object (json.Decoder's Token errors are not sticky, so
// callers must stop then).
func findMember(dec *json.Decoder, name string) (found, ok bool) {
	if !enterObject(dec) {
		return false, false
	}
	for dec.More() {
		k, ok := key(dec)
		if !ok {
			return false, false
		}
		if k == name {
			return true, true
		}
		if !skip(dec) {
			return false, false
		}
	}
	_, err := dec.Token() // '}'
	return false, err == nil
}

func enterObject(dec *json.Decoder) bool {
	t, err := dec.Token()
	return err == nil && t == json.Delim('{')
}

func key(dec *json.Decoder) (string, bool) {
	t, err := dec.Token()
	s, ok := t.(string)
	return s, err == nil && ok
}

// skip consumes one value.
func skip(dec *json.Decoder) bool {
	var v json.RawMessage
	return dec.Decode(&v) == nil
}

// LockfileMemberLine returns the 1-based line in lockfile of the key of
// the member servers.<server>.<member> (e.g. "package"), or 0 when there
// is none or lockfile is not valid JSON.
func LockfileMemberLine(lockfile []byte, server, member string) int {
	dec := json.NewDecoder(bytes.NewReader(lockfile))
	if found, _ := findMember(dec, "servers"); !found {
		return 0
	}
	if found, _ := findMember(dec, server); !found {
		return 0
	}
	if found, _ := findMember(dec, member); !found {
		return 0
	}
	return 1 + bytes.Count(lockfile[:dec.InputOffset()], []byte("\n"))
}
