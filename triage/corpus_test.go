package triage

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The corpus (testdata/corpus, described in docs/TRIAGE.md):
//
//   - benign/PACKAGE/VERSION.json: what real releases of public MCP
//     servers list (scripts/triage/corpus.sh records them), in the order
//     of releases.tsv and releases-heldout.tsv; every item added or
//     changed between two consecutive releases is one benign change; the
//     packages of releases-heldout.tsv are held out (recorded by someone
//     who does not read the rules, never tuned against), those of
//     releases.tsv are what the rules were shaped by; a change is
//     labelled with the other servers of one repository on its surface
//     (the latest release of every other package), in the dev repository
//     (the packages of releases.tsv) and in the whole repository (both);
//   - attacks/*.json: attacks written on top of the dev packages' real
//     tools and labelled in the dev repository, each naming the item it
//     attacks and the labels it expects; the files
//     named heldout*.json are held out (written by someone who does not
//     read the rules, never tuned against), the dev*.json files are what
//     the rules were shaped by (docs/TRIAGE.md gives each round's
//     history).

// surface is one captured release.
type surface struct {
	Package           string            `json:"package"`
	Version           string            `json:"version"`
	Instructions      *string           `json:"instructions"`
	Tools             []json.RawMessage `json:"tools"`
	Prompts           []json.RawMessage `json:"prompts"`
	ResourceTemplates []json.RawMessage `json:"resourceTemplates"`
}

func (s surface) ref() string { return s.Package + "@" + s.Version }

// items returns the release's items by kind and name, definitions as
// canonical JSON (so that two releases compare by content).
func (s surface) items(t testing.TB) map[[2]string][]byte {
	out := map[[2]string][]byte{}
	add := func(kind string, raws []json.RawMessage) {
		for _, raw := range raws {
			var v map[string]any
			if err := json.Unmarshal(raw, &v); err != nil {
				t.Fatalf("%s: %s: %v", s.ref(), kind, err)
			}
			name, _ := v["name"].(string)
			b, _ := json.Marshal(v)
			out[[2]string{kind, name}] = b
		}
	}
	add(KindTool, s.Tools)
	add(KindPrompt, s.Prompts)
	add(KindResourceTemplate, s.ResourceTemplates)
	if s.Instructions != nil && *s.Instructions != "" {
		b, _ := json.Marshal(*s.Instructions)
		out[[2]string{KindInstructions, ""}] = b
	}
	return out
}

type corpus struct {
	releases map[string][]surface // by package, oldest first
	order    []string             // packages in releases.tsv then releases-heldout.tsv order
	heldOut  map[string]bool      // the packages of releases-heldout.tsv

	items map[string]map[[2]string][]byte // by package@version, computed once
	ctx   map[string][]Name               // context, by package
	surf  map[string]Surface              // surfaceOf, by package@version
}

// surfaceOf is the Surface of release s of pkg among the latest releases
// of the corpus's other packages, built once per release so that its
// name index is too: a Surface per labelled item rebuilt the index of
// every name of the whole repository for each one, half of TestCorpus's
// time. The labels do not depend on which Surface of equal names is used.
func (c *corpus) surfaceOf(t testing.TB, s surface, pkg string) Surface {
	if x, ok := c.surf[s.ref()]; ok {
		return x
	}
	x := NewSurface(serverName(pkg), append(c.namesOf(t, s, serverName(pkg)), c.context(pkg, t)...))
	c.surf[s.ref()] = x
	return x
}

func (c *corpus) itemsOf(t testing.TB, s surface) map[[2]string][]byte {
	if m, ok := c.items[s.ref()]; ok {
		return m
	}
	m := s.items(t)
	c.items[s.ref()] = m
	return m
}

func (c *corpus) namesOf(t testing.TB, s surface, server string) []Name {
	var out []Name
	for k := range c.itemsOf(t, s) {
		if k[0] != KindInstructions {
			out = append(out, Name{Server: server, Kind: k[0], Name: k[1]})
		}
	}
	return out
}

// releaseLists are the corpus's lists of releases, in the order their
// packages are loaded, and whether a list's packages are held out.
var releaseLists = []struct {
	file    string
	heldOut bool
}{{"releases.tsv", false}, {"releases-heldout.tsv", true}}

func loadCorpus(t testing.TB) *corpus {
	c := &corpus{releases: map[string][]surface{}, heldOut: map[string]bool{},
		items: map[string]map[[2]string][]byte{}, ctx: map[string][]Name{}, surf: map[string]Surface{}}
	for _, l := range releaseLists {
		c.loadReleases(t, l.file, l.heldOut)
	}
	c.checkListed(t)
	return c
}

// checkListed fails on a recording under testdata/corpus/benign that no
// release list names: a package line lost from a list (round 17's
// benign set dropped backlog-mcp-server's from releases-heldout.tsv, and
// its releases silently left the measurement) or a stale recording.
func (c *corpus) checkListed(t testing.TB) {
	paths, err := c.unlisted("testdata/corpus/benign")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		t.Errorf("%s: no release list (%s or %s) names this recording: add its package and version back to the list it came from, or delete it",
			p, releaseLists[0].file, releaseLists[1].file)
	}
}

// unlisted is every PACKAGE/VERSION.json under root (slash-separated,
// root included) that is not a release c loaded.
func (c *corpus) unlisted(root string) ([]string, error) {
	loaded := map[string]bool{}
	for pkg, rs := range c.releases {
		for _, s := range rs {
			loaded[strings.TrimPrefix(pkg, "@")+"/"+s.Version+".json"] = true
		}
	}
	var out []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".json") {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err == nil && !loaded[filepath.ToSlash(rel)] {
			out = append(out, filepath.ToSlash(path))
		}
		return err
	})
	return out, err
}

// TestUnlisted: a recording whose package line was deleted from its list
// is found, a listed one is not (docs/SECURITY.md, the corpus rows).
func TestUnlisted(t *testing.T) {
	root := t.TempDir()
	for _, f := range []string{"@a/srv/1.0.0.json", "@a/srv/1.1.0.json", "lost/0.2.0.json", "notes.txt"} {
		p := filepath.Join(root, strings.TrimPrefix(f, "@"))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := &corpus{releases: map[string][]surface{"@a/srv": {{Package: "@a/srv", Version: "1.0.0"}}}}
	got, err := c.unlisted(root)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.ToSlash(filepath.Join(root, "a/srv/1.1.0.json")), filepath.ToSlash(filepath.Join(root, "lost/0.2.0.json"))}
	if !slices.Equal(got, want) {
		t.Errorf("unlisted = %q, want %q", got, want)
	}
}

// loadReleases loads the releases one list (testdata/corpus/FILE) names;
// a package listed twice, in one list or in both, is an error.
func (c *corpus) loadReleases(t testing.TB, file string, heldOut bool) {
	f, err := os.Open(filepath.Join("testdata/corpus", file))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Split(line, "\t")
		if len(fields) < 3 {
			t.Fatalf("%s: %q: want package, versions, bin and args separated by tabs", file, line)
		}
		pkg := fields[0]
		if _, ok := c.releases[pkg]; ok {
			t.Fatalf("%s: %s is listed twice", file, pkg)
		}
		c.releases[pkg] = nil
		for _, v := range strings.Fields(fields[1]) {
			b, err := os.ReadFile(filepath.Join("testdata/corpus/benign", strings.TrimPrefix(pkg, "@"), v+".json"))
			if os.IsNotExist(err) {
				continue // a release that did not install or list (corpus.sh says why)
			}
			if err != nil {
				t.Fatal(err)
			}
			var s surface
			if err := json.Unmarshal(b, &s); err != nil {
				t.Fatalf("%s@%s: %v", pkg, v, err)
			}
			if s.Package != pkg || s.Version != v {
				t.Fatalf("benign/%s/%s.json records %s", pkg, v, s.ref())
			}
			c.releases[pkg] = append(c.releases[pkg], s)
		}
		if len(c.releases[pkg]) > 0 {
			c.order = append(c.order, pkg)
			c.heldOut[pkg] = heldOut
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}

// dev is the corpus without its held-out packages: the repository of the
// servers the rules were shaped by, whose figures stay comparable from
// round to round. It shares the releases and their items with c.
func (c *corpus) dev() *corpus {
	d := &corpus{releases: c.releases, heldOut: c.heldOut, items: c.items, ctx: map[string][]Name{}, surf: map[string]Surface{}}
	for _, pkg := range c.order {
		if !c.heldOut[pkg] {
			d.order = append(d.order, pkg)
		}
	}
	return d
}

// part is the half of the corpus a package is in: "held-out" for the
// packages of releases-heldout.tsv, else "dev".
func (c *corpus) part(pkg string) string {
	if c.heldOut[pkg] {
		return "held-out"
	}
	return "dev"
}

// serverName is the name a package's server has in the corpus's
// repository: its last path element.
func serverName(pkg string) string { return pkg[strings.LastIndex(pkg, "/")+1:] }

// context is every other package's latest release (of c.order), as the
// other servers of one repository.
func (c *corpus) context(except string, t testing.TB) []Name {
	if out, ok := c.ctx[except]; ok {
		return slices.Clone(out)
	}
	var out []Name
	for _, pkg := range c.order {
		if pkg != except {
			rs := c.releases[pkg]
			out = append(out, c.namesOf(t, rs[len(rs)-1], serverName(pkg))...)
		}
	}
	c.ctx[except] = out
	return slices.Clone(out)
}

// benignChange is one item added or changed between two releases.
type benignChange struct {
	pkg        string
	from, to   string // package@version
	kind, name string
	labels     []Label
}

func (c *corpus) benign(t testing.TB) []benignChange {
	var out []benignChange
	for _, pkg := range c.order {
		c.eachChange(t, pkg, func(from, to surface, k [2]string, old *Item, nd []byte) {
			s := c.surfaceOf(t, to, pkg)
			out = append(out, benignChange{pkg: pkg, from: from.ref(), to: to.ref(), kind: k[0], name: k[1],
				labels: Change(old, &Item{Kind: k[0], Name: k[1], Def: nd}, s)})
		})
	}
	return out
}

// eachChange calls fn for every item added or changed between two
// consecutive releases of pkg, in release order and by kind and name:
// old is the item before (nil when added), nd its definition after.
func (c *corpus) eachChange(t testing.TB, pkg string, fn func(from, to surface, k [2]string, old *Item, nd []byte)) {
	rs := c.releases[pkg]
	for i := 1; i < len(rs); i++ {
		a, b := c.itemsOf(t, rs[i-1]), c.itemsOf(t, rs[i])
		for _, k := range slices.SortedFunc(maps.Keys(b), func(x, y [2]string) int { return strings.Compare(x[0]+x[1], y[0]+y[1]) }) {
			nd := b[k]
			od, had := a[k]
			if had && string(od) == string(nd) {
				continue
			}
			var old *Item
			if had {
				old = &Item{Kind: k[0], Name: k[1], Def: od}
			}
			fn(rs[i-1], rs[i], k, old, nd)
		}
	}
}

// firstLock labels every item of every package's latest release as
// added, as the first lock of a repository does.
func (c *corpus) firstLock(t testing.TB) []benignChange {
	var out []benignChange
	for _, pkg := range c.order {
		rs := c.releases[pkg]
		last := rs[len(rs)-1]
		s := c.surfaceOf(t, last, pkg)
		items := c.itemsOf(t, last)
		for _, k := range slices.SortedFunc(maps.Keys(items), func(x, y [2]string) int { return strings.Compare(x[0]+x[1], y[0]+y[1]) }) {
			out = append(out, benignChange{pkg: pkg, to: last.ref(), kind: k[0], name: k[1],
				labels: Change(nil, &Item{Kind: k[0], Name: k[1], Def: items[k]}, s)})
		}
	}
	return out
}

func hasHigh(ls []Label) bool { return Highest(ls) == High }

func fmtLabels(ls []Label) string {
	var b strings.Builder
	for _, l := range ls {
		fmt.Fprintf(&b, "\n      %s %s %s", l.Severity, l.ID, l.Evidence)
	}
	return b.String()
}
