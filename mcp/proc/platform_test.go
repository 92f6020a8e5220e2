package proc_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/agentgate/agentgate/lock"
	"github.com/agentgate/agentgate/mcp/capture"
	"github.com/agentgate/agentgate/mcp/command"
	"github.com/agentgate/agentgate/mcp/config"
	"github.com/agentgate/agentgate/mcp/proc"
	"github.com/agentgate/agentgate/mcp/wire"
)

// TestSameLockfileBytesUnderEveryOSRules: one fake server, configured as a
// user of each OS would write it (Windows: a bare name found as
// C:\tools\fakeserver.exe through a "Path" and PATHEXT; macOS: ~/bin; Linux:
// PATH), is resolved under that OS's rules (package command), run (the
// resolved program stands for this machine's fake server, the only one
// that can run here) and locked: the lockfile bytes are identical for all
// three, hold no CR, and no OS path reaches them.
func TestSameLockfileBytesUnderEveryOSRules(t *testing.T) {
	const tools = "../capture/testdata/tools.json" // capture's fixture
	exe := proc.Fake(t, "x").Command
	type osCase struct {
		goos, command, want string
		env                 map[string]string
		probe               command.Probe
	}
	cases := []osCase{
		{"windows", "fakeserver", `C:\tools\fakeserver.exe`,
			map[string]string{"Path": `C:\Windows\System32;C:\tools`, "PATHEXT": ".COM;.EXE;.BAT;.CMD"},
			func(p string) bool { return strings.EqualFold(p, `C:\tools\fakeserver.EXE`) }},
		{"darwin", "~/bin/fakeserver", "/Users/dev/bin/fakeserver",
			map[string]string{"HOME": "/Users/dev"},
			func(p string) bool { return p == "/Users/dev/bin/fakeserver" }},
		{"linux", "fakeserver", "/opt/mcp/bin/fakeserver",
			map[string]string{"PATH": "/usr/bin:/opt/mcp/bin"},
			func(p string) bool { return p == "/opt/mcp/bin/fakeserver" }},
	}
	saved := *proc.HostRules
	t.Cleanup(func() { *proc.HostRules = saved })
	var first []byte
	for _, c := range cases {
		var resolved string
		*proc.HostRules = func(spec command.Spec) (command.Resolved, error) {
			res, err := command.Resolve(c.goos, spec, c.probe)
			if err != nil {
				return res, err
			}
			resolved = res.Path
			res.Path = exe // this machine's fake server stands for the program found
			return res, nil
		}
		r := proc.Fake(t, "server", "-tools", tools)
		r.Command = c.command
		for k, v := range c.env {
			r.Env[k] = v
		}
		results, wait := capture.Capture(context.Background(), []config.Resolved{r}, wire.Options{Timeout: 20 * time.Second})
		wait()
		res := results[0]
		if res.Err != nil {
			t.Fatalf("%s: %v", c.goos, res.Err)
		}
		if resolved != c.want {
			t.Errorf("%s: resolved %q, want %q", c.goos, resolved, c.want)
		}
		defs := make([]lock.ToolDef, len(res.Tools))
		for i, raw := range res.Tools {
			d, err := lock.DecodeTool(lock.Version1, raw)
			if err != nil {
				t.Fatal(err)
			}
			defs[i] = d
		}
		srv, err := lock.BuildServer(lock.Version1, defs, lock.BuildOptions{})
		if err != nil {
			t.Fatal(err)
		}
		st := lock.Stamp{By: "agentgate@test", At: time.Date(2026, 8, 3, 12, 0, 0, 0, time.UTC)}
		data := lock.Format(lock.New(lock.Version1, map[string]lock.Server{"server": srv}, st, nil))
		if bytes.ContainsAny(data, "\r\\") || bytes.Contains(data, []byte("fakeserver")) {
			t.Errorf("%s: the lockfile holds a CR, a backslash or the command:\n%s", c.goos, data)
		}
		if first == nil {
			first = data
			continue
		}
		if !bytes.Equal(data, first) {
			t.Errorf("%s: lockfile differs from %s's:\n%s\nvs\n%s", c.goos, cases[0].goos, data, first)
		}
	}
	var want []json.RawMessage
	if data, err := os.ReadFile(tools); err != nil || json.Unmarshal(data, &want) != nil {
		t.Fatalf("%s: %v", tools, err)
	}
	if n := bytes.Count(first, []byte(`"nameHash"`)); n != len(want) {
		t.Errorf("the lockfile locks %d tools, want %d", n, len(want))
	}
}
