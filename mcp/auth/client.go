package auth

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/agentgate/agentgate/mcp/config"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
)

// Token endpoint client authentication methods (RFC 7591 §2).
const (
	methodBasic = "client_secret_basic"
	methodPost  = "client_secret_post"
	methodNone  = "none"
)

// Client is how agentgate identifies itself to an authorization server.
type Client struct {
	ID     string
	Secret string // "" for a public client
	Method string // methodBasic, methodPost or methodNone
	// Source says where the identity came from: "agentgate.toml",
	// "client ID metadata document" or "dynamic registration".
	Source string
}

// authMethod picks how a client with (or without) a secret authenticates
// at the token endpoint, from the methods the server advertises: none for
// a public client; else client_secret_basic when listed (or when nothing
// is listed: RFC 8414's default), else client_secret_post, else none.
func authMethod(hasSecret bool, supported []string) string {
	switch {
	case !hasSecret:
		return methodNone
	case len(supported) == 0 || slices.Contains(supported, methodBasic):
		return methodBasic
	case slices.Contains(supported, methodPost):
		return methodPost
	case slices.Contains(supported, methodNone):
		return methodNone
	}
	return methodBasic
}

// identify returns the client for d in the order the MCP specification
// gives: the client configured in agentgate.toml (a client-id that is an
// https URL is a Client ID Metadata Document, used as is when the server
// supports them); else Dynamic Client Registration at the server's
// registration_endpoint, registering redirectURI.
func identify(ctx context.Context, hc *http.Client, d *Discovery, s Server, redirectURI string) (Client, error) {
	if s.ClientID != "" {
		c := Client{ID: s.ClientID, Secret: s.ClientSecret, Source: "agentgate.toml"}
		c.Method = authMethod(c.Secret != "", d.Metadata.TokenEndpointAuthMethodsSupported)
		if isCIMD(s.ClientID) && c.Secret == "" {
			if !d.Metadata.ClientIDMetadataDocumentSupported {
				return Client{}, failed("client identity", "client-id %s is a client ID metadata document URL, but the authorization server %s does not support them (client_id_metadata_document_supported)", s.ClientID, d.Issuer)
			}
			c.Source = "client ID metadata document"
		}
		return c, nil
	}
	if d.Metadata.RegistrationEndpoint == "" {
		return Client{}, failed("client identity", "the authorization server %s offers no dynamic client registration", d.Issuer)
	}
	return register(ctx, hc, d, redirectURI)
}

// isCIMD reports whether id is a Client ID Metadata Document URL: https
// with a path.
func isCIMD(id string) bool {
	u, err := url.Parse(id)
	return err == nil && u.Scheme == "https" && u.Host != "" && strings.Trim(u.Path, "/") != ""
}

// register performs RFC 7591 Dynamic Client Registration for a native
// client with a loopback redirect.
func register(ctx context.Context, hc *http.Client, d *Discovery, redirectURI string) (Client, error) {
	const step = "dynamic client registration"
	supported := d.Metadata.TokenEndpointAuthMethodsSupported
	method := methodNone
	if len(supported) > 0 && !slices.Contains(supported, methodNone) {
		method = authMethod(true, supported)
	}
	body, _ := json.Marshal(map[string]any{
		"client_name":                "agentgate",
		"redirect_uris":              []string{redirectURI},
		"grant_types":                []string{"authorization_code", "refresh_token"},
		"response_types":             []string{"code"},
		"token_endpoint_auth_method": method,
	})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.Metadata.RegistrationEndpoint, bytes.NewReader(body))
	if err != nil {
		return Client{}, failed(step, "%v", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return Client{}, classify(step, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return Client{}, classify(step, err)
	}
	if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK {
		return Client{}, failed(step, "HTTP %d%s", resp.StatusCode, oauthErrorText(data))
	}
	var r struct {
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
		Method       string `json:"token_endpoint_auth_method"`
	}
	if err := json.Unmarshal(data, &r); err != nil || r.ClientID == "" {
		return Client{}, refused(step, "the answer has no client_id")
	}
	c := Client{ID: r.ClientID, Secret: r.ClientSecret, Method: r.Method, Source: "dynamic registration"}
	if c.Method != methodBasic && c.Method != methodPost && c.Method != methodNone {
		c.Method = authMethod(c.Secret != "", supported)
	}
	return c, nil
}

// oauthErrorText is ": error (description)" from an OAuth error body, or
// "". The description is cut to 200 bytes and made printable by the
// caller's escaping.
func oauthErrorText(body []byte) string {
	var e struct {
		Error       string `json:"error"`
		Description string `json:"error_description"`
	}
	if json.Unmarshal(body, &e) != nil || e.Error == "" {
		return ""
	}
	s := ": " + e.Error
	if e.Description != "" {
		if len(e.Description) > 200 {
			e.Description = e.Description[:200] + "..."
		}
		s += " (" + e.Description + ")"
	}
	return s
}

// tokenRequest sends one token request (RFC 6749 §3.2) of any grant
// through golang.org/x/oauth2, which authenticates the client with
// c.Method and decodes the answer. params must hold grant_type.
func tokenRequest(ctx context.Context, hc *http.Client, tokenURL string, c Client, params url.Values) (*oauth2.Token, error) {
	const step = "token request"
	cfg := clientcredentials.Config{ClientID: c.ID, TokenURL: tokenURL, EndpointParams: params, AuthStyle: oauth2.AuthStyleInParams}
	switch c.Method {
	case methodBasic:
		cfg.ClientSecret, cfg.AuthStyle = c.Secret, oauth2.AuthStyleInHeader
	case methodPost:
		cfg.ClientSecret = c.Secret
	}
	tok, err := cfg.Token(context.WithValue(ctx, oauth2.HTTPClient, hc))
	if err != nil {
		var re *oauth2.RetrieveError
		if errors.As(err, &re) {
			// The body may echo what was sent: show only the OAuth error.
			// The code and the description may echo a credential the
			// request sent: redacted first, then cut.
			msg := "HTTP " + re.Response.Status
			if re.ErrorCode != "" {
				held := sentCredentials(c, params)
				msg = held.Clip(re.ErrorCode, 200, false)
				if re.ErrorDescription != "" {
					msg += " (" + held.Clip(re.ErrorDescription, 200, false) + ")"
				}
			}
			return nil, failed(step, "%s refused: %s", config.StripURL(tokenURL), msg)
		}
		if strings.Contains(err.Error(), "missing access_token") {
			return nil, refused(step, "the answer of %s has no access_token", config.StripURL(tokenURL))
		}
		return nil, classify(step, unwrapURLError(err))
	}
	if tok.TokenType != "" && !strings.EqualFold(tok.TokenType, "bearer") {
		return nil, refused(step, "token type %q is not Bearer", tok.TokenType)
	}
	return tok, nil
}

// sentCredentials is, for redaction, every credential a token request
// sends: the client secret (and "id:secret", whose base64 is the Basic
// credential), and the refresh token, authorization code and PKCE
// verifier among params.
func sentCredentials(c Client, params url.Values) config.Resolved {
	var r config.Resolved
	if c.Secret != "" {
		r.Secrets = append(r.Secrets, c.Secret, c.ID+":"+c.Secret, url.QueryEscape(c.ID)+":"+url.QueryEscape(c.Secret))
	}
	for _, k := range []string{"refresh_token", "code", "code_verifier", "client_secret"} {
		if v := params.Get(k); v != "" {
			r.Secrets = append(r.Secrets, v)
		}
	}
	return r
}

// unwrapURLError finds the *url.Error (or *Error) inside an x/oauth2 error.
func unwrapURLError(err error) error {
	var ae *Error
	if errors.As(err, &ae) {
		return ae
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue
	}
	return err
}

// clientCredentials gets a token with the client credentials grant.
func clientCredentials(ctx context.Context, hc *http.Client, d *Discovery, s Server) (*Entry, error) {
	if s.ClientID == "" || s.ClientSecret == "" {
		return nil, failed("client credentials", "grant = \"client_credentials\" needs client-id and client-secret-env in [servers.%s.oauth] of agentgate.toml", s.Name)
	}
	c := Client{ID: s.ClientID, Secret: s.ClientSecret, Source: "agentgate.toml"}
	c.Method = authMethod(true, d.Metadata.TokenEndpointAuthMethodsSupported)
	params := url.Values{"grant_type": {GrantClientCredentials}, "resource": {d.Resource}}
	if sc := selectScope(s, d); sc != "" {
		params.Set("scope", sc)
	}
	tok, err := tokenRequest(ctx, hc, d.Metadata.TokenEndpoint, c, params)
	if err != nil {
		return nil, err
	}
	return newEntry(s, d, c, tok), nil
}

// refresh renews e's access token with its refresh token, sending the
// resource again (RFC 8707 §2.2). A new refresh token replaces the old one.
// secret is the agentgate.toml client secret, which entries never hold.
func refresh(ctx context.Context, hc *http.Client, e *Entry, secret string) (*Entry, error) {
	params := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {e.RefreshToken}}
	if e.Resource != "" {
		params.Set("resource", e.Resource)
	}
	c := Client{ID: e.ClientID, Secret: e.ClientSecret, Method: e.AuthMethod}
	if c.Secret == "" {
		c.Secret = secret
	}
	tok, err := tokenRequest(ctx, hc, e.TokenURL, c, params)
	if err != nil {
		return nil, err
	}
	n := *e
	n.AccessToken, n.Expiry = tok.AccessToken, tok.Expiry
	if tok.RefreshToken != "" {
		n.RefreshToken = tok.RefreshToken
	}
	if sc, ok := tok.Extra("scope").(string); ok && sc != "" {
		n.Scope = sc
	}
	n.Updated = time.Now().UTC().Truncate(time.Second)
	return &n, nil
}

// selectScope is the scope to ask for: agentgate.toml's scopes, else the
// scope of the 401 challenge, else every scope of scopes_supported in
// Protected Resource Metadata, else none (the parameter is left out).
func selectScope(s Server, d *Discovery) string {
	switch {
	case len(s.Scopes) > 0:
		return strings.Join(s.Scopes, " ")
	case d.Challenge.Scope != "":
		return d.Challenge.Scope
	case len(d.ScopesSupported) > 0:
		return strings.Join(d.ScopesSupported, " ")
	}
	return ""
}
