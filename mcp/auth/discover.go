package auth

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/agentgate/agentgate/mcp/config"
	"github.com/agentgate/agentgate/mcp/remote"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// Metadata is RFC 8414 Authorization Server Metadata (mcp-go's type) with
// the Client ID Metadata Document flag.
type Metadata struct {
	transport.AuthServerMetadata
	ClientIDMetadataDocumentSupported bool `json:"client_id_metadata_document_supported,omitempty"`
}

// Discovery is what agentgate learnt about how to authorize at a server.
type Discovery struct {
	ServerURL string
	// Resource is the RFC 8707 resource indicator: the resource that
	// Protected Resource Metadata names, else the server URL.
	Resource        string
	ScopesSupported []string // from Protected Resource Metadata
	Challenge       remote.BearerChallenge
	Issuer          string
	Metadata        Metadata
	// Legacy: no Protected Resource Metadata; the 2025-03-26 rules found
	// the authorization server (metadata at the server's origin, else the
	// default endpoints /authorize, /token, /register there).
	Legacy bool
}

// protectedResource is RFC 9728 Protected Resource Metadata.
type protectedResource struct {
	Resource             string   `json:"resource"`
	AuthorizationServers []string `json:"authorization_servers"`
	ScopesSupported      []string `json:"scopes_supported"`
}

// Discover finds the authorization server of the MCP server at serverURL,
// which answered 401 with challenge ch:
//
//  1. Protected Resource Metadata from ch.ResourceMetadata (same origin as
//     the server only), else /.well-known/oauth-protected-resource with the
//     server URL's path appended, else at the root;
//  2. the first authorization server it lists, whose metadata is tried at,
//     for an issuer with a path, /.well-known/oauth-authorization-server/PATH,
//     /.well-known/openid-configuration/PATH, /PATH/.well-known/openid-configuration,
//     and for one without, /.well-known/oauth-authorization-server then
//     /.well-known/openid-configuration;
//  3. without Protected Resource Metadata (2025-03-26 servers): metadata at
//     /.well-known/oauth-authorization-server of the server's origin, else
//     the default endpoints /authorize, /token and /register there.
func Discover(ctx context.Context, hc *http.Client, serverURL string, ch remote.BearerChallenge) (*Discovery, error) {
	su, err := checkEndpoint("server url", serverURL)
	if err != nil {
		return nil, err
	}
	d := &Discovery{ServerURL: serverURL, Challenge: ch, Resource: canonicalResource(su)}
	var candidates []string
	if ch.ResourceMetadata != "" {
		u, err := checkEndpoint("resource_metadata in WWW-Authenticate", ch.ResourceMetadata)
		if err != nil {
			return nil, err
		}
		if origin(u) != origin(su) {
			return nil, refused("resource_metadata in WWW-Authenticate",
				"%s is not on the server's origin %s; agentgate fetches protected resource metadata only from the server itself", config.StripURL(u.String()), origin(su))
		}
		candidates = append(candidates, u.String())
	}
	root := origin(su) + "/.well-known/oauth-protected-resource"
	if p := strings.TrimSuffix(su.EscapedPath(), "/"); p != "" {
		candidates = append(candidates, root+p)
	}
	candidates = append(candidates, root)
	var prm *protectedResource
	for _, c := range slices.Compact(candidates) {
		var doc protectedResource
		ok, err := getJSON(ctx, hc, "protected resource metadata", c, &doc)
		if err != nil {
			return nil, err
		}
		if ok {
			prm = &doc
			break
		}
	}
	if prm == nil {
		return d, discoverLegacy(ctx, hc, d, su)
	}
	if prm.Resource == "" {
		return nil, refused("protected resource metadata", "it names no resource")
	}
	if !resourceBinds(prm.Resource, su) {
		return nil, refused("protected resource metadata", "it is for resource %q, not for the server %s", prm.Resource, config.StripURL(su.String()))
	}
	d.Resource = prm.Resource
	d.ScopesSupported = prm.ScopesSupported
	if len(prm.AuthorizationServers) == 0 {
		return nil, refused("protected resource metadata", "it lists no authorization server")
	}
	issuer := prm.AuthorizationServers[0]
	iu, err := checkEndpoint("authorization server", issuer)
	if err != nil {
		return nil, err
	}
	if iu.RawQuery != "" {
		return nil, refused("authorization server", "issuer %s has a query", config.StripURL(iu.String()))
	}
	d.Issuer = issuer
	for _, c := range metadataURLs(iu) {
		var m Metadata
		ok, err := getJSON(ctx, hc, "authorization server metadata", c, &m)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if strings.TrimSuffix(m.Issuer, "/") != strings.TrimSuffix(issuer, "/") {
			return nil, refused("authorization server metadata", "%s names issuer %q, not %q", config.StripURL(c), m.Issuer, issuer)
		}
		if err := checkMetadata(&m); err != nil {
			return nil, err
		}
		d.Metadata = m
		return d, nil
	}
	return nil, failed("authorization server metadata", "none found for %s (tried %s)", issuer, strings.Join(metadataURLs(iu), ", "))
}

// discoverLegacy applies the 2025-03-26 rules (see Discover).
func discoverLegacy(ctx context.Context, hc *http.Client, d *Discovery, su *url.URL) error {
	d.Legacy = true
	base := origin(su)
	d.Issuer = base
	var m Metadata
	ok, err := getJSON(ctx, hc, "authorization server metadata", base+"/.well-known/oauth-authorization-server", &m)
	if err != nil {
		return err
	}
	if ok {
		iu, err := checkEndpoint("authorization server metadata", m.Issuer)
		if err != nil {
			return err
		}
		if origin(iu) != base {
			return refused("authorization server metadata", "issuer %q is not on the server's origin %s", m.Issuer, base)
		}
		if err := checkMetadata(&m); err != nil {
			return err
		}
		d.Metadata = m
		return nil
	}
	d.Metadata.Issuer = base
	d.Metadata.AuthorizationEndpoint = base + "/authorize"
	d.Metadata.TokenEndpoint = base + "/token"
	d.Metadata.RegistrationEndpoint = base + "/register"
	return nil
}

// metadataURLs lists where the metadata of issuer iu may be, in the order
// the MCP specification gives.
func metadataURLs(iu *url.URL) []string {
	o := origin(iu)
	p := strings.Trim(iu.EscapedPath(), "/")
	if p == "" {
		return []string{o + "/.well-known/oauth-authorization-server", o + "/.well-known/openid-configuration"}
	}
	return []string{
		o + "/.well-known/oauth-authorization-server/" + p,
		o + "/.well-known/openid-configuration/" + p,
		o + "/" + p + "/.well-known/openid-configuration",
	}
}

// checkMetadata checks every endpoint agentgate may use.
func checkMetadata(m *Metadata) error {
	for _, f := range []struct{ name, v string }{
		{"authorization_endpoint", m.AuthorizationEndpoint},
		{"token_endpoint", m.TokenEndpoint},
		{"registration_endpoint", m.RegistrationEndpoint},
	} {
		if f.v == "" {
			continue
		}
		if _, err := checkEndpoint("authorization server metadata: "+f.name, f.v); err != nil {
			return err
		}
	}
	if m.TokenEndpoint == "" {
		return refused("authorization server metadata", "it has no token_endpoint")
	}
	return nil
}

// canonicalResource is the server URL as an RFC 8707 resource: no
// fragment, no query, lowercase scheme and host.
func canonicalResource(u *url.URL) string {
	c := *u
	c.Scheme, c.Host = strings.ToLower(c.Scheme), strings.ToLower(c.Host)
	c.RawQuery, c.ForceQuery, c.Fragment, c.RawFragment, c.User = "", false, "", "", nil
	return c.String()
}

// resourceBinds reports whether resource names the server at su: the same
// origin, and a path equal to su's or a prefix of it ending at a "/".
func resourceBinds(resource string, su *url.URL) bool {
	ru, err := url.Parse(resource)
	if err != nil || origin(ru) != origin(su) || ru.RawQuery != "" || ru.Fragment != "" || ru.User != nil {
		return false
	}
	rp := strings.TrimSuffix(ru.EscapedPath(), "/")
	sp := strings.TrimSuffix(su.EscapedPath(), "/")
	return rp == sp || strings.HasPrefix(sp, rp+"/")
}

// getJSON GETs raw into v. It reports false, without error, for a 4xx or
// 5xx answer (the document is not there); an unreachable host, a redirect,
// an oversized or malformed document are errors.
func getJSON(ctx context.Context, hc *http.Client, step, raw string, v any) (bool, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, raw, nil)
	if err != nil {
		return false, failed(step, "%v", err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("MCP-Protocol-Version", mcp.LATEST_LEGACY_PROTOCOL_VERSION)
	resp, err := hc.Do(req)
	if err != nil {
		return false, classify(step, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		io.Copy(io.Discard, resp.Body)
		return false, nil
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return false, classify(step, err)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return false, refused(step, "%s is not a JSON object: %v", config.StripURL(raw), shortErr(err))
	}
	return true, nil
}

func shortErr(err error) string {
	s := err.Error()
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}

var _ = fmt.Sprintf
