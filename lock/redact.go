package lock

// redact.go: definitions with secrets replaced, for display and for the
// lockfile's readable definitions, while every hash is over what the
// server sent (docs/spec/lockfile-v2.md, "Redacted text").

import (
	"errors"
	"slices"
	"strings"
)

// Redacted is the marker that replaces a secret in redacted text (a
// server's text that echoed a credential agentgate holds). A kept
// definition or instructions text holding it may not hash to its
// definitionHash (instructionsHash): see Parse.
const Redacted = "[redacted]"

// SentHashes are the hashes of one definition as the server sent it, for
// a ToolDef (or a Listing element) whose text was redacted before it
// reached BuildServer: those functions pin these, not hashes of the
// redacted text. Description and InputSchema are descriptionHash and
// inputSchemaHash (tools only); Definition is the definitionHash ("" when
// the definition has none, which BuildServer refuses).
type SentHashes struct {
	Description, InputSchema, Definition string
}

// ErrRedactedName is the error of RedactDefinition when redacting would
// change a definition's identity (a tool's or prompt's "name", a
// template's "uriTemplate", a resource's "uri"), or merge two member
// names of one object.
var ErrRedactedName = errors.New("a name holds a secret")

// RedactDefinition returns the definition raw (one tool, prompt, resource
// template or resource object, as sent) with redact applied to every
// string in it, member names included, in the canonical form
// DefinitionCanonical writes; changed is false (and out nil) when redact
// changed nothing. raw must have a canonical form (DefinitionCanonical's
// errors). The identity members (top-level "name", "uriTemplate", "uri")
// must come through unchanged, and member names must stay distinct:
// otherwise the error wraps ErrRedactedName, naming the member.
func RedactDefinition(raw []byte, redact func(string) string) (out []byte, changed bool, err error) {
	v, err := parseRecipe(raw)
	if err != nil {
		return nil, false, err
	}
	if v.kind == '{' {
		for _, k := range []string{"name", "uriTemplate", "uri"} {
			if m, ok := v.member(k); ok && m.kind == '"' && redact(m.s) != m.s {
				return nil, false, &redactError{member: k}
			}
		}
	}
	if changed, err = redactTree(v, redact); err != nil || !changed {
		return nil, false, err
	}
	return appendRecipeCanonical(nil, v), true, nil
}

type redactError struct{ member string }

func (e *redactError) Error() string {
	if e.member == "" {
		return "redacting a secret would give two members of one object the same name"
	}
	return "its " + e.member + " holds the credential (a definition is pinned by it, and it cannot be shown)"
}

func (e *redactError) Unwrap() error { return ErrRedactedName }

// redactTree applies redact to every string of v in place, keeping object
// members sorted as UTF-16 code units.
func redactTree(v *rv, redact func(string) string) (changed bool, err error) {
	switch v.kind {
	case '"':
		if s := redact(v.s); s != v.s {
			v.s, changed = s, true
		}
	case '[':
		for _, e := range v.vals {
			c, err := redactTree(e, redact)
			if err != nil {
				return false, err
			}
			changed = changed || c
		}
	case '{':
		keysChanged := false
		for i, k := range v.keys {
			if s := redact(k); s != k {
				v.keys[i], keysChanged = s, true
			}
			c, err := redactTree(v.vals[i], redact)
			if err != nil {
				return false, err
			}
			changed = changed || c
		}
		if keysChanged {
			changed = true
			idx := make([]int, len(v.keys))
			for i := range idx {
				idx[i] = i
			}
			slices.SortStableFunc(idx, func(a, b int) int { return compareUTF16(v.keys[a], v.keys[b]) })
			keys, vals := make([]string, len(idx)), make([]*rv, len(idx))
			for j, i := range idx {
				keys[j], vals[j] = v.keys[i], v.vals[i]
				if j > 0 && keys[j] == keys[j-1] {
					return false, &redactError{}
				}
			}
			v.keys, v.vals, v.kOffs = keys, vals, nil
		}
	}
	return changed, nil
}

// holdsRedacted reports whether the canonical text c holds the marker.
func holdsRedacted(c string) bool { return strings.Contains(c, Redacted) }
