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
	if !enterObject(dec) {
		return 0
	}
	for dec.More() {
		k, ok := key(dec)
		if !ok {
			return 0
		}
		if k != "servers" {
			if !skip(dec) {
				return 0
			}
			continue
		}
		if !enterObject(dec) {
			return 0
		}
		for dec.More() {
			k, ok := key(dec)
			if !ok {
				return 0
			}
			if k != server {
				if !skip(dec) {
					return 0
				}
				continue
			}
			if tool == "" {
				return line()
			}
			return toolLine(dec, tool, line)
		}
		return 0
	}
	return 0
}

// toolLine finds, in one server object, the tool named tool.
func toolLine(dec *json.Decoder, tool string, line func() int) int {
	if !enterObject(dec) {
		return 0
	}
	for dec.More() {
		k, ok := key(dec)
		if !ok {
			return 0
		}
		if k != "tools" {
			if !skip(dec) {
				return 0
			}
			continue
		}
		if t, err := dec.Token(); err != nil || t != json.Delim('[') {
			return 0
		}
		for dec.More() {
			if !enterObject(dec) {
				return 0
			}
			for dec.More() {
				k, ok := key(dec)
				if !ok {
					return 0
				}
				if k != "name" {
					if !skip(dec) {
						return 0
					}
					continue
				}
				n := line() // the key's line
				v, err := dec.Token()
				if err != nil {
					return 0
				}
				if s, ok := v.(string); ok && s == tool {
					return n
				}
			}
			if _, err := dec.Token(); err != nil { // '}'
				return 0
			}
		}
		return 0
	}
	return 0
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
