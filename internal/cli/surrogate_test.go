package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/lock"
)

// TestLockUnpairedSurrogate (issue #24 item 13): a tool whose description,
// title and schema hold unpaired surrogate escapes (\ud83d, \udc00, \udfff
// in the server's JSON) is locked by version 2, with the hashes
// docs/spec/lockfile-v2.md defines for it; testdata/surrogate/gen.py
// derives them in Python from that text and the public recipe, and wrote
// expected.json. The lockfile reads back (verify, diff and ci in sync).
// Version 1 still refuses the server (exit 3), as its spec says.
func TestLockUnpairedSurrogate(t *testing.T) {
	tools, err := filepath.Abs("testdata/surrogate/tools.json")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile("testdata/surrogate/expected.json")
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]json.RawMessage
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	r := newRepo(t, true, map[string]any{"s": fakeServer("-tools", tools)})
	r.mustRun(ExitOK, "lock", "--lockfile-version", "2")
	lf, err := lock.Parse(r.read("agentgate.lock"))
	if err != nil {
		t.Fatal(err)
	}
	srv := lf.Servers["s"]
	var surface string
	json.Unmarshal(want["surfaceHash"], &surface)
	if srv.SurfaceHash != surface {
		t.Errorf("surfaceHash %s, want %s", srv.SurfaceHash, surface)
	}
	for _, tool := range srv.Tools {
		var w struct{ NameHash, DescriptionHash, InputSchemaHash, DefinitionHash string }
		if err := json.Unmarshal(want[tool.Name], &w); err != nil {
			t.Fatalf("%s: %v", tool.Name, err)
		}
		got := struct{ NameHash, DescriptionHash, InputSchemaHash, DefinitionHash string }{tool.NameHash, tool.DescriptionHash, tool.InputSchemaHash, tool.DefinitionHash}
		if got != w {
			t.Errorf("tool %s:\n got %+v\nwant %+v", tool.Name, got, w)
		}
	}
	if data := string(r.read("agentgate.lock")); !strings.Contains(data, `"description": "half \ud83d of a face"`) {
		t.Errorf("the definition does not show the surrogate as an escape:\n%s", data)
	}
	r.commitAll()
	r.mustRun(ExitOK, "verify")
	r.mustRun(ExitOK, "diff")
	r.mustRun(ExitOK, "ci", "--format", "json")

	v1 := newRepo(t, true, map[string]any{"s": fakeServer("-tools", tools)})
	_, stderr := v1.mustRun(ExitUnverified, "lock", "--lockfile-version", "1")
	if !strings.Contains(stderr, "not valid I-JSON") {
		t.Errorf("version 1 lock: want the I-JSON refusal:\n%s", stderr)
	}
}
