// Package auth is agentgate's OAuth 2.1 client for remote MCP servers, as
// the MCP authorization specification (2025-11-25, with the 2025-03-26
// fallbacks) describes it: discovery from a 401 (WWW-Authenticate,
// Protected Resource Metadata, Authorization Server Metadata), client
// identity (pre-registered, Client ID Metadata Document, Dynamic Client
// Registration), the authorization code grant with PKCE and a loopback
// redirect, the client credentials grant, refresh, and a token store (the
// OS credential store, else a file only the user can read).
//
// It talks to the network, so only agentgate-mcp links it; agentgate's
// `auth` subcommands run Serve in agentgate-mcp. docs/AUTH.md describes the
// flows and what comes from mcp-go, golang.org/x/oauth2 and this package.
//
// # What is refused
//
// Every document and endpoint must be https, or http on a loopback host
// (localhost, 127.0.0.0/8, ::1). A resource_metadata URL in
// WWW-Authenticate must have the server's origin; the resource that
// Protected Resource Metadata names must be the server's URL or a
// path-prefix of it on the same origin; Authorization Server Metadata must
// name the issuer it was fetched for. Redirects are not followed. Every
// response body is limited to MaxBodyBytes and every request to the
// server's timeout. A refusal is a *Error of kind ErrRefused; nothing is
// stored then.
package auth

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/agentgate/agentgate/mcp/config"
	"github.com/agentgate/agentgate/mcp/remote"
)

// MaxBodyBytes bounds every metadata, registration and token response.
const MaxBodyBytes = 1 << 20

// Grants agentgate.toml's oauth.grant may name.
const (
	GrantAuthorizationCode = "authorization_code"
	GrantClientCredentials = "client_credentials"
)

// Sentinels an *Error unwraps to.
var (
	// ErrLoginRequired: no usable token and no way to get one without a
	// person (a browser login is needed, and this run may not open one).
	ErrLoginRequired = errors.New("login required")
	// ErrRefused: the server or its authorization server sent something
	// agentgate refuses (see the package doc).
	ErrRefused = errors.New("refused")
	// ErrFailed: a step of the flow failed (unreachable, an OAuth error
	// reply, a timeout, a login that did not complete).
	ErrFailed = errors.New("authorization failed")
)

// Error is why a server could not be authorized. Msg never holds a token
// or a client secret.
type Error struct {
	Step string // e.g. "protected resource metadata", "token request"
	Msg  string
	Kind error // ErrLoginRequired, ErrRefused or ErrFailed
}

func (e *Error) Error() string {
	if e.Step == "" {
		return e.Msg
	}
	return e.Step + ": " + e.Msg
}

// Unwrap returns the sentinel classifying the error.
func (e *Error) Unwrap() error { return e.Kind }

func refused(step, format string, args ...any) *Error {
	return &Error{Step: step, Msg: fmt.Sprintf(format, args...), Kind: ErrRefused}
}

func failed(step, format string, args ...any) *Error {
	return &Error{Step: step, Msg: fmt.Sprintf(format, args...), Kind: ErrFailed}
}

// checkEndpoint refuses a URL that is not https, or http on a loopback
// host, or that carries userinfo or a fragment.
func checkEndpoint(step, raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || !u.IsAbs() {
		return nil, refused(step, "%q is not an absolute URL", raw)
	}
	switch {
	case u.User != nil:
		return nil, refused(step, "%s carries credentials in the URL", config.StripURL(u.String()))
	case u.Fragment != "":
		return nil, refused(step, "%s has a fragment", config.StripURL(u.String()))
	case u.Scheme == "https":
	case u.Scheme == "http" && remote.IsLoopback(u.Host):
	case u.Scheme == "http":
		return nil, refused(step, "%s is plain http on a host that is not loopback; OAuth endpoints must be https", config.StripURL(u.String()))
	default:
		return nil, refused(step, "%s: scheme %q is not https", config.StripURL(u.String()), u.Scheme)
	}
	return u, nil
}

// origin is scheme://host[:port], lowercased.
func origin(u *url.URL) string {
	return strings.ToLower(u.Scheme + "://" + u.Host)
}

// newHTTPClient returns the client for every OAuth request: no redirects,
// each request checked with checkEndpoint, every body limited to
// MaxBodyBytes, the whole exchange to timeout.
func newHTTPClient(base http.RoundTripper, timeout time.Duration) *http.Client {
	if base == nil {
		base = http.DefaultTransport.(*http.Transport).Clone()
	}
	return &http.Client{
		Transport: guardTripper{base},
		Timeout:   timeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			return refused("redirect", "%s answered with a redirect to %s; agentgate does not follow redirects in OAuth requests",
				config.StripURL(via[len(via)-1].URL.String()), config.StripURL(req.URL.String()))
		},
	}
}

type guardTripper struct{ base http.RoundTripper }

func (g guardTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	if _, err := checkEndpoint("request", req.URL.String()); err != nil {
		return nil, err
	}
	resp, err := g.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	resp.Body = &limitBody{rc: resp.Body, left: MaxBodyBytes, url: config.StripURL(req.URL.String())}
	return resp, nil
}

// errTooLarge is the error a limitBody returns once over MaxBodyBytes.
type errTooLarge struct{ url string }

func (e errTooLarge) Error() string {
	return fmt.Sprintf("the response from %s is larger than %d bytes", e.url, MaxBodyBytes)
}

type limitBody struct {
	rc   io.ReadCloser
	left int64
	url  string
}

func (b *limitBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// One byte more tells a body of exactly the limit from a longer one.
		var one [1]byte
		if n, _ := b.rc.Read(one[:]); n > 0 {
			return 0, errTooLarge{b.url}
		}
		return 0, io.EOF
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *limitBody) Close() error { return b.rc.Close() }

// classify turns an error of an HTTP exchange into an *Error.
func classify(step string, err error) *Error {
	var ae *Error
	if errors.As(err, &ae) {
		if ae.Step == "request" || ae.Step == "redirect" {
			return &Error{Step: step, Msg: ae.Msg, Kind: ae.Kind}
		}
		return ae
	}
	var tl errTooLarge
	if errors.As(err, &tl) {
		return refused(step, "%s", tl.Error())
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		if ue.Timeout() {
			return failed(step, "no answer from %s in time", config.StripURL(ue.URL))
		}
		return failed(step, "%s: %v", config.StripURL(ue.URL), ue.Err)
	}
	return failed(step, "%v", err)
}
