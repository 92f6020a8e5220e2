package capture

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/agentgate/agentgate/mcp/config/syntax"

	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/agentgate/agentgate/mcp/auth"
	"github.com/agentgate/agentgate/mcp/config"
)

// quiet discards mcp-go's log lines, which could otherwise reach the
// user's terminal unredacted.
var quiet = slog.New(slog.DiscardHandler)

// startHTTP opens a streamable-HTTP or (sse) legacy SSE transport whose
// every request goes through the server's Remote.
func (s *session) startHTTP(ctx context.Context, sse bool) error {
	rm, err := NewRemote(s.r, RemoteOptions{
		MaxResponseBytes: s.opts.MaxResponseBytes,
		CheckMembers:     true,
		Exchange:         &s.exchange,
		Timeout:          s.timeout,
		Interactive:      s.opts.Interactive,
		Prompt:           s.opts.Progress,
		OnTooLarge:       func() { s.cancel(s.tooLarge()) },
		OnAmbiguous:      func(err error) { s.cancel(s.ambiguous(err)) },
		Refuse: func(msg string) error {
			err := s.errorf(ErrHTTP, "%s", msg)
			s.cancel(err)
			return err
		},
		OnEvent: s.sseEvent(ctx, sse),
	})
	if err != nil {
		return s.errorf(ErrConnect, "%v", err)
	}
	s.rt = rm
	hc := rm.Client
	if sse {
		tr, err := transport.NewSSE(s.r.URL, transport.WithHTTPClient(hc), transport.WithSSELogger(quiet),
			transport.WithEndpointTimeout(s.timeout), transport.WithResponseTimeout(s.timeout))
		if err != nil {
			return s.errorf(ErrConnect, "%s", s.cleanURLs(err.Error()))
		}
		s.tr = tr
		if err := tr.Start(ctx); err != nil {
			return s.fail(ctx, err)
		}
		return nil
	}
	tr, err := transport.NewStreamableHTTP(s.r.URL, transport.WithHTTPBasicClient(hc), transport.WithHTTPLogger(quiet))
	if err != nil {
		return s.errorf(ErrConnect, "%s", s.cleanURLs(err.Error()))
	}
	s.tr = tr
	return nil
}

// RemoteOptions configure NewRemote.
type RemoteOptions struct {
	// MaxResponseBytes bounds a response body or, for an event stream,
	// one line and one event's data; 0 = DefaultMaxResponseBytes. A read
	// past it fails with ErrResponseTooLarge after OnTooLarge.
	MaxResponseBytes int64
	// CheckMembers refuses a JSON body or event whose members checkMembers
	// refuses (capture's rule; see members.go), after OnAmbiguous. A
	// bridge leaves that check to its reader.
	CheckMembers bool
	// Exchange, with CheckMembers, records every request body sent and
	// checks every JSON body and event received (Exchange.Received); a
	// refused one fails like an ambiguous one, after OnAmbiguous. nil:
	// answers are not matched with requests.
	Exchange *Exchange
	// Timeout bounds each OAuth step; 0 = the server's or auth's default.
	Timeout time.Duration
	// Interactive allows a browser login; Prompt (nil: discard) gets its
	// instructions.
	Interactive bool
	Prompt      io.Writer
	OnTooLarge  func()      // nil: nothing
	OnAmbiguous func(error) // nil: nothing
	// OnEvent, with CheckMembers, gets the data of each event of an event
	// stream that checkMembers accepted (a copy); nil: nothing.
	OnEvent func(data []byte)
	// Refuse turns the message of a refused redirect into the error the
	// request fails with; nil: errors.New.
	Refuse func(msg string) error
}

// Remote is the HTTP client capture reaches one remote server with: the
// configured headers on requests to the configured origin only (never on
// a redirect elsewhere), no Referer, the stored OAuth token (unless the
// configuration sets its own Authorization header) with a login on a
// Bearer challenge, at most maxRedirects redirects and none to another
// origin unless the server allows it (cross-origin-redirects), and
// bounded bodies (see RemoteOptions). agentgate-mcp's bridge uses it too,
// so a guarded remote server is reached exactly as capture reaches it.
type Remote struct {
	Client *http.Client
	r      config.Resolved
	rt     *httpTripper
	refuse func(string) error
}

// ErrResponseTooLarge is the read error of a body over the limit.
var ErrResponseTooLarge = errBodyTooLarge

// NewRemote returns the Remote of r (an http or sse server, variables
// resolved). The error is for a URL that is not http(s), and names it.
func NewRemote(r config.Resolved, o RemoteOptions) (*Remote, error) {
	u, err := url.Parse(r.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("url %q is not an http(s) URL (check \"url\" in %s)", displayURL(r.URL), r.File)
	}
	if o.MaxResponseBytes <= 0 {
		o.MaxResponseBytes = DefaultMaxResponseBytes
	}
	m := &Remote{r: r, refuse: o.Refuse}
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
		auth:        authSource(r, o),
	}
	if m.rt.onTooLarge == nil {
		m.rt.onTooLarge = func() {}
	}
	if m.rt.onAmbiguous == nil {
		m.rt.onAmbiguous = func(error) {}
	}
	m.Client = &http.Client{Transport: m.rt, CheckRedirect: m.checkRedirect}
	return m, nil
}

// Origin is the configured URL's scheme://host:port.
func (m *Remote) Origin() string { return m.rt.origin }

// Failure describes the first HTTP status >= 400 seen, with a hint, or "".
func (m *Remote) Failure() string { return m.rt.firstFailure() }

// FallbackOK reports whether the first failure allows the SSE fallback:
// a 4xx that is not about credentials.
func (m *Remote) FallbackOK() bool { return m.rt.fallbackOK() }

// AuthFailure is why OAuth could not authorize the server, or nil.
func (m *Remote) AuthFailure() error { return m.rt.authFailure() }

// Credentials returns every OAuth credential the remote's token source
// has held (auth.Source.Credentials); nil without OAuth.
func (m *Remote) Credentials() []string {
	if m.rt.auth == nil {
		return nil
	}
	return m.rt.auth.Credentials()
}

// CloseIdle closes the idle connections.
func (m *Remote) CloseIdle() { m.rt.closeIdle() }

// DisplayURL is raw without userinfo, query and fragment: how URLs are
// printed.
func DisplayURL(raw string) string { return displayURL(raw) }

// Redact removes every secret of r from text (see redact).
func Redact(r config.Resolved, text string) string { return redact(r, text) }

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
func (m *Remote) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= maxRedirects {
		return m.refuse(fmt.Sprintf("stopped after %d redirects (from %s)", maxRedirects, displayURL(via[0].URL.String())))
	}
	if origin(req.URL) != m.rt.origin && !m.r.CrossOriginRedirects {
		return m.refuse(fmt.Sprintf("the server redirected to another origin, %s, which agentgate does not follow (a redirect can carry the URL's query to another host); "+
			"fix the url in %s, or allow it in agentgate.toml: [servers.%s] cross-origin-redirects = true",
			origin(req.URL), m.r.File, syntax.TOMLKey(m.r.Name)))
	}
	return nil
}

// origin is u's scheme://host:port, without userinfo.
func origin(u *url.URL) string { return u.Scheme + "://" + u.Host }

// cleanURLs replaces the configured URL in text by its display form.
func (s *session) cleanURLs(text string) string {
	if s.r.URL == "" {
		return text
	}
	return strings.ReplaceAll(text, s.r.URL, displayURL(s.r.URL))
}

// displayURL is u without userinfo, query and fragment.
func displayURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	u.User = nil
	u.RawQuery, u.ForceQuery = "", false
	u.Fragment, u.RawFragment = "", ""
	return u.String()
}

// httpTripper adds the configured headers to requests for the configured
// origin only, bounds response bodies, and remembers the first failing
// status so that errors can name it.
type httpTripper struct {
	base        *http.Transport
	origin      string
	headers     map[string]string
	max         int64
	check       bool // refuse what checkMembers refuses
	exchange    *Exchange
	onTooLarge  func()
	onAmbiguous func(error) // a reply checkMembers refuses
	onEvent     func([]byte)

	// auth supplies OAuth tokens for the configured origin; nil when the
	// configuration sets its own Authorization header.
	auth *auth.Source

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
	req = req.Clone(req.Context())
	// Go's client sets Referer on a redirect: the previous URL, query
	// (often a token) included.
	req.Header.Del("Referer")
	own := origin(req.URL) == t.origin
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
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if own && t.auth != nil && resp.StatusCode == http.StatusUnauthorized {
		if ch := auth.ParseChallenge(resp.Header.Values("WWW-Authenticate")); ch.Bearer {
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
		if errors.Is(err, errAmbiguous) || errors.Is(err, ErrBrokenExchange) {
			t.onAmbiguous(err)
		}
		return nil, err
	}
	resp.Body = body
	return resp, nil
}

// authorize answers a 401 with a Bearer challenge ch (a 401 without one
// is not OAuth, and stays an HTTP error): it gets a token (see
// auth.Source.Authorize) and sends the request again with it. It returns
// the response to use: the retry's, or the 401 when no token was had (the
// reason is kept for the error).
func (t *httpTripper) authorize(orig *http.Request, resp *http.Response, ch auth.Challenge) *http.Response {
	h, err := t.auth.Authorize(orig.Context(), ch)
	if err == nil && orig.Body != nil && orig.Body != http.NoBody && orig.GetBody == nil {
		err = &auth.Error{Msg: "cannot send the request again with the new token", Kind: auth.ErrFailed}
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
// request to rawURL (shown as DisplayURL does), and a hint; origin is the
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
	return fmt.Sprintf("HTTP %d %s from %s %s (%s)", code, http.StatusText(code), method, displayURL(rawURL), hint)
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

// authSource returns the OAuth token source of r, or nil when its
// configuration sends an Authorization header of its own or no token store
// can be opened.
func authSource(r config.Resolved, o RemoteOptions) *auth.Source {
	for k := range r.Headers {
		if strings.EqualFold(k, "Authorization") {
			return nil
		}
	}
	store, err := auth.OpenStore(os.Getenv)
	if err != nil {
		return nil
	}
	prompt := io.Discard
	if o.Prompt != nil {
		prompt = o.Prompt
	}
	srv := auth.FromResolved(r)
	if srv.Timeout <= 0 {
		srv.Timeout = o.Timeout
	}
	return auth.NewSource(srv, auth.Options{
		Store: store, Interactive: o.Interactive,
		Browser: auth.Browser{Getenv: os.Getenv, Prompt: prompt, Name: r.Name},
	})
}
