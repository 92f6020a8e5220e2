package registry

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/internal/testing/testenv"
)

// Cases from node-semver's own documentation (README "Ranges"); each
// expectation is what the README states.
func TestSemverRangeDocumented(t *testing.T) {
	cases := []struct {
		rng, in, out string // space-separated versions
	}{
		{"^1.2.3", "1.2.3 1.9.9", "1.2.2 2.0.0 1.3.0-beta.1"},
		{"^0.2.3", "0.2.3 0.2.9", "0.3.0 0.2.2"},
		{"^0.0.3", "0.0.3", "0.0.4 0.0.2"},
		{"^1.2.3-beta.2", "1.2.3-beta.4 1.2.3 1.9.0", "1.2.4-beta.2 1.2.3-beta.1"},
		{"^1.x", "1.0.0 1.9.9", "2.0.0-0 2.0.0"},
		{"^0.0.x", "0.0.0 0.0.9", "0.1.0"},
		{"^0.0", "0.0.5", "0.1.0"},
		{"~1.2.3", "1.2.3 1.2.9", "1.3.0"},
		{"~1.2", "1.2.0 1.2.9", "1.3.0"},
		{"~1", "1.0.0 1.9.9", "2.0.0"},
		{"~0.2.3", "0.2.3", "0.3.0"},
		{"~1.2.3-beta.2", "1.2.3-beta.4 1.2.4", "1.2.4-beta.2 1.3.0"},
		{"1.2.3 - 2.3.4", "1.2.3 2.3.4", "2.3.5 1.2.2"},
		{"1.2 - 2.3.4", "1.2.0", "1.1.9"},
		{"1.2.3 - 2.3", "2.3.9", "2.4.0 2.4.0-0"},
		{"1.2.3 - 2", "2.9.9", "3.0.0"},
		{"*", "0.0.0 9.9.9", "1.0.0-rc.1"},
		{"", "1.0.0", "1.0.0-rc.1"},
		{"1.x", "1.0.0 1.5.5", "2.0.0"},
		{"1.2.x", "1.2.0 1.2.9", "1.3.0"},
		{"1", "1.0.0 1.9.0", "2.0.0"},
		{">1.2", "1.3.0", "1.2.9"},
		{"<=1.2", "1.2.9", "1.3.0"},
		{">=1.2.7 <1.3.0", "1.2.7 1.2.8 1.2.99", "1.2.6 1.3.0 1.1.0"},
		{"1.2.7 || >=1.2.9 <2.0.0", "1.2.7 1.2.9 1.4.6", "1.2.8 2.0.0"},
		{">1.2.3-alpha.3", "1.2.3-alpha.7 3.4.5", "3.4.5-alpha.9 1.2.3-alpha.3"},
		{">= 1.2.3", "1.2.3", "1.2.2"},
		{"v1.2.3", "1.2.3", "1.2.4"},
		{"=1.2.3", "1.2.3", "1.2.4"},
	}
	for _, c := range cases {
		r, ok := parseRange(c.rng)
		if !ok {
			t.Errorf("%q: not a valid range", c.rng)
			continue
		}
		for _, v := range strings.Fields(c.in) {
			if !r.satisfies(mustSemver(t, v)) {
				t.Errorf("%q should include %s", c.rng, v)
			}
		}
		for _, v := range strings.Fields(c.out) {
			if r.satisfies(mustSemver(t, v)) {
				t.Errorf("%q should exclude %s", c.rng, v)
			}
		}
	}
	for _, tag := range []string{"latest", "next", "beta", "canary-2024"} {
		if _, ok := parseRange(tag); ok {
			t.Errorf("%q parsed as a range; npm treats it as a dist-tag", tag)
		}
	}
}

func mustSemver(t *testing.T, s string) semVersion {
	t.Helper()
	v, ok := parseSemver(s)
	if !ok {
		t.Fatalf("%q: not a version", s)
	}
	return v
}

// TestSemverAgainstNodeSemver asks npm's own bundled node-semver (loose
// mode, as npm-pick-manifest calls it) about every range x version pair
// of a corpus, and requires the same answers: which strings are ranges,
// which versions each range includes.
func TestSemverAgainstNodeSemver(t *testing.T) {
	node, semverDir := nodeSemver(t)
	ranges := []string{
		"", "*", "x", "1", "1.x", "1.2", "1.2.x", "1.2.3", "=1.2.3", "v1.2.3", "1.2.3-beta.1",
		"^1", "^1.2", "^1.2.3", "^0", "^0.0", "^0.0.3", "^0.2", "^0.2.3", "^1.2.3-beta.2", "^0.0.3-rc.1", "^x", "^1.x.3",
		"~1", "~1.2", "~1.2.3", "~0.2.3", "~1.2.3-beta.2", "~>1.2", "~ 1.2.3", "^ 1.2",
		">1", ">1.2", ">1.2.3", ">=1.2", ">=1.2.3-0", "<1", "<1.2", "<=1", "<=1.2", "<=1.2.3", "< 2", ">= 1.2.3 < 2",
		">*", "<*", ">=*", "=1.x", ">x",
		"1.2.3 - 2.3.4", "1.2 - 2.3.4", "1.2.3 - 2.3", "1.2.3 - 2", "1 - 2", "* - 2", "1.2.3-alpha - 2.0.0-rc.1",
		"1.2.7 || >=1.2.9 <2.0.0", "^1 || ^2", "<1 || >2", "||", "1.2.3 ||", ">1.2.3-alpha.3",
		"latest", "next", "beta", "1.2.3.4", "01.2.3", "1.2.3 foo", "a.b.c", "^1.2.3 <1.5",
		">=2.0.0-rc.1 <2.0.1", "2.x.x", "1.2.3-rc.1 - 1.2.3", "^2026.8", "~2026.1.26",
	}
	versions := []string{
		"0.0.0", "0.0.2", "0.0.3", "0.0.3-rc.1", "0.0.3-rc.2", "0.0.4", "0.1.0", "0.2.2", "0.2.3", "0.2.9", "0.3.0",
		"1.0.0", "1.0.0-rc.1", "1.2.0", "1.2.2", "1.2.3", "1.2.3-alpha", "1.2.3-alpha.7", "1.2.3-beta.1", "1.2.3-beta.4",
		"1.2.3-rc.1", "1.2.4", "1.2.4-beta.2", "1.2.9", "1.3.0", "1.3.0-beta.1", "1.4.6", "1.9.9", "2.0.0", "2.0.0-0",
		"2.0.0-rc.1", "2.0.0-rc.2", "2.0.1", "2.3.4", "2.3.5", "2.4.0", "3.0.0", "3.4.5-alpha.9",
		"2026.1.26", "2026.7.4", "2026.8.31", "2027.0.0",
	}
	in, _ := json.Marshal(map[string]any{"ranges": ranges, "versions": versions})
	script := `
const semver = require(process.argv[1]);
const {ranges, versions} = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const out = {};
for (const r of ranges) {
  out[r] = semver.validRange(r, {loose: true}) === null ? null : versions.filter(v => semver.satisfies(v, r, {loose: true}));
}
process.stdout.write(JSON.stringify(out));`
	cmd := exec.Command(node, "-e", script, semverDir)
	cmd.Stdin = strings.NewReader(string(in))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	var want map[string]*[]string
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatal(err)
	}
	for _, rs := range ranges {
		r, ok := parseRange(rs)
		w := want[rs]
		if ok != (w != nil) {
			t.Errorf("%q: valid range here %v, node-semver %v", rs, ok, w != nil)
			continue
		}
		if !ok {
			continue
		}
		var got []string
		for _, v := range versions {
			if r.satisfies(mustSemver(t, v)) {
				got = append(got, v)
			}
		}
		if strings.Join(got, " ") != strings.Join(*w, " ") {
			t.Errorf("%q:\n here: %v\n node: %v", rs, got, *w)
		}
	}
}

// nodeSemver finds node and the node-semver that npm itself loads.
func nodeSemver(t *testing.T) (node, dir string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		testenv.Missing(t, "node is not on PATH (it comes with npm)")
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		testenv.Missing(t, "npm is not on PATH")
	}
	root, err := exec.Command(npm, "root", "-g").Output()
	if err != nil {
		t.Fatalf("npm root -g: %v", err)
	}
	dir = filepath.Join(strings.TrimSpace(string(root)), "npm", "node_modules", "semver")
	if _, err := os.Stat(filepath.Join(dir, "package.json")); err != nil {
		// npm's own package may sit beside node rather than under root -g.
		real, _ := filepath.EvalSymlinks(npm)
		dir = filepath.Join(filepath.Dir(filepath.Dir(real)), "node_modules", "semver")
		if _, err := os.Stat(filepath.Join(dir, "package.json")); err != nil {
			testenv.Missing(t, "npm's bundled semver module was not found")
		}
	}
	return node, dir
}
