// Package remote is how agentgate-mcp reaches a remote MCP server (an
// http or sse server): the HTTP policy capture and the bridge share, so
// that a guarded remote server is reached exactly as it was captured.
//
// Every request (including a session's DELETE on close) carries the
// configured headers, but only to the configured scheme, host and port:
// a redirect to another origin is followed without them, and is refused
// unless the server's settings allow it (cross-origin-redirects); no
// request carries a Referer. The stored OAuth token is sent (unless the
// configuration sets its own Authorization header), with a login on a
// Bearer challenge. A response body larger than the bound (for event
// streams: one line or one event's data) is an error; with CheckMembers,
// every JSON body and event is checked with jsonrpc.CheckMembersOf (and
// an Exchange) before the reader gets it. URLs are printed without
// userinfo, query or fragment (config.StripURL).
package remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/agentgate/agentgate/mcp/config"
	"github.com/agentgate/agentgate/mcp/jsonrpc"
	"github.com/agentgate/agentgate/mcp/wire"
)

// Options configure New.
type Options struct {
	// MaxResponseBytes bounds a response body or, for an event stream,
	// one line and one event's data; 0 = wire.DefaultMaxResponseBytes. A read
	// past it fails with ErrResponseTooLarge after OnTooLarge.
	MaxResponseBytes int64
	// CheckMembers refuses a JSON body or event whose members
	// jsonrpc.CheckMembersOf refuses (capture's rule), after OnAmbiguous.
	// A bridge leaves that check to its reader.
	CheckMembers bool
	// Exchange, with CheckMembers, records every request body sent and
	// checks every JSON body and event received (Exchange.Received); a
	// refused one fails like an ambiguous one, after OnAmbiguous. nil:
	// answers are not matched with requests.
	Exchange *jsonrpc.Exchange
	// Auth supplies the server's OAuth token (mcp/auth's ForServer); nil:
	// none.
	Auth        Authorizer
	OnTooLarge  func()      // nil: nothing
	OnAmbiguous func(error) // nil: nothing
	// OnEvent, with CheckMembers, gets the data of each event of an event
	// stream that CheckMembersOf accepted (a copy); nil: nothing.
	OnEvent func(data []byte)
	// Refuse turns the message of a refused redirect into the error the
	// request fails with; nil: errors.New.
	Refuse func(msg string) error
}

// Authorizer supplies one remote server's OAuth token (mcp/auth's Source).
type Authorizer interface {
	// Header is the Authorization header for a request to the server, ""
	// for none. It never opens a browser.
	Header(ctx context.Context) string
	// Authorize gets a new token after the server answered 401 with the
	// Bearer challenge ch, and returns the header that carries it.
	Authorize(ctx context.Context, ch BearerChallenge) (string, error)
	// Credentials lists every credential it has held, for redaction.
	Credentials() []string
}

// Client is the HTTP client capture reaches one remote server with: the
// configured headers on requests to the configured origin only (never on
// a redirect elsewhere), no Referer, the stored OAuth token (unless the
// configuration sets its own Authorization header) with a login on a
// Bearer challenge, at most maxRedirects redirects and none to another
// origin unless the server allows it (cross-origin-redirects), and
// bounded bodies (see Options). agentgate-mcp's bridge uses it too, so a
// guarded remote server is reached exactly as capture reaches it.
type Client struct {
	HTTP   *http.Client
	r      config.Resolved
	rt     *httpTripper
	refuse func(string) error
}

// errCannotResend is why a request whose body cannot be read again was
// not retried with a new token.
var errCannotResend = errors.New("cannot send the request again with the new token")

// ErrResponseTooLarge is the read error of a body over the limit.
var ErrResponseTooLarge = errBodyTooLarge

// New returns the Client of r (an http or sse server, variables
// resolved). The error is for a URL that is not http(s), and names it.
func New(r config.Resolved, o Options) (*Client, error) {
	u, err := url.Parse(r.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("url %q is not an http(s) URL (check \"url\" in %s)", config.StripURL(r.URL), r.File)
	}
	if o.MaxResponseBytes <= 0 {
		o.MaxResponseBytes = wire.DefaultMaxResponseBytes
	}
	m := &Client{r: r, refuse: o.Refuse}
	if m.refuse == nil {
		m.refuse = func(msg string) error { return errors.New(msg) }
	}
	m.rt = &httpTripper{
		base:        http.DefaultTransport.(*http.Transport).Clone(),
		origin:      u.Scheme + "://" + u.Host,
		headers:     r.Headers,
		max:         o.MaxResponseBytes,
		check:       o.CheckMembers,
		exchange:    o.Exchange,
		onTooLarge:  o.OnTooLarge,
		onAmbiguous: o.OnAmbiguous,
		onEvent:     o.OnEvent,
		auth:        o.Auth,
	}
	if m.rt.onTooLarge == nil {
		m.rt.onTooLarge = func() {}
	}
	if m.rt.onAmbiguous == nil {
		m.rt.onAmbiguous = func(error) {}
	}
	m.HTTP = &http.Client{Transport: m.rt, CheckRedirect: m.checkRedirect}
	return m, nil
}

// Origin is the configured URL's scheme://host:port.
func (m *Client) Origin() string { return m.rt.origin }

// Failure describes the first HTTP status >= 400 seen, with a hint, or "".
func (m *Client) Failure() string { return m.rt.firstFailure() }

// FallbackOK reports whether the first failure allows the SSE fallback:
// a 4xx that is not about credentials.
func (m *Client) FallbackOK() bool { return m.rt.fallbackOK() }

// AuthFailure is why OAuth could not authorize the server, or nil.
func (m *Client) AuthFailure() error { return m.rt.authFailure() }

// Credentials returns every OAuth credential the remote's token source
// has held (Authorizer.Credentials); nil without OAuth.
func (m *Client) Credentials() []string {
	if m.rt.auth == nil {
		return nil
	}
	return m.rt.auth.Credentials()
}

// CloseIdle closes the idle connections.
func (m *Client) CloseIdle() { m.rt.closeIdle() }

// IsEventStream reports whether h's Content-Type is text/event-stream
// (media types are case-insensitive; parameters are allowed).
func IsEventStream(h http.Header) bool {
	return strings.HasPrefix(strings.ToLower(h.Get("Content-Type")), "text/event-stream")
}

// maxRedirects bounds the redirects one request follows.
const maxRedirects = 10

// checkRedirect is the HTTP client's redirect policy: at most maxRedirects
// redirects, and none to another origin (scheme, host and port) unless the
// server's agentgate.toml settings allow it (cross-origin-redirects). A
// refused redirect fails the request with the error Refuse makes of a
// message naming the target's origin. (Referer is dropped from every
// request by httpTripper.)
func (m *Client) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= maxRedirects {
		return m.refuse(fmt.Sprintf("stopped after %d redirects (from %s)", maxRedirects, config.StripURL(via[0].URL.String())))
	}
	if origin(req.URL) != m.rt.origin && !m.r.CrossOriginRedirects {
		return m.refuse(fmt.Sprintf("the server redirected to another origin, %s, which agentgate does not follow (a redirect can carry the URL's query to another host); "+
			"fix the url in %s, or allow it in agentgate.toml: [servers.%s] cross-origin-redirects = true",
			origin(req.URL), m.r.File, config.TOMLKey(m.r.Name)))
	}
	return nil
}

// origin is u's scheme://host:port, without userinfo.
func origin(u *url.URL) string { return u.Scheme + "://" + u.Host }

// httpTripper adds the configured headers to requests for the configured
// origin only, bounds response bodies, and remembers the first failing
// status so that errors can name it.
type httpTripper struct {
	base        *http.Transport
	origin      string
	headers     map[string]string
	max         int64
	check       bool // refuse what jsonrpc.CheckMembersOf refuses
	exchange    *jsonrpc.Exchange
	onTooLarge  func()
	onAmbiguous func(error) // a reply CheckMembersOf refuses
	onEvent     func([]byte)

	// auth supplies OAuth tokens for the configured origin; nil when the
	// configuration sets its own Authorization header.
	auth Authorizer

	mu      sync.Mutex
	failure *httpFailure
	authErr error // why OAuth could not authorize, after a 401
}

type httpFailure struct {
	code   int
	method string
	url    string
}

func (t *httpTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	orig := req
	req, own := t.outgoing(req)
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if own && t.auth != nil && resp.StatusCode == http.StatusUnauthorized {
		if ch := ParseBearer(resp.Header.Values("WWW-Authenticate")); ch.Bearer {
			resp = t.authorize(orig, resp, ch)
		}
	}
	if resp.StatusCode >= 400 {
		t.mu.Lock()
		if t.failure == nil {
			t.failure = &httpFailure{code: resp.StatusCode, method: req.Method, url: req.URL.String()}
		}
		t.mu.Unlock()
	}
	return t.bound(resp)
}

// outgoing is the request as sent: a clone without Referer (Go's client
// sets it on a redirect: the previous URL, query, often a token,
// included) and, to the configured origin only (own), with the
// configured headers and the OAuth token; its body, with an exchange, is
// recorded as sent.
func (t *httpTripper) outgoing(req *http.Request) (out *http.Request, own bool) {
	req = req.Clone(req.Context())
	req.Header.Del("Referer")
	own = origin(req.URL) == t.origin
	if own {
		for k, v := range t.headers {
			req.Header.Set(k, v)
		}
		if t.auth != nil {
			if h := t.auth.Header(req.Context()); h != "" {
				req.Header.Set("Authorization", h)
			}
		}
	}
	if t.check && t.exchange != nil && req.GetBody != nil {
		if b, err := req.GetBody(); err == nil {
			data, _ := io.ReadAll(io.LimitReader(b, t.max))
			b.Close()
			t.exchange.Sent(data)
		}
	}
	return req, own
}

// bound gives resp its bounded body (limitedBody) and, with check, the
// checks of checked.go: an event stream's events as they are read, a
// JSON body at once (a refused one fails the request here, after
// onAmbiguous).
func (t *httpTripper) bound(resp *http.Response) (*http.Response, error) {
	stream := IsEventStream(resp.Header)
	resp.Body = &limitedBody{rc: resp.Body, max: t.max, perLine: stream, onTooLarge: t.onTooLarge}
	if !t.check {
		return resp, nil
	}
	if stream {
		resp.Body = &sseChecker{rc: resp.Body, max: t.max, onEvent: t.onEvent, exchange: t.exchange, onBad: func(err error) {
			if !errors.Is(err, errBodyTooLarge) {
				t.onAmbiguous(err)
			} else {
				t.onTooLarge()
			}
		}}
		return resp, nil
	}
	body, err := checkedBody(resp.Body, t.exchange)
	if err != nil {
		if errors.Is(err, jsonrpc.ErrAmbiguous) || errors.Is(err, jsonrpc.ErrBrokenExchange) {
			t.onAmbiguous(err)
		}
		return nil, err
	}
	resp.Body = body
	return resp, nil
}

// authorize answers a 401 with a Bearer challenge ch (a 401 without one
// is not OAuth, and stays an HTTP error): it gets a token (see
// Authorizer.Authorize) and sends the request again with it. It returns
// the response to use: the retry's, or the 401 when no token was had (the
// reason is kept for the error).
func (t *httpTripper) authorize(orig *http.Request, resp *http.Response, ch BearerChallenge) *http.Response {
	h, err := t.auth.Authorize(orig.Context(), ch)
	if err == nil && orig.Body != nil && orig.Body != http.NoBody && orig.GetBody == nil {
		err = errCannotResend
	}
	if err != nil {
		t.mu.Lock()
		if t.authErr == nil {
			t.authErr = err
		}
		t.mu.Unlock()
		return resp
	}
	retry := orig.Clone(orig.Context())
	if orig.GetBody != nil {
		body, berr := orig.GetBody()
		if berr != nil {
			return resp
		}
		retry.Body = body
	}
	for k, v := range t.headers {
		retry.Header.Set(k, v)
	}
	retry.Header.Set("Authorization", h)
	again, rerr := t.base.RoundTrip(retry)
	if rerr != nil {
		return resp
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	return again
}

// authFailure is why OAuth could not authorize the server, or nil.
func (t *httpTripper) authFailure() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.authErr
}

// firstFailure describes the first HTTP status >= 400, with a hint, or "".
func (t *httpTripper) firstFailure() string {
	t.mu.Lock()
	f := t.failure
	t.mu.Unlock()
	if f == nil {
		return ""
	}
	return FailureText(f.code, f.method, f.url, t.origin)
}

// FailureText describes an HTTP failure: the status code of the method's
// request to rawURL (shown as config.StripURL does), and a hint; origin is the
// configured one (scheme://host:port), for the hint about redirects.
func FailureText(code int, method, rawURL, configured string) string {
	hint := ""
	switch {
	case code == http.StatusUnauthorized:
		hint = "check the Authorization (or API key) header and that its variable is set"
	case code == http.StatusForbidden:
		hint = "the credentials were refused: check the token's scope or the headers"
	case code == http.StatusNotFound || code == http.StatusMethodNotAllowed:
		hint = "check the url; a legacy SSE server needs \"type\": \"sse\""
	case code >= 500:
		hint = "the server failed; see its logs or try again"
	default:
		hint = "check the url and headers"
	}
	if u, err := url.Parse(rawURL); err == nil && origin(u) != configured { // compared without userinfo, which the URL may carry
		hint += "; the request was redirected to another host, which agentgate does not send the configured headers to"
	}
	return fmt.Sprintf("HTTP %d %s from %s %s (%s)", code, http.StatusText(code), method, config.StripURL(rawURL), hint)
}

// fallbackOK reports whether the streamable-HTTP failure allows the SSE
// fallback: a 4xx that is not about credentials.
func (t *httpTripper) fallbackOK() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	f := t.failure
	return f != nil && f.code >= 400 && f.code < 500 && f.code != http.StatusUnauthorized && f.code != http.StatusForbidden
}

func (t *httpTripper) closeIdle() { t.base.CloseIdleConnections() }

var errBodyTooLarge = errors.New("capture: response body over the size limit")

// limitedBody fails a body longer than max bytes or, for an event stream
// (perLine), one with a line longer than max bytes.
type limitedBody struct {
	rc         io.ReadCloser
	max        int64
	perLine    bool
	n          int64 // bytes since the start, or since the last newline
	onTooLarge func()
	once       sync.Once
}

func (b *limitedBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	over := false
	if i := bytes.IndexByte(p[:n], '\n'); b.perLine && i >= 0 {
		over = b.n+int64(i) > b.max
		b.n = int64(n - bytes.LastIndexByte(p[:n], '\n') - 1)
	} else {
		b.n += int64(n)
	}
	if over || b.n > b.max {
		b.once.Do(b.onTooLarge)
		return 0, errBodyTooLarge
	}
	return n, err
}

func (b *limitedBody) Close() error { return b.rc.Close() }
