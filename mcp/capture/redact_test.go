package capture

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/lock"
	"github.com/agentgate/agentgate/mcp/config"
	"github.com/agentgate/agentgate/mcp/wire"
)

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// TestRedactResult: every string of every listed definition (member names
// included, \u escapes decoded) and the instructions lose the session's
// secrets; the hashes recorded are of the text as sent, derived here from
// the spec's field rules (SHA-256 of the description's bytes, of the
// schema's RFC 8785 form); the redacted definition stays JSON; a short
// value ("true") is not redacted inside tool text; an element without a
// secret is passed on byte for byte.
func TestRedactResult(t *testing.T) {
	const secret = `sec"ret\value-1234`
	const token = "oauth-token-9f8e7d6c"
	held := config.Resolved{Secrets: []string{secret, "true", token}}
	desc := "Set it to true; the key is " + secret + ", the token \u0074oken " + token
	tool, _ := json.Marshal(map[string]any{"name": "a", "description": desc,
		"inputSchema": map[string]any{"default": secret, secret: true, "n": "x" + secret}, "title": "Bearer " + token})
	// The token spelled with \u escapes, which a byte search misses.
	escaped := []byte(`{"name":"b","description":"\u006f\u0061uth-token-9f8e7d6c"}`)
	plain := []byte(`{"name":"c",  "description":"nothing here"}`)
	prompt := []byte(`{"name":"p","description":"use ` + token + `"}`)
	instructions := "Send " + token + " back"
	res := &wire.Result{Tools: []json.RawMessage{tool, escaped, plain}, Prompts: []json.RawMessage{prompt}, Instructions: &instructions}
	if err := redactResult(res, held); err != nil {
		t.Fatal(err)
	}
	for i, raw := range append(append([]json.RawMessage{}, res.Tools...), res.Prompts...) {
		if !json.Valid(raw) || strings.Contains(string(raw), "value-1234") || strings.Contains(string(raw), "9f8e7d6c") {
			t.Errorf("element %d: %s", i, raw)
		}
	}
	if string(res.Tools[2]) != string(plain) {
		t.Errorf("an element without a secret changed: %s", res.Tools[2])
	}
	var got struct{ Description string }
	json.Unmarshal(res.Tools[0], &got)
	if !strings.HasPrefix(got.Description, "Set it to true; the key is [redacted]") {
		t.Errorf("description %q", got.Description)
	}
	if *res.Instructions != "Send [redacted] back" || res.InstructionsSent != sha(instructions) {
		t.Errorf("instructions %q, sent hash %s", *res.Instructions, res.InstructionsSent)
	}
	schema, _ := json.Marshal(map[string]any{"default": secret, secret: true, "n": "x" + secret})
	jcs, err := lock.Canonicalize(schema) // RFC 8785, as docs/spec/lockfile.md defines inputSchemaHash
	if err != nil {
		t.Fatal(err)
	}
	defA, _ := lock.DefinitionHash(tool)
	defB, _ := lock.DefinitionHash(escaped)
	defP, _ := lock.DefinitionHash(prompt)
	want := []wire.Sent{
		{List: wire.ListTools, Index: 0, DescriptionHash: sha(desc), InputSchemaHash: sha(string(jcs)), DefinitionHash: defA},
		{List: wire.ListTools, Index: 1, DescriptionHash: sha("oauth-token-9f8e7d6c"), InputSchemaHash: sha("{}"), DefinitionHash: defB},
		{List: wire.ListPrompts, Index: 0, DefinitionHash: defP},
	}
	if len(res.Sent) != len(want) {
		t.Fatalf("sent %+v, want %+v", res.Sent, want)
	}
	for i := range want {
		if res.Sent[i] != want[i] {
			t.Errorf("sent[%d] %+v, want %+v", i, res.Sent[i], want[i])
		}
	}
}

// TestRedactResultNames: a secret in a tool's name (a template's
// uriTemplate) fails the server without naming the secret; so does a
// redacted element whose raw text agentgate cannot pin.
func TestRedactResultNames(t *testing.T) {
	const token = "oauth-token-9f8e7d6c"
	held := config.Resolved{Server: config.Server{Name: "s", File: ".mcp.json"}, Secrets: []string{token}}
	for _, res := range []*wire.Result{
		{Tools: []json.RawMessage{[]byte(`{"name":"t-` + token + `"}`)}},
		{ResourceTemplates: []json.RawMessage{[]byte(`{"name":"r","uriTemplate":"x://` + token + `/{id}"}`)}},
		{Tools: []json.RawMessage{[]byte(`{"name":"t","description":"` + token + `","a":1,"a":2}`)}},
	} {
		err := redactResult(res, held)
		var e *wire.Error
		if !errors.As(err, &e) || !errors.Is(err, wire.ErrProtocol) || strings.Contains(err.Error(), token) || !strings.Contains(err.Error(), "echoes a credential") {
			t.Errorf("got %v, want a protocol error without the token", err)
		}
	}
}

// TestRedactedMarkers: capture, config and lock use one marker.
func TestRedactedMarkers(t *testing.T) {
	if config.Redacted != lock.Redacted {
		t.Errorf("config.Redacted %q, lock.Redacted %q", config.Redacted, lock.Redacted)
	}
}

// benchTools is n tools of about 1 KiB (as benchListReply), raw.
func benchTools(b *testing.B, n int, escape bool) []json.RawMessage {
	var tools []json.RawMessage
	for i := 0; i < n; i++ {
		desc := fmt.Sprintf("Does thing %d with care.", i)
		if escape {
			desc += " <path>" // Go servers write \u003c
		}
		props := map[string]any{}
		for j := 0; j < 12; j++ {
			props[fmt.Sprintf("param_%d", j)] = map[string]any{"type": "string", "description": fmt.Sprintf("the %d-th parameter", j)}
		}
		raw, err := json.Marshal(map[string]any{"name": fmt.Sprintf("tool_%d", i), "description": desc, "inputSchema": map[string]any{"type": "object", "properties": props}})
		if err != nil {
			b.Fatal(err)
		}
		tools = append(tools, raw)
	}
	return tools
}

// BenchmarkRedactResult is what the one redaction costs a listing of
// 1,000 tools that echo nothing, with three secrets held (escape: every
// description has a \u escape, so every tool is parsed), next to
// BenchmarkDecodeServer, the decoding agentgate does of every listing
// anyway.
func BenchmarkRedactResult(b *testing.B) {
	held := config.Resolved{Secrets: []string{"header-value-0123456789", "env-secret-abcdef", "oauth-token-9f8e7d6c5b4a"}}
	for _, escape := range []bool{false, true} {
		tools := benchTools(b, 1000, escape)
		b.Run(fmt.Sprintf("escapes=%v", escape), func(b *testing.B) {
			for b.Loop() {
				res := &wire.Result{Tools: slices.Clone(tools)}
				if err := redactResult(res, held); err != nil || len(res.Sent) != 0 {
					b.Fatal(err, res.Sent)
				}
			}
		})
	}
}

// BenchmarkDecodeServer: agentgate's decoding and hashing of the same
// listing (the baseline for BenchmarkRedactResult).
func BenchmarkDecodeServer(b *testing.B) {
	tools := benchTools(b, 1000, false)
	for b.Loop() {
		if _, _, err := lock.DecodeServer(lock.Version1, tools); err != nil {
			b.Fatal(err)
		}
	}
}
