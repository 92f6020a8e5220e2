package triage

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// attack is one entry of testdata/corpus/attacks/*.json: a real item of
// a real release (the target package's release "version", or its latest
// in the corpus),
// changed (or, with op "add", copied under a new name) by "set" (member
// path -> JSON value) and "append" (member path -> text appended to the
// string there, "" for instructions), with the labels it must get.
type attack struct {
	ID      string            `json:"id"`
	Class   string            `json:"class"`
	Target  string            `json:"target"`
	Version string            `json:"version"` // the release attacked; "" for the latest in the corpus
	Kind    string            `json:"kind"`
	Name    string            `json:"name"`
	Op      string            `json:"op"`
	Copy    string            `json:"copy"`
	Set     map[string]any    `json:"set"`
	Append  map[string]string `json:"append"`
	Expect  []string          `json:"expect"`
	Note    string            `json:"note"`

	file   string
	labels []Label
}

func loadAttacks(t testing.TB, c *corpus) []attack {
	out := readAttacks(t)
	for i := range out {
		out[i].labels = c.label(t, out[i])
	}
	return out
}

// readAttacks reads every attack file, without labelling: each attack
// once (an id twice fails), with its file.
func readAttacks(t testing.TB) []attack {
	files, err := filepath.Glob("testdata/corpus/attacks/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no attack files: %v", err)
	}
	var out []attack
	ids := map[string]bool{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var as []attack
		if err := json.Unmarshal(b, &as); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, a := range as {
			if ids[a.ID] {
				t.Fatalf("%s: attack %s twice", f, a.ID)
			}
			ids[a.ID] = true
			a.file = filepath.Base(f)
			out = append(out, a)
		}
	}
	return out
}

// label builds the attacked surface and labels the attacked item.
func (c *corpus) label(t testing.TB, a attack) []Label {
	old, n, s := c.attacked(t, a)
	return Change(old, n, s)
}

// attacked returns the attacked item before (nil for op "add") and
// after the attack, and its surface.
func (c *corpus) attacked(t testing.TB, a attack) (*Item, *Item, Surface) {
	rs := c.releases[a.Target]
	if len(rs) == 0 {
		t.Fatalf("attack %s: no release of %s in the corpus", a.ID, a.Target)
	}
	rel := rs[len(rs)-1]
	if a.Version != "" {
		i := slices.IndexFunc(rs, func(r surface) bool { return r.Version == a.Version })
		if i < 0 {
			t.Fatalf("attack %s: no release %s@%s in the corpus", a.ID, a.Target, a.Version)
		}
		rel = rs[i]
	}
	items := c.itemsOf(t, rel)
	base := a.Name
	if a.Op == "add" {
		base = a.Copy
	}
	key := [2]string{a.Kind, base}
	if a.Kind == KindInstructions {
		key[1] = ""
	}
	od, ok := items[key]
	if !ok {
		t.Fatalf("attack %s: %s has no %s %q", a.ID, rel.ref(), a.Kind, base)
	}
	var v any
	if err := json.Unmarshal(od, &v); err != nil {
		t.Fatal(err)
	}
	if a.Op == "add" {
		v.(map[string]any)["name"] = a.Name
	}
	for path, val := range a.Set {
		v = setPath(v, path, val)
	}
	for _, path := range slices.Sorted(maps.Keys(a.Append)) {
		cur, _ := getPath(v, path).(string)
		v = setPath(v, path, cur+a.Append[path])
	}
	nd, _ := json.Marshal(v)
	newItem := &Item{Kind: a.Kind, Name: a.Name, Def: nd}
	var old *Item
	if a.Op != "add" {
		old = &Item{Kind: a.Kind, Name: a.Name, Def: od}
	}
	if a.Op != "add" {
		return old, newItem, c.surfaceOf(t, rel, a.Target)
	}
	names := append(c.namesOf(t, rel, serverName(a.Target)), Name{Server: serverName(a.Target), Kind: a.Kind, Name: a.Name})
	return old, newItem, NewSurface(serverName(a.Target), append(names, c.context(a.Target, t)...))
}

func getPath(v any, path string) any {
	if path == "" {
		return v
	}
	for _, k := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// setPath sets the member at a dotted path, creating objects on the way;
// "" is the value itself.
func setPath(v any, path string, val any) any {
	if path == "" {
		return val
	}
	k, rest, _ := strings.Cut(path, ".")
	m, ok := v.(map[string]any)
	if !ok {
		m = map[string]any{}
	}
	if rest == "" {
		m[k] = val
	} else {
		m[k] = setPath(m[k], rest, val)
	}
	return m
}

func gotIDs(ls []Label, min Severity) []string {
	var out []string
	for _, l := range ls {
		if l.Severity >= min && !slices.Contains(out, l.ID) {
			out = append(out, l.ID)
		}
	}
	return out
}
