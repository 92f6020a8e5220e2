package fakeserver

import (
	"encoding/json"
	"fmt"
	"os"
)

// LoadTools reads a JSON array of tool objects from path, keeping each
// element's bytes exactly as written.
func LoadTools(path string) ([]json.RawMessage, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var tools []json.RawMessage
	if err := json.Unmarshal(data, &tools); err != nil {
		return nil, fmt.Errorf("%s: not a JSON array of tools: %v", path, err)
	}
	return tools, nil
}

// Generate returns n deterministic tools named tool_0000, tool_0001, ...,
// each with an inputSchema of roughly schemaBytes bytes, for benchmarks of
// large surfaces. The tools share one allocation: the fake's own memory,
// which counts in the peak RSS of the agentgate that starts it, stays near
// the listing's size.
func Generate(n, schemaBytes int) []json.RawMessage {
	buf := make([]byte, 0, n*(max(schemaBytes, 60)+160))
	ends := make([]int, n)
	var props []byte
	for i := range n {
		props = props[:0]
		for j := 0; j == 0 || len(props) < schemaBytes-60; j++ {
			if j > 0 {
				props = append(props, ',')
			}
			props = fmt.Appendf(props, `"arg_%03d":{"type":"string","description":"argument %d of tool %d"}`, j, j, i)
		}
		buf = fmt.Appendf(buf,
			`{"name":"tool_%04d","description":"Generated tool number %d.","inputSchema":{"type":"object","properties":{%s}}}`,
			i, i, props)
		ends[i] = len(buf)
	}
	tools := make([]json.RawMessage, n)
	start := 0
	for i, end := range ends {
		tools[i] = buf[start:end:end]
		start = end
	}
	return tools
}
