package capture

// redact.go: the one redaction of what a server listed, applied to every
// Result before it leaves capture (and so agentgate-mcp, whose OAuth
// tokens agentgate never sees).

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/agentgate/agentgate/lock"
	"github.com/agentgate/agentgate/mcp/config"
	"github.com/agentgate/agentgate/mcp/wire"
)

// echoRedactor replaces the credentials of one session inside text a
// server sent.
type echoRedactor struct {
	forms  []string // longest first
	rep    *strings.Replacer
	detect [][]byte      // the forms that hold no other form: one of them is in every text holding a form
	chars  map[rune]bool // every character of every form
}

// newEchoRedactor redacts every secret of held of at least
// config.MinEchoedSecretLen bytes, in every form held.SecretForms lists
// (longest first, as forms must be); nil when there is none.
func newEchoRedactor(held config.Resolved) *echoRedactor {
	held.Secrets = slices.DeleteFunc(slices.Clone(held.Secrets), func(v string) bool { return len(v) < config.MinEchoedSecretLen })
	forms := held.SecretForms()
	if len(forms) == 0 {
		return nil
	}
	x := &echoRedactor{forms: forms, chars: map[rune]bool{}}
	args := make([]string, 0, 2*len(forms))
	for i, f := range forms {
		args = append(args, f, lock.Redacted)
		for _, r := range f {
			x.chars[r] = true
		}
		if !slices.ContainsFunc(forms[i+1:], func(g string) bool { return strings.Contains(f, g) }) {
			x.detect = append(x.detect, []byte(f))
		}
	}
	x.rep = strings.NewReplacer(args...)
	return x
}

// text returns s redacted; s itself when it holds no secret.
func (x *echoRedactor) text(s string) string {
	for _, f := range x.forms {
		if strings.Contains(s, f) {
			return x.rep.Replace(s)
		}
	}
	return s
}

// mayHold reports whether the JSON text raw may hold a secret once its
// strings are decoded: a form appears in it as written (detect: forms are
// longest first, so a form holding a shorter one is found through it), or
// it has a \u escape of a character some form holds (an escape can spell
// part of a secret; "\u003c" cannot, unless a secret holds "<").
func (x *echoRedactor) mayHold(raw []byte) bool {
	for rest := raw; ; {
		i := bytes.Index(rest, []byte(`\u`))
		if i < 0 || len(rest) < i+6 {
			break
		}
		r, err := strconv.ParseUint(string(rest[i+2:i+6]), 16, 32)
		if err == nil && (x.chars[rune(r)] || r >= 0xd800 && r <= 0xdfff) {
			return true
		}
		rest = rest[i+2:]
	}
	for _, f := range x.detect {
		if bytes.Contains(raw, f) {
			return true
		}
	}
	return false
}

// redactResult is the redaction of everything a server listed: every
// credential of held (the session's secrets and the OAuth credentials it
// held: session.held) of at least config.MinEchoedSecretLen bytes is
// replaced by lock.Redacted, in every form SecretForms lists, in every
// string (member names included) of every tool, prompt, resource
// template and resource, and in the instructions. Each element it
// changes is replaced by the redacted definition in canonical form
// (lock.RedactDefinition) and recorded in res.Sent with the hashes of the
// element as the server sent it (res.InstructionsSent for the
// instructions), so that hashes stay over the raw text while the text
// itself never leaves this process. A changed element whose raw text
// cannot be hashed (a tool lock.DecodeTool of version 2 refuses), or whose name
// (template uriTemplate, resource uri) holds a secret, fails the server:
// the error names the list and the element's index, never its text.
func redactResult(res *wire.Result, held config.Resolved) error {
	x := newEchoRedactor(held)
	if x == nil {
		return nil
	}
	fail := func(stage wire.Stage, list string, i int, err error) error {
		return &wire.Error{Server: held.Name, File: held.File, Stage: stage, Kind: wire.ErrProtocol,
			Msg: fmt.Sprintf("%s[%d] echoes a credential agentgate holds for this server, and cannot be redacted and pinned: %s", list, i, held.Redact(x.text(err.Error())))}
	}
	for _, l := range []struct {
		name  string
		stage wire.Stage
		raws  []json.RawMessage
	}{{wire.ListTools, wire.StageList, res.Tools}, {wire.ListPrompts, wire.StagePrompts, res.Prompts},
		{wire.ListTemplates, wire.StageTemplates, res.ResourceTemplates}, {wire.ListResources, wire.StageResources, res.Resources}} {
		for i, raw := range l.raws {
			if !x.mayHold(raw) {
				continue
			}
			out, changed, err := lock.RedactDefinition(raw, x.text)
			if err != nil {
				return fail(l.stage, l.name, i, err)
			}
			if !changed {
				continue
			}
			sent := wire.Sent{List: l.name, Index: i}
			if sent.DefinitionHash, err = lock.DefinitionHash(raw); err != nil {
				return fail(l.stage, l.name, i, err)
			}
			if l.name == wire.ListTools {
				// Under version 2's rules, which accept more (an unpaired
				// surrogate): for version 1, agentgate refuses the
				// redacted tool as it would the raw one.
				def, err := lock.DecodeTool(lock.Version2, raw)
				if err != nil {
					return fail(l.stage, l.name, i, err)
				}
				sent.DescriptionHash = lock.HashDescription(def.Description)
				if sent.InputSchemaHash, err = lock.HashInputSchema(lock.Version2, def.InputSchema); err != nil {
					return fail(l.stage, l.name, i, fmt.Errorf("tool %q: field \"inputSchema\": %v", def.Name, err))
				}
			}
			l.raws[i] = out
			res.Sent = append(res.Sent, sent)
		}
	}
	if in := res.Instructions; in != nil {
		if s := x.text(*in); s != *in {
			res.InstructionsSent = *lock.InstructionsHash(in)
			res.Instructions = &s
		}
	}
	return nil
}
