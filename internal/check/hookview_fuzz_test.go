package check

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/lock"
	"github.com/agentgate/agentgate/mcp/config"
)

// The commit hook's scoped capture is a fast path for capturing every
// server (--live). FuzzHookPlanMatchesLive checks them against each other
// on random commits: HEAD's configs and agentgate.toml, a staged edit of
// them (servers changed, added, removed, moved between files, renamed,
// excluded; [inputs], per-server timeouts; variables that resolve the same
// or not), and a staged lockfile edited at random (entries kept, hand
// edited, dropped, added, regenerated). Servers answer as a pure function
// of what is started (model: the surface is derived from the resolved
// definition agentgate-mcp receives), and HEAD's lockfile is consistent
// with HEAD's configs. Then the lockfile the hook builds (PlanHook, then
// MergeEntries with only the planned servers captured) must equal the one
// capturing every server builds, and the hook must never start a server
// that has the same resolved definition, lockfile entry and name as at
// HEAD.
func FuzzHookPlanMatchesLive(f *testing.F) {
	for i := range uint64(40) {
		f.Add(i, i*7919+1)
	}
	f.Fuzz(func(t *testing.T, s1, s2 uint64) {
		rng := rand.New(rand.NewPCG(s1, s2))
		envVars := map[string]string{"X": "1", "Y": "1"}
		if rng.IntN(2) == 0 {
			envVars["Y"] = "2"
		}
		lookup := func(k string) (string, bool) { v, ok := envVars[k]; return v, ok }

		headFiles, stagedFiles := mutateCommit(rng, randomCommit(rng))
		head, err := loadFiles(headFiles)
		if err != nil {
			return // an invalid combination (a rename naming nothing...): not a commit the hook plans
		}
		staged, err := loadFiles(stagedFiles)
		if err != nil {
			return
		}
		live := func(p *config.Project, s config.Server) lock.Server {
			r, err := p.Resolve(s, lookup)
			if err != nil {
				t.Fatalf("resolve %s: %v", s.Name, err)
			}
			return modelSurface(t, modelLaunch(t, r))
		}
		headLf := &lock.Lockfile{Servers: map[string]lock.Server{}}
		for _, s := range head.Servers {
			headLf.Servers[s.Name] = live(head, s)
		}
		stagedLf := &lock.Lockfile{Servers: maps.Clone(headLf.Servers)}
		others := []lock.Server{modelSurface(t, "other-1"), modelSurface(t, "other-2")}
		for _, s := range staged.Servers {
			switch rng.IntN(6) {
			case 0: // regenerated for this server (lock --server)
				stagedLf.Servers[s.Name] = live(staged, s)
			case 1: // hand edited
				stagedLf.Servers[s.Name] = others[rng.IntN(2)]
			case 2:
				delete(stagedLf.Servers, s.Name)
			}
		}
		if rng.IntN(4) == 0 {
			stagedLf.Servers["zz-stale"] = others[0]
		}
		if rng.IntN(8) == 0 {
			stagedLf = nil // no lockfile staged
		}

		plan := PlanHook(lookup, staged, head, nil, stagedLf, headLf, "", func(string) bool { return true })
		captured := map[string]lock.Server{}
		for _, s := range plan.Capture {
			captured[s.Name] = live(staged, s)
		}
		got := MergeEntries(staged.Servers, captured, stagedLf)
		want := map[string]lock.Server{}
		for _, s := range staged.Servers {
			want[s.Name] = live(staged, s)
		}
		if !maps.EqualFunc(got, want, lock.SameServer) {
			t.Fatalf("scoped hook and --live disagree\nHEAD files: %v\nstaged files: %v\ncaptured: %v (why %v)\nunchanged: %v\ngot %v\nwant %v",
				headFiles, stagedFiles, slices.Sorted(maps.Keys(captured)), plan.Why, plan.Unchanged, got, want)
		}
		for _, name := range slices.Sorted(maps.Keys(captured)) {
			i := slices.IndexFunc(head.Servers, func(h config.Server) bool { return h.Name == name })
			if i < 0 || stagedLf == nil {
				continue
			}
			j := slices.IndexFunc(staged.Servers, func(s config.Server) bool { return s.Name == name })
			entry, ok := stagedLf.Servers[name]
			if ok && lock.SameServer(entry, headLf.Servers[name]) &&
				modelKey(t, lookup, head, head.Servers[i]) == modelKey(t, lookup, staged, staged.Servers[j]) {
				t.Fatalf("server %s started although nothing about it changed (why %q)\nHEAD files: %v\nstaged files: %v",
					name, plan.Why[name], headFiles, stagedFiles)
			}
		}
	})
}

// modelSurface is the model server's locked surface for what it was
// started with: one tool whose description is that definition.
func modelSurface(t testing.TB, launch any) lock.Server {
	t.Helper()
	desc, err := json.Marshal(launch)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(map[string]string{"name": "t", "description": string(desc)})
	d, err := lock.DecodeTool(lock.Version1, raw)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := lock.BuildServer(lock.Version1, []lock.ToolDef{d}, lock.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// modelKey is what the model server's surface depends on, as text.
func modelKey(t *testing.T, lookup func(string) (string, bool), p *config.Project, s config.Server) string {
	r, err := p.Resolve(s, lookup)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(modelLaunch(t, r))
	return string(b)
}

// modelLaunch is what the model server's surface depends on: everything
// agentgate-mcp receives for it (the request's JSON, see wire.Request),
// except what names the server and where it is written, and the list of
// secrets. Written out here, not taken from resolvedDiff, so that the model
// does not share the hook's choice of fields.
func modelLaunch(t *testing.T, r config.Resolved) map[string]any {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"Name", "Client", "File", "Line", "Column", "AlsoIn", "Secrets"} {
		if _, ok := m[k]; !ok {
			t.Fatalf("the request has no field %s: update the model", k)
		}
		delete(m, k)
	}
	return m
}

// loadFiles loads a project from file contents, as the hook does from the
// index (config.LoadAt).
func loadFiles(files map[string]string) (*config.Project, error) {
	p, err := config.LoadAt(slices.Sorted(maps.Keys(files)), func(path string) ([]byte, bool, error) {
		v, ok := files[path]
		return []byte(v), ok, nil
	})
	if err != nil {
		return nil, err
	}
	p.Root = "/repo"
	return p, nil
}

// fuzzServer is one server of a random commit: the file it is in (0:
// .mcp.json, Claude Code syntax; 1: .vscode/mcp.json, VS Code syntax) and
// tokens for its argument and env value.
type fuzzServer struct {
	file     int
	arg, env string // "lit1", "lit2", "envX", "envY", "input" (VS Code only), "" (none, env only)
}

// fuzzCommit is a random commit's configs and agentgate.toml.
type fuzzCommit struct {
	servers map[string]fuzzServer
	input   string            // [inputs] i: "value1", "value2", "envX", "envY"
	timeout map[string]string // [servers.NAME] timeout
	exclude string            // a server excluded, or ""
	rename  string            // a server of .mcp.json renamed to NAME-r, or ""
}

var fuzzTokens = []string{"lit1", "lit2", "envX", "envY", "input", ""}

func randomCommit(rng *rand.Rand) fuzzCommit {
	c := fuzzCommit{servers: map[string]fuzzServer{}, timeout: map[string]string{},
		input: []string{"value1", "value2", "envX", "envY"}[rng.IntN(4)]}
	for _, name := range []string{"a", "b", "c", "d"} {
		if rng.IntN(10) < 7 {
			c.servers[name] = randomServer(rng)
		}
		if rng.IntN(6) == 0 {
			c.timeout[name] = "5s"
		}
		if rng.IntN(10) == 0 {
			c.exclude = name
		}
		if rng.IntN(10) == 0 {
			c.rename = name
		}
	}
	return c
}

func randomServer(rng *rand.Rand) fuzzServer {
	s := fuzzServer{file: rng.IntN(2), arg: fuzzTokens[rng.IntN(5)], env: fuzzTokens[rng.IntN(6)]}
	if s.file == 0 { // Claude Code has no ${input:}
		s.arg = strings.Replace(s.arg, "input", "lit1", 1)
		s.env = strings.Replace(s.env, "input", "lit2", 1)
	}
	return s
}

// mutateCommit returns a random staged edit of the commit c, as files.
func mutateCommit(rng *rand.Rand, c fuzzCommit) (headFiles, stagedFiles map[string]string) {
	st := fuzzCommit{servers: maps.Clone(c.servers), timeout: maps.Clone(c.timeout), input: c.input, exclude: c.exclude, rename: c.rename}
	for _, name := range slices.Sorted(maps.Keys(st.servers)) {
		switch rng.IntN(8) {
		case 0:
			delete(st.servers, name)
		case 1:
			st.servers[name] = randomServer(rng)
		case 2: // moved to the other file, same tokens where both syntaxes have them
			s := st.servers[name]
			if s.arg != "input" && s.env != "input" {
				s.file = 1 - s.file
				st.servers[name] = s
			}
		}
	}
	if rng.IntN(4) == 0 {
		st.servers["new"] = randomServer(rng)
	}
	if rng.IntN(4) == 0 {
		st.input = []string{"value1", "value2", "envX", "envY"}[rng.IntN(4)]
	}
	for _, name := range slices.Sorted(maps.Keys(st.servers)) {
		if rng.IntN(6) == 0 {
			st.timeout[name] = []string{"5s", "9s"}[rng.IntN(2)]
		}
		if rng.IntN(10) == 0 {
			st.exclude = name
		}
		if rng.IntN(10) == 0 && st.servers[name].file == 0 {
			st.rename = name
		}
	}
	return c.files(), st.files()
}

// files renders the commit as .mcp.json, .vscode/mcp.json and agentgate.toml.
func (c fuzzCommit) files() map[string]string {
	render := func(tok string, file int) string {
		switch tok {
		case "lit1":
			return "1"
		case "lit2":
			return "2"
		case "envX", "envY":
			if file == 0 {
				return "${" + tok[3:] + "}"
			}
			return "${env:" + tok[3:] + "}"
		case "input":
			return "${input:i}"
		}
		return ""
	}
	entries := [2][]string{}
	for _, name := range slices.Sorted(maps.Keys(c.servers)) {
		s := c.servers[name]
		args, _ := json.Marshal([]string{"-x", render(s.arg, s.file)})
		env := "{}"
		if s.env != "" {
			b, _ := json.Marshal(map[string]string{"K": render(s.env, s.file)})
			env = string(b)
		}
		entries[s.file] = append(entries[s.file], fmt.Sprintf(`%q: {"command": "srv", "args": %s, "env": %s}`, name, args, env))
	}
	files := map[string]string{
		".mcp.json":        `{"mcpServers": {` + strings.Join(entries[0], ", ") + `}}`,
		".vscode/mcp.json": `{"inputs": [{"type": "promptString", "id": "i"}], "servers": {` + strings.Join(entries[1], ", ") + `}}`,
	}
	var toml strings.Builder
	switch c.input {
	case "value1", "value2":
		fmt.Fprintf(&toml, "[inputs]\ni = { value = %q }\n", c.input[5:])
	default:
		fmt.Fprintf(&toml, "[inputs]\ni = { env = %q }\n", c.input[3:])
	}
	for _, name := range slices.Sorted(maps.Keys(c.timeout)) {
		if _, ok := c.servers[name]; ok && name != c.rename {
			fmt.Fprintf(&toml, "[servers.%s]\ntimeout = %q\n", name, c.timeout[name])
		}
	}
	if _, ok := c.servers[c.exclude]; ok && c.exclude != c.rename {
		if _, dup := c.timeout[c.exclude]; !dup {
			fmt.Fprintf(&toml, "[servers.%s]\nexclude = \"reviewed\"\n", c.exclude)
		}
	}
	if s, ok := c.servers[c.rename]; ok && s.file == 0 {
		fmt.Fprintf(&toml, "[[rename]]\nfile = \".mcp.json\"\nserver = %q\nto = %q\n", c.rename, c.rename+"-r")
	}
	files["agentgate.toml"] = toml.String()
	return files
}
