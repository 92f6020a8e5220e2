package lock

import (
	"bytes"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// packagesGolden is written by testdata/package/gen.sh with sha256sum,
// openssl and base64 (not by this package): one server per ecosystem and
// a remote one without a package.
const packagesGolden = "testdata/package/packages.lock"

func sri256(b []byte) string {
	s := sha256.Sum256(b)
	return "sha256-" + base64.StdEncoding.EncodeToString(s[:])
}

// TestPackageGolden: the golden file parses, formats to the same bytes,
// and its integrity values are those computed here with crypto/sha256 from
// the fixture files (a second derivation besides gen.sh's openssl).
func TestPackageGolden(t *testing.T) {
	data, err := os.ReadFile(packagesGolden)
	if err != nil {
		t.Fatal(err)
	}
	l, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if got := Format(l); !bytes.Equal(got, data) {
		t.Fatalf("Format(Parse(golden)) differs:\n%s", got)
	}
	script, err := os.ReadFile("testdata/package/server.js")
	if err != nil {
		t.Fatal(err)
	}
	// openssl dgst -sha256 -binary server.js | base64 (gen.sh) gives the
	// same; so does the hex digest below, re-encoded.
	if got := l.Servers["local"].Package; got == nil || got.Integrity != sri256(script) ||
		got.Integrity != "sha256-E0NbjKhP1O7xSvrxT2kpVupeIJ1wuVM+eQfpOFUiD7o=" { // sha256sum: 13435b8c...220fba
		t.Errorf("file package %+v, want integrity %s", got, sri256(script))
	}
	// pypi: the file list as sha256sum prints it, sorted by filename.
	names, _ := filepath.Glob("testdata/package/pypi-files/*")
	slices.Sort(names)
	var list strings.Builder
	for _, n := range names {
		b, _ := os.ReadFile(n)
		fmt.Fprintf(&list, "%x  %s\n", sha256.Sum256(b), filepath.Base(n))
	}
	if got := l.Servers["fetch"].Package; len(names) != 2 || got.Integrity != sri256([]byte(list.String())) || got.Registry == "" {
		t.Errorf("pypi package %+v, want integrity %s over\n%s", got, sri256([]byte(list.String())), list.String())
	}
	if l.Servers["remote"].Package != nil {
		t.Errorf("a server without a package got one")
	}
	want := map[string]Package{
		"memory": {Ecosystem: "npm", Name: "@modelcontextprotocol/server-memory", Version: "2026.8.31",
			Integrity: "sha512-ljj/3S4aGjxdNSQWw6gucKKGnTLdBPWxzapyY/MT2tOVyZwvxChvevXSLPwx59nKJAlVpUVW+cOlnVRXRwiqMQ=="},
		"toml": {Ecosystem: "go", Name: "github.com/BurntSushi/toml", Version: "v1.6.0", Integrity: "h1:dRaEfpa2VI55EwlIW72hMRHdWouJeRF7TPYhI+AUQjk="},
		"github": {Ecosystem: "oci", Name: "ghcr.io/github/github-mcp-server", Version: "latest",
			Integrity: fmt.Sprintf("sha256:%x", sha256.Sum256([]byte(`{"schemaVersion":2}`)))},
	}
	for name, w := range want {
		if got := l.Servers[name].Package; got == nil || *got != w {
			t.Errorf("%s: %+v, want %+v", name, got, w)
		}
	}
}

// TestPackageRoundTrip: a package built in Go survives Format and Parse,
// New (version 1) drops it, and a package change is a different server.
func TestPackageRoundTrip(t *testing.T) {
	st := Stamp{By: "agentgate@test", At: time.Date(2026, 8, 3, 12, 0, 0, 0, time.UTC)}
	srv := v2Server(t, true)
	d := sha512.Sum512([]byte("tarball"))
	pkg := &Package{Ecosystem: EcosystemNPM, Name: "@scope/pkg", Version: "1.4.2", Integrity: "sha512-" + base64.StdEncoding.EncodeToString(d[:])}
	srv.Package = pkg
	l := New(Version2, map[string]Server{"demo": srv}, st, nil)
	pkg.Version = "9.9.9" // the lockfile owns a copy
	data := Format(l)
	if !strings.Contains(string(data), `"version": "1.4.2"`) {
		t.Fatalf("the lockfile shares the caller's package:\n%s", data)
	}
	back, err := Parse(data)
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	if !SameServer(back.Servers["demo"], l.Servers["demo"]) {
		t.Errorf("round trip lost the package: %+v", back.Servers["demo"].Package)
	}
	// Member order: package after instructions, before tools.
	s := string(data)
	if i, j, k := strings.Index(s, `"instructions":`), strings.Index(s, `"package":`), strings.Index(s, `"tools":`); !(i < j && j < k) {
		t.Errorf("package not between instructions and tools:\n%s", s)
	}
	v1 := Format(New(Version1, map[string]Server{"demo": srv}, st, nil))
	if strings.Contains(string(v1), "package") {
		t.Errorf("a version 1 file got a package:\n%s", v1)
	}
	other := l.Servers["demo"]
	p2 := *other.Package
	p2.Version = "1.5.0"
	other.Package = &p2
	if SameServer(other, l.Servers["demo"]) {
		t.Errorf("SameServer ignores the package version")
	}
	other.Package = nil
	if SameServer(other, l.Servers["demo"]) {
		t.Errorf("SameServer ignores a dropped package")
	}
}

// TestPackageReaderRefuses: each malformed package member is a ParseError
// naming servers.NAME.package.MEMBER.
func TestPackageReaderRefuses(t *testing.T) {
	data, err := os.ReadFile(packagesGolden)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ from, to, path string }{
		{`"ecosystem": "npm"`, `"ecosystem": "cargo"`, `servers["memory"].package.ecosystem`},
		{`"ecosystem": "npm"`, `"ecosystem": "npm", "extra": "x"`, `servers["memory"].package.extra`},
		{`"version": "2026.8.31",`, ``, `servers["memory"].package`},
		{`"integrity": "sha512-ljj/`, `"integrity": "sha256-ljj/`, `servers["memory"].package.integrity`},
		{`"integrity": "sha512-ljj/3S4a`, `"integrity": "sha512-3S4a`, `servers["memory"].package.integrity`},
		{`"integrity": "h1:dRaE`, `"integrity": "h1:dRa`, `servers["toml"].package.integrity`},
		{`"version": "v1.6.0"`, `"version": ""`, `servers["toml"].package.version`},
		{`"integrity": "sha256:bafe`, `"integrity": "sha256:BAFE`, `servers["github"].package.integrity`},
		{`"version": "",`, `"version": "1.0",`, `servers["local"].package.version`},
		{`"name": "tools/server.js"`, `"name": "/etc/passwd"`, `servers["local"].package.name`},
		{`"name": "tools/server.js"`, `"name": "../x.js"`, `servers["local"].package.name`},
		{`"name": "mcp-server-fetch"`, `"name": ""`, `servers["fetch"].package.name`},
		{`"registry": "http://127.0.0.1:8080/simple"`, `"registry": ""`, `servers["fetch"].package.registry`},
		{`"registry": "http://127.0.0.1:8080/simple"`, `"registry": 1`, `servers["fetch"].package.registry`},
	} {
		bad := strings.Replace(string(data), c.from, c.to, 1)
		if bad == string(data) {
			t.Fatalf("%q not in the golden file", c.from)
		}
		_, err := Parse([]byte(bad))
		var pe *ParseError
		if !errors.As(err, &pe) || pe.Path != c.path {
			t.Errorf("%q -> %q: err = %v, want a ParseError at %s", c.from, c.to, err, c.path)
		}
	}
}

// TestPackageSchema: the version 2 schema accepts the golden file and
// refuses what the reader refuses in the package member's shape.
func TestPackageSchema(t *testing.T) {
	c := jsonschema.NewCompiler()
	sch, err := c.Compile("../docs/spec/agentgate.lock.v2.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(packagesGolden)
	validate := func(s string) error {
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(s))
		if err != nil {
			t.Fatal(err)
		}
		return sch.Validate(v)
	}
	if err := validate(string(data)); err != nil {
		t.Fatal(err)
	}
	for _, c := range [][2]string{
		{`"ecosystem": "npm"`, `"ecosystem": "cargo"`},
		{`"ecosystem": "npm"`, `"ecosystem": "npm", "extra": "x"`},
		{`"version": "2026.8.31",`, ``},
		{`"integrity": "sha512-ljj/`, `"integrity": "sha256-ljj/`},
		{`"integrity": "h1:dRaE`, `"integrity": "sha256-dRaE`},
		{`"integrity": "sha256:bafe`, `"integrity": "sha256:BAFE`},
		{`"version": "",`, `"version": "1.0",`},
		{`"integrity": "sha256-E0Nb`, `"integrity": "sha512-E0Nb`},
		{`"registry": "http://127.0.0.1:8080/simple"`, `"registry": ""`},
		{`"name": "tools/server.js"`, `"name": "/etc/passwd"`},
		{`"name": "tools/server.js"`, `"name": "../x.js"`},
	} {
		bad := strings.Replace(string(data), c[0], c[1], 1)
		if bad == string(data) {
			t.Fatalf("%q not in the golden file", c[0])
		}
		if validate(bad) == nil {
			t.Errorf("the schema accepts %q -> %q", c[0], c[1])
		}
	}
}

// TestComparePackages: a package change is a Changed server even with the
// same tools; a package locked for the first time and a registry-only
// change are not.
func TestComparePackages(t *testing.T) {
	data, err := os.ReadFile(packagesGolden)
	if err != nil {
		t.Fatal(err)
	}
	old, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	with := func(name string, edit func(p *Package) *Package) *Lockfile {
		l, _ := Parse(data)
		srv := l.Servers[name]
		var p *Package
		if srv.Package != nil {
			c := *srv.Package
			p = &c
		}
		srv.Package = edit(p)
		l.Servers[name] = srv
		return l
	}
	if d := Compare(old, old); !d.Empty() {
		t.Fatalf("self: %+v", d)
	}
	newVersion := with("memory", func(p *Package) *Package { p.Version, p.Integrity = "2026.9.1", "sha512-other"; return p })
	d := Compare(old, newVersion)
	if len(d.Servers) != 1 || d.Servers[0].Name != "memory" || d.Servers[0].Change != Changed || len(d.Servers[0].Tools) != 0 ||
		d.Servers[0].Package == nil || !slices.Equal(d.Servers[0].Package.Fields, []string{"version", "integrity"}) ||
		d.Servers[0].Package.Old.Version != "2026.8.31" || d.Servers[0].Package.New.Version != "2026.9.1" {
		t.Errorf("version change: %+v", d)
	}
	d = Compare(old, with("local", func(p *Package) *Package { p.Integrity = sri256([]byte("changed")); return p }))
	if len(d.Servers) != 1 || d.Servers[0].Package == nil || !slices.Equal(d.Servers[0].Package.Fields, []string{"integrity"}) {
		t.Errorf("file change: %+v", d)
	}
	d = Compare(old, with("memory", func(*Package) *Package { return nil }))
	if len(d.Servers) != 1 || d.Servers[0].Package == nil || d.Servers[0].Package.New != nil {
		t.Errorf("package gone: %+v", d)
	}
	if d := Compare(with("memory", func(*Package) *Package { return nil }), old); !d.Empty() {
		t.Errorf("a package locked for the first time is drift: %+v", d)
	}
	if d := Compare(old, with("fetch", func(p *Package) *Package { p.Registry = "http://127.0.0.1:9/simple"; return p })); !d.Empty() {
		t.Errorf("a registry-only change is drift: %+v", d)
	}
	// Drift needs no tool change, but the stamp is not kept: the locked
	// surface differs.
	st := Stamp{By: "agentgate@next", At: time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)}
	if l := New(Version2, newVersion.Servers, st, old); l.GeneratedBy != "agentgate@next" {
		t.Errorf("a package change kept the old stamp")
	}
	if l := New(Version2, old.Servers, st, old); l.GeneratedBy != "agentgate@test" {
		t.Errorf("an unchanged lockfile got a new stamp")
	}
}
