package render

// sbom.go: a CycloneDX 1.6 SBOM of the packages a version 2 lockfile pins
// (agentgate sbom; docs/sbom.md).

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"slices"
	"strings"

	"github.com/agentgate/agentgate/internal/safetext"
	"github.com/agentgate/agentgate/lock"
)

// SBOMInput is what SBOM reads: the parsed lockfile, its path relative to
// the repository root, the client config file that defines each server
// (slash paths; a server absent from it has no config property), and the
// version of agentgate writing the document.
type SBOMInput struct {
	Lockfile     *lock.Lockfile
	LockfilePath string
	ConfigFiles  map[string]string
	Version      string
}

type cdxBOM struct {
	BOMFormat   string         `json:"bomFormat"`
	SpecVersion string         `json:"specVersion"`
	Version     int            `json:"version"`
	Metadata    cdxMetadata    `json:"metadata"`
	Components  []cdxComponent `json:"components"`
}

type cdxMetadata struct {
	Tools      cdxTools      `json:"tools"`
	Properties []cdxProperty `json:"properties"`
}

type cdxTools struct {
	Components []cdxComponent `json:"components"`
}

type cdxComponent struct {
	Type       string        `json:"type"`
	BOMRef     string        `json:"bom-ref,omitempty"`
	Name       string        `json:"name"`
	Version    string        `json:"version,omitempty"`
	Purl       string        `json:"purl,omitempty"`
	Hashes     []cdxHash     `json:"hashes,omitempty"`
	Properties []cdxProperty `json:"properties,omitempty"`
}

type cdxHash struct {
	Alg     string `json:"alg"`
	Content string `json:"content"`
}

type cdxProperty struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// SBOM property names (the agentgate: namespace).
const (
	PropServer    = "agentgate:server"    // the server name in the lockfile and the client config
	PropConfig    = "agentgate:config"    // the client config file that defines the server
	PropLockfile  = "agentgate:lockfile"  // the lockfile the document was made from (metadata)
	PropIntegrity = "agentgate:integrity" // the lockfile's integrity string, as written
	PropRegistry  = "agentgate:registry"  // the registry the version was resolved from, when not the default
)

// SBOM returns a CycloneDX 1.6 JSON document listing, for every server of
// in.Lockfile whose entry pins a package (version 2; sorted by server
// name), one component:
//
//   - type "application" for npm, pypi and go, "container" for oci,
//     "file" for a file in the repository;
//   - bom-ref "server:NAME"; name and version as the lockfile has them;
//   - purl (none for a file): pkg:npm/NAME@VERSION (a scope as its
//     namespace, "%40scope"), pkg:pypi/NAME@VERSION, pkg:golang/MODULE@VERSION,
//     pkg:oci/LAST-SEGMENT@sha256%3A...?repository_url=REPO[&tag=TAG]
//     (Docker Hub names completed to docker.io/library/...); a non-default
//     registry adds repository_url to npm and pypi;
//   - hashes, where the integrity is a digest of the artefact itself:
//     SHA-512 of the npm tarball, SHA-256 of the OCI manifest, SHA-256 of
//     the file, as hex. PyPI's file-list hash and Go's h1: dirhash are not
//     digests of one artefact: they are only in the properties;
//   - properties agentgate:server, agentgate:config (when known),
//     agentgate:integrity and agentgate:registry (when set).
//
// Servers without a package (remote servers, commands no package is
// attributed to) have no component. The document has no timestamp and no
// serial number: the same lockfile gives the same bytes. '<', '>' and '&'
// are written as they are (purls read as purls); hidden characters and
// "##[" as safetext.VisibleJSON escapes them, as in every other report.
func SBOM(in SBOMInput) []byte {
	bom := cdxBOM{
		BOMFormat: "CycloneDX", SpecVersion: "1.6", Version: 1,
		Metadata: cdxMetadata{
			Tools:      cdxTools{Components: []cdxComponent{{Type: "application", Name: "agentgate", Version: in.Version}}},
			Properties: []cdxProperty{{Name: PropLockfile, Value: in.LockfilePath}},
		},
		Components: []cdxComponent{},
	}
	names := make([]string, 0, len(in.Lockfile.Servers))
	for n := range in.Lockfile.Servers {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		p := in.Lockfile.Servers[n].Package
		if p == nil {
			continue
		}
		bom.Components = append(bom.Components, sbomComponent(n, *p, in.ConfigFiles[n]))
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	enc.Encode(bom) // plain structs of strings: cannot fail
	return safetext.VisibleJSON(b.Bytes())
}

func sbomComponent(server string, p lock.Package, config string) cdxComponent {
	c := cdxComponent{BOMRef: "server:" + server, Name: p.Name, Version: p.Version, Type: "application"}
	switch p.Ecosystem {
	case lock.EcosystemNPM:
		c.Purl = npmPurl(p)
		c.Hashes = sriHash(p.Integrity, "sha512-", "SHA-512")
	case lock.EcosystemPyPI:
		c.Purl = "pkg:pypi/" + purlSegment(strings.ToLower(p.Name)) + "@" + purlSegment(p.Version) + registryQualifier(p.Registry)
	case lock.EcosystemGo:
		c.Purl = "pkg:golang/" + purlPath(p.Name) + "@" + purlSegment(p.Version)
	case lock.EcosystemOCI:
		c.Type = "container"
		c.Purl = ociPurl(p)
		if h, ok := strings.CutPrefix(p.Integrity, "sha256:"); ok {
			c.Hashes = []cdxHash{{Alg: "SHA-256", Content: h}}
		} else if h, ok := strings.CutPrefix(p.Integrity, "sha512:"); ok {
			c.Hashes = []cdxHash{{Alg: "SHA-512", Content: h}}
		}
	case lock.EcosystemFile:
		c.Type = "file"
		c.Hashes = sriHash(p.Integrity, "sha256-", "SHA-256")
	}
	c.Properties = []cdxProperty{{Name: PropServer, Value: server}}
	if config != "" {
		c.Properties = append(c.Properties, cdxProperty{Name: PropConfig, Value: config})
	}
	c.Properties = append(c.Properties, cdxProperty{Name: PropIntegrity, Value: p.Integrity})
	if p.Registry != "" {
		c.Properties = append(c.Properties, cdxProperty{Name: PropRegistry, Value: p.Registry})
	}
	return c
}

// sriHash converts a Subresource Integrity string ("sha512-" and base64)
// to a CycloneDX hash (hex); none when it is not of that form.
func sriHash(integrity, prefix, alg string) []cdxHash {
	enc, ok := strings.CutPrefix(integrity, prefix)
	if !ok {
		return nil
	}
	d, err := base64.StdEncoding.DecodeString(enc)
	if err != nil {
		return nil
	}
	return []cdxHash{{Alg: alg, Content: hex.EncodeToString(d)}}
}

// purlSegment percent-encodes one purl segment, name or version (the
// purl spec: everything but the unreserved A-Z a-z 0-9 - . _ ~).
func purlSegment(s string) string {
	return strings.ReplaceAll(url.QueryEscape(s), "+", "%20")
}

// purlPath percent-encodes each "/"-separated segment of a namespace/name.
func purlPath(s string) string {
	parts := strings.Split(s, "/")
	for i, p := range parts {
		parts[i] = purlSegment(p)
	}
	return strings.Join(parts, "/")
}

func npmPurl(p lock.Package) string {
	name := purlSegment(p.Name)
	if scope, rest, ok := strings.Cut(p.Name, "/"); ok && strings.HasPrefix(scope, "@") {
		name = purlSegment(scope) + "/" + purlSegment(rest)
	}
	return "pkg:npm/" + name + "@" + purlSegment(p.Version) + registryQualifier(p.Registry)
}

func registryQualifier(registry string) string {
	if registry == "" {
		return ""
	}
	return "?repository_url=" + qualifierValue(registry)
}

// qualifierValue percent-encodes a purl qualifier value, keeping "/" and
// ":" as the purl spec's examples do (repository_url=docker.io/library/x).
func qualifierValue(s string) string {
	return strings.NewReplacer("%2F", "/", "%3A", ":").Replace(url.QueryEscape(s))
}

// ociPurl is pkg:oci/NAME@DIGEST?repository_url=REPO&tag=TAG: NAME is the
// repository's last path segment, lowercased; REPO the repository with
// its registry host (docker.io, and library/ for one-segment names, when
// the reference names none).
func ociPurl(p lock.Package) string {
	repo := p.Name
	first, _, hasSlash := strings.Cut(repo, "/")
	if !hasSlash || !(strings.ContainsAny(first, ".:") || first == "localhost") {
		if !hasSlash {
			repo = "library/" + repo
		}
		repo = "docker.io/" + repo
	}
	name := strings.ToLower(repo[strings.LastIndex(repo, "/")+1:])
	q := "?repository_url=" + qualifierValue(repo)
	if p.Version != "" {
		q += "&tag=" + qualifierValue(p.Version)
	}
	return "pkg:oci/" + purlSegment(name) + "@" + purlSegment(p.Integrity) + q
}
