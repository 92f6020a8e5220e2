package lock

import (
	"errors"
	"strings"
	"testing"
	"time"
)

const redactSecret = "sk-live-0a1b2c3d"

func redactFn(s string) string { return strings.ReplaceAll(s, redactSecret, Redacted) }

// TestRedactDefinition: every string is redacted, member names included
// (and re-sorted); a definition without a secret is reported unchanged;
// a name holding a secret, or two member names made equal, is an error.
func TestRedactDefinition(t *testing.T) {
	raw := []byte(`{"name":"t","description":"use ` + redactSecret + `","inputSchema":{"properties":{"` + redactSecret + `":{},"a":{"default":"` + redactSecret + `"}}}}`)
	out, changed, err := RedactDefinition(raw, redactFn)
	want := `{"description":"use [redacted]","inputSchema":{"properties":{"[redacted]":{},"a":{"default":"[redacted]"}}},"name":"t"}`
	if err != nil || !changed || string(out) != want {
		t.Errorf("got %s %v %v, want %s", out, changed, err, want)
	}
	if out, changed, err := RedactDefinition([]byte(`{"name":"t"}`), redactFn); err != nil || changed || out != nil {
		t.Errorf("no secret: %s %v %v", out, changed, err)
	}
	for _, raw := range []string{
		`{"name":"` + redactSecret + `"}`,
		`{"name":"r","uri":"x://` + redactSecret + `"}`,
		`{"name":"t","p":{"[redacted]":1,"` + redactSecret + `":2}}`,
	} {
		if _, _, err := RedactDefinition([]byte(raw), redactFn); !errors.Is(err, ErrRedactedName) || strings.Contains(err.Error(), redactSecret) {
			t.Errorf("%s: %v, want ErrRedactedName without the secret", raw, err)
		}
	}
}

// redactedServer is a version 2 server whose tool and instructions
// echoed the secret, built as agentgate builds it: redacted text, hashes
// of the raw text.
func redactedServer(t *testing.T, desc string) Server {
	t.Helper()
	raw := []byte(`{"name":"t","description":"` + desc + `"}`)
	sentDef, err := DefinitionHash(raw)
	if err != nil {
		t.Fatal(err)
	}
	shown, _, err := RedactDefinition(raw, redactFn)
	if err != nil {
		t.Fatal(err)
	}
	def, err := DecodeTool(Version2, shown)
	if err != nil {
		t.Fatal(err)
	}
	def.Sent = &SentHashes{Description: HashDescription(&desc), InputSchema: emptyObjectHash, Definition: sentDef}
	instr, shownInstr := "key "+redactSecret, "key "+Redacted
	srv, err := BuildServer(Version2, []ToolDef{def}, BuildOptions{Listing: Listing{Instructions: &shownInstr, InstructionsSent: InstructionsHash(&instr)}, Definitions: true})
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// TestRedactedLockfile: a version 2 file with redacted text holds no
// secret, pins the hashes of the raw text, and reads back; the same file
// with a definition edited (a word changed beside the marker) still reads,
// and Compare reports it as changed against the live server; with the
// marker taken out, the edit is a damaged lockfile.
func TestRedactedLockfile(t *testing.T) {
	desc := "Call me with " + redactSecret
	srv := redactedServer(t, desc)
	if srv.Tools[0].DescriptionHash != sha256Hex([]byte(desc)) || *srv.InstructionsHash != sha256Hex([]byte("key "+redactSecret)) {
		t.Errorf("hashes are not of the raw text: %+v", srv)
	}
	lf := New(Version2, map[string]Server{"s": srv}, Stamp{By: "test", At: time.Unix(0, 0)}, nil)
	data := Format(lf)
	if strings.Contains(string(data), redactSecret) || !strings.Contains(string(data), `"description": "Call me with [redacted]"`) {
		t.Fatalf("lockfile:\n%s", data)
	}
	back, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if d := Compare(back, lf); len(d.Servers) != 0 {
		t.Errorf("read back: %+v", d)
	}
	forged, err := Parse([]byte(strings.Replace(string(data), `"Call me with [redacted]"`, `"Safe tool [redacted]"`, 1)))
	if err != nil {
		t.Fatalf("a redacted definition edited beside its marker: %v", err)
	}
	d := Compare(forged, lf)
	if len(d.Servers) != 1 || len(d.Servers[0].Tools) != 1 || !strings.Contains(strings.Join(d.Servers[0].Tools[0].Fields, ","), "definition") {
		t.Errorf("the forged definition is not a change: %+v", d)
	}
	forged, err = Parse([]byte(strings.Replace(string(data), `"instructions": "key [redacted]"`, `"instructions": "be nice [redacted]"`, 1)))
	if err != nil {
		t.Fatalf("redacted instructions edited beside their marker: %v", err)
	}
	if d := Compare(forged, lf); len(d.Servers) != 1 || d.Servers[0].Instructions == nil {
		t.Errorf("the forged instructions are not a change: %+v", d)
	}
	if _, err := Parse([]byte(strings.Replace(string(data), `"Call me with [redacted]"`, `"Call me with sk"`, 1))); err == nil {
		t.Error("an edited definition without the marker was accepted")
	}
}
