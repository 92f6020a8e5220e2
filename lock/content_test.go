package lock

import (
	"bytes"
	"strings"
	"testing"
)

// TestSameContentCRLF: a lockfile checked out with CRLF line ends (git's
// core.autocrlf=true) parses to the same content as the LF file, and a
// real change does not.
func TestSameContentCRLF(t *testing.T) {
	lf := []byte(strings.Join([]string{
		`{`,
		`  "lockfileVersion": 1,`,
		`  "generatedBy": "agentgate@v1.0.0",`,
		`  "generatedAt": "2026-08-03T12:00:00.000Z",`,
		`  "servers": {`,
		`    "s": {`,
		// sha256 of the canonical JSON [] (printf '[]' | sha256sum)
		`      "surfaceHash": "4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945",`,
		`      "tools": []`,
		`    }`,
		`  }`,
		`}`,
		``}, "\n"))
	crlf := bytes.ReplaceAll(lf, []byte("\n"), []byte("\r\n"))
	a, err := Parse(lf)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Parse(crlf)
	if err != nil {
		t.Fatalf("CRLF lockfile refused: %v", err)
	}
	if !SameContent(a, b) {
		t.Error("LF and CRLF lockfiles differ in content")
	}
	if !bytes.Equal(Format(b), lf) {
		t.Errorf("Format of the CRLF file is not the LF file:\n%s", Format(b))
	}
	other := bytes.Replace(lf, []byte(`"generatedAt": "2026-08-03T12:00:00.000Z"`), []byte(`"generatedAt": "2027-01-01T00:00:00.000Z"`), 1)
	c, err := Parse(other)
	if err != nil {
		t.Fatal(err)
	}
	if !SameContent(a, c) {
		t.Error("generatedAt is not content")
	}
	v2 := *a
	v2.LockfileVersion = 2
	if SameContent(a, &v2) {
		t.Error("lockfile versions 1 and 2 are different content")
	}
	if SameContent(a, nil) || !SameContent(nil, &Lockfile{}) {
		t.Error("no servers vs one server")
	}
}
