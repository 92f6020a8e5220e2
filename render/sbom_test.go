package render

import (
	"bytes"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/agentgate/agentgate/internal/testing/testenv"
	"github.com/agentgate/agentgate/lock"
)

// cycloneDXSchema compiles the CycloneDX 1.6 JSON schema (and the SPDX
// licence and JSF signature schemas it references) as
// @cyclonedx/cyclonedx-library ships them (testdata/cyclonedx, installed
// by scripts/test.sh).
func cycloneDXSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	dir := filepath.Join("..", "testdata", "cyclonedx", "node_modules", "@cyclonedx", "cyclonedx-library", "res", "schema")
	if _, err := os.Stat(filepath.Join(dir, "bom-1.6.SNAPSHOT.schema.json")); err != nil {
		testenv.Missing(t, "the CycloneDX schemas are not installed: run scripts/test.sh (npm ci --prefix testdata/cyclonedx)")
	}
	c := jsonschema.NewCompiler()
	for _, f := range []string{"bom-1.6.SNAPSHOT.schema.json", "spdx.SNAPSHOT.schema.json", "jsf-0.82.SNAPSHOT.schema.json"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if err := c.AddResource("http://cyclonedx.org/schema/"+f, doc); err != nil {
			t.Fatal(err)
		}
	}
	sch, err := c.Compile("http://cyclonedx.org/schema/bom-1.6.SNAPSHOT.schema.json")
	if err != nil {
		t.Fatalf("compile the CycloneDX 1.6 schema: %v", err)
	}
	return sch
}

func sbomLockfile() (*lock.Lockfile, map[string][]byte) {
	artefacts := map[string][]byte{"npm": []byte("tarball of @modelcontextprotocol/server-memory 2026.1.26"), "file": []byte("#!/bin/sh\nexec node server.js\n")}
	sri512 := sha512.Sum512(artefacts["npm"])
	sri256 := sha256.Sum256(artefacts["file"])
	h1 := sha256.Sum256([]byte("go.sum summary"))
	list := sha256.Sum256([]byte("file list"))
	srv := func(p *lock.Package) lock.Server {
		s := lock.Server{SurfaceHash: "sha256:00", Tools: []lock.Tool{}}
		s.Package = p
		return s
	}
	return &lock.Lockfile{LockfileVersion: lock.Version2, Servers: map[string]lock.Server{
		"memory":  srv(&lock.Package{Ecosystem: lock.EcosystemNPM, Name: "@modelcontextprotocol/server-memory", Version: "2026.1.26", Integrity: "sha512-" + base64.StdEncoding.EncodeToString(sri512[:])}),
		"private": srv(&lock.Package{Ecosystem: lock.EcosystemNPM, Name: "tool", Version: "1.0.0", Integrity: "sha512-" + base64.StdEncoding.EncodeToString(sri512[:]), Registry: "http://127.0.0.1:4873/"}),
		"fetch":   srv(&lock.Package{Ecosystem: lock.EcosystemPyPI, Name: "mcp-server-fetch", Version: "2025.4.7", Integrity: "sha256-" + base64.StdEncoding.EncodeToString(list[:])}),
		"gh":      srv(&lock.Package{Ecosystem: lock.EcosystemGo, Name: "github.com/github/github-mcp-server", Version: "v0.9.0", Integrity: "h1:" + base64.StdEncoding.EncodeToString(h1[:])}),
		"pg":      srv(&lock.Package{Ecosystem: lock.EcosystemOCI, Name: "postgres", Version: "17", Integrity: "sha256:" + strings.Repeat("ab", 32)}),
		"ghcr":    srv(&lock.Package{Ecosystem: lock.EcosystemOCI, Name: "ghcr.io/Org/Img", Integrity: "sha256:" + strings.Repeat("cd", 32)}),
		"script":  srv(&lock.Package{Ecosystem: lock.EcosystemFile, Name: "tools/srv.sh", Integrity: "sha256-" + base64.StdEncoding.EncodeToString(sri256[:])}),
		"remote":  srv(nil),
	}}, artefacts
}

// TestSBOM: the document validates against CycloneDX 1.6; one component
// per server that pins a package, sorted, with the purl the purl spec
// gives (written out by hand here), hashes recomputed from the artefacts'
// bytes, and the config file as a property.
func TestSBOM(t *testing.T) {
	sch := cycloneDXSchema(t)
	lf, art := sbomLockfile()
	out := SBOM(SBOMInput{Lockfile: lf, LockfilePath: "agentgate.lock", Version: "v1.2.3",
		ConfigFiles: map[string]string{"memory": ".mcp.json", "fetch": ".vscode/mcp.json"}})
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(doc); err != nil {
		t.Fatalf("not a valid CycloneDX 1.6 document: %v\n%s", err, out)
	}
	var bom struct {
		BOMFormat, SpecVersion string
		Components             []struct {
			Type, Name, Version, Purl string
			BOMRef                    string `json:"bom-ref"`
			Hashes                    []struct{ Alg, Content string }
			Properties                []struct{ Name, Value string }
		}
	}
	if err := json.Unmarshal(out, &bom); err != nil {
		t.Fatal(err)
	}
	if bom.BOMFormat != "CycloneDX" || bom.SpecVersion != "1.6" {
		t.Errorf("bomFormat %q specVersion %q", bom.BOMFormat, bom.SpecVersion)
	}
	npmHash := sha512.Sum512(art["npm"])
	fileHash := sha256.Sum256(art["file"])
	want := []struct{ ref, typ, purl, hash string }{
		{"server:fetch", "application", "pkg:pypi/mcp-server-fetch@2025.4.7", ""},
		{"server:gh", "application", "pkg:golang/github.com/github/github-mcp-server@v0.9.0", ""},
		{"server:ghcr", "container", "pkg:oci/img@sha256%3A" + strings.Repeat("cd", 32) + "?repository_url=ghcr.io/Org/Img", "SHA-256:" + strings.Repeat("cd", 32)},
		{"server:memory", "application", "pkg:npm/%40modelcontextprotocol/server-memory@2026.1.26", "SHA-512:" + hex.EncodeToString(npmHash[:])},
		{"server:pg", "container", "pkg:oci/postgres@sha256%3A" + strings.Repeat("ab", 32) + "?repository_url=docker.io/library/postgres&tag=17", "SHA-256:" + strings.Repeat("ab", 32)},
		{"server:private", "application", "pkg:npm/tool@1.0.0?repository_url=http://127.0.0.1:4873/", "SHA-512:" + hex.EncodeToString(npmHash[:])},
		{"server:script", "file", "", "SHA-256:" + hex.EncodeToString(fileHash[:])},
	}
	if len(bom.Components) != len(want) {
		t.Fatalf("%d components, want %d (no component for the remote server):\n%s", len(bom.Components), len(want), out)
	}
	for i, w := range want {
		c := bom.Components[i]
		hash := ""
		if len(c.Hashes) == 1 {
			hash = c.Hashes[0].Alg + ":" + c.Hashes[0].Content
		}
		if c.BOMRef != w.ref || c.Type != w.typ || c.Purl != w.purl || hash != w.hash {
			t.Errorf("component %d: ref %q type %q purl %q hash %q\nwant      ref %q type %q purl %q hash %q", i, c.BOMRef, c.Type, c.Purl, hash, w.ref, w.typ, w.purl, w.hash)
		}
		props := map[string]string{}
		for _, p := range c.Properties {
			props[p.Name] = p.Value
		}
		if props[PropServer] != strings.TrimPrefix(w.ref, "server:") || props[PropIntegrity] == "" {
			t.Errorf("%s: properties %v", w.ref, props)
		}
	}
	if cfg := bom.Components[3].Properties[1]; cfg.Name != PropConfig || cfg.Value != ".mcp.json" {
		t.Errorf("memory: config property %v, want .mcp.json", cfg)
	}
	if again := SBOM(SBOMInput{Lockfile: lf, LockfilePath: "agentgate.lock", Version: "v1.2.3",
		ConfigFiles: map[string]string{"memory": ".mcp.json", "fetch": ".vscode/mcp.json"}}); !bytes.Equal(again, out) {
		t.Error("two runs over one lockfile differ")
	}
}

// TestSBOMSchemaCatches: the schema check is not vacuous.
func TestSBOMSchemaCatches(t *testing.T) {
	sch := cycloneDXSchema(t)
	lf, _ := sbomLockfile()
	out := SBOM(SBOMInput{Lockfile: lf, LockfilePath: "agentgate.lock", Version: "v1.2.3"})
	bad := bytes.Replace(out, []byte(`"alg": "SHA-512"`), []byte(`"alg": "sha512"`), 1)
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(bad))
	if err != nil {
		t.Fatal(err)
	}
	if sch.Validate(doc) == nil {
		t.Error("an unknown hash algorithm passed the CycloneDX schema")
	}
}

// TestSBOMHostileNames: server and package names from configs and
// registries (quotes, a newline, a bidi override, "</script>") stay JSON
// strings: the document still validates and decodes to the same names,
// and the bidi override is written escaped.
func TestSBOMHostileNames(t *testing.T) {
	sch := cycloneDXSchema(t)
	sum := sha512.Sum512([]byte("x"))
	name := "evil\",\"purl\":\"pkg:npm/x\n\u202e</script>"
	lf := &lock.Lockfile{LockfileVersion: lock.Version2, Servers: map[string]lock.Server{name: {Tools: []lock.Tool{}}}}
	srv := lf.Servers[name]
	srv.Package = &lock.Package{Ecosystem: lock.EcosystemNPM, Name: "@a/" + name, Version: "1.0.0&x=1", Integrity: "sha512-" + base64.StdEncoding.EncodeToString(sum[:])}
	lf.Servers[name] = srv
	out := SBOM(SBOMInput{Lockfile: lf, LockfilePath: "agentgate.lock", ConfigFiles: map[string]string{name: name}})
	if bytes.ContainsRune(out, '\u202e') || !bytes.Contains(out, []byte(`\u202e`)) {
		t.Errorf("the bidi override is not escaped (safetext.VisibleJSON):\n%s", out)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(doc); err != nil {
		t.Fatalf("invalid: %v\n%s", err, out)
	}
	var bom struct {
		Components []struct {
			Name, Version, Purl string
			Properties          []struct{ Name, Value string }
		}
	}
	if err := json.Unmarshal(out, &bom); err != nil {
		t.Fatal(err)
	}
	c := bom.Components[0]
	if c.Name != "@a/"+name || c.Version != "1.0.0&x=1" || c.Properties[0].Value != name || c.Properties[1].Value != name {
		t.Errorf("names changed: %+v", c)
	}
	if strings.ContainsAny(c.Purl, "\"\n\u202e<>&") || strings.Count(c.Purl, "@") != 1 {
		t.Errorf("purl %q: the name and version are not percent-encoded", c.Purl)
	}
}
