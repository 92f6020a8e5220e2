package fakeserver

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"
)

func TestGenerate(t *testing.T) {
	tools := Generate(3, 2000)
	for i, raw := range tools {
		var v struct{ Name string }
		if !json.Valid(raw) || json.Unmarshal(raw, &v) != nil || v.Name != []string{"tool_0000", "tool_0001", "tool_0002"}[i] {
			t.Errorf("tool %d: %s", i, raw)
		}
		if len(raw) < 2000 || len(raw) > 2300 {
			t.Errorf("tool %d is %d bytes, want about 2000", i, len(raw))
		}
	}
	if again := Generate(3, 2000); !slices.EqualFunc(tools, again, func(a, b json.RawMessage) bool { return bytes.Equal(a, b) }) {
		t.Error("Generate is not deterministic")
	}
}
