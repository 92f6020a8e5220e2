package guard

import (
	"encoding/json"
	"testing"

	"github.com/agentgate/agentgate/lock"
)

// TestCheckToolUnpairedSurrogate: a tool that version 2 locks although
// its description holds an unpaired surrogate (issue #24 item 13) passes
// guard's check as listed, and is drift once its text changes.
func TestCheckToolUnpairedSurrogate(t *testing.T) {
	const tool = `{"name":"lone","description":"half \ud83d of a face","inputSchema":{"type":"object"}}`
	_, defs, err := lock.DecodeServer(lock.Version2, []json.RawMessage{[]byte(tool)})
	if err != nil {
		t.Fatal(err)
	}
	pins := lockListing(t, nil, lock.Listing{})
	srv, err := lock.BuildServer(lock.Version2, defs, lock.BuildOptions{Definitions: true})
	if err != nil {
		t.Fatal(err)
	}
	pins.Tools = map[string]lock.Tool{"lone": srv.Tools[0]}
	if v := pins.checkTool([]byte(tool)); v.name != "lone" || v.drift != "" {
		t.Errorf("the locked tool as listed: %+v, want no drift", v)
	}
	if v := pins.checkTool([]byte(`{"name":"lone","description":"half \ud83e of a face","inputSchema":{"type":"object"}}`)); v.drift == "" {
		t.Errorf("a changed surrogate: %+v, want drift", v)
	}
}
