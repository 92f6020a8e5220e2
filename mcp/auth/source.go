package auth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentgate/agentgate/mcp/config"
	"github.com/agentgate/agentgate/mcp/remote"
)

// DefaultTimeout bounds each OAuth request when the server has no timeout.
const DefaultTimeout = 30 * time.Second

// Server is one remote server as the OAuth client sees it.
type Server struct {
	Name         string
	URL          string
	SSE          bool              // legacy HTTP+SSE transport
	Headers      map[string]string // configured headers (sent to the server only)
	ClientID     string
	ClientSecret string
	GrantType    string // "" means authorization_code
	Scopes       []string
	Timeout      time.Duration // per OAuth request; 0 = DefaultTimeout
}

func (s Server) grant() string {
	if s.GrantType == "" {
		return GrantAuthorizationCode
	}
	return s.GrantType
}

// key is the server's store key.
func (s Server) key() string { return Key(s.URL, s.ClientID) }

// FromResolved returns the OAuth view of a resolved server definition.
func FromResolved(r config.Resolved) Server {
	s := Server{Name: r.Name, URL: r.URL, SSE: r.Transport == config.SSE, Headers: r.Headers, Timeout: r.Timeout}
	if o := r.OAuth; o != nil {
		s.ClientID, s.GrantType, s.Scopes = o.ClientID, o.Grant, o.Scopes
		s.ClientSecret = r.OAuthClientSecret
	}
	return s
}

// Options are what a Source may do besides talking to the servers.
type Options struct {
	Store *Store
	// Interactive allows a browser login when no token works (agentgate
	// sets it only when stdin and stderr are terminals and CI is unset).
	Interactive bool
	Browser     Browser
	// Transport is the base of the OAuth HTTP client (nil: a clone of
	// http.DefaultTransport).
	Transport http.RoundTripper
}

// Source supplies the Authorization header of one server's capture.
type Source struct {
	s    Server
	opts Options
	hc   *http.Client

	mu      sync.Mutex
	loaded  bool
	entry   *Entry
	held    []string // every credential of every entry this source used
	tried   bool     // Authorize ran once: a second 401 is final
	lastErr error
}

// NewSource returns the token source of server s.
func NewSource(s Server, opts Options) *Source {
	t := s.Timeout
	if t <= 0 {
		t = DefaultTimeout
	}
	return &Source{s: s, opts: opts, hc: newHTTPClient(opts.Transport, t)}
}

// Header returns "Bearer TOKEN" from the stored token, refreshing an
// expired one first, or "" when there is no usable stored token. It never
// opens a browser.
func (src *Source) Header(ctx context.Context) string {
	src.mu.Lock()
	defer src.mu.Unlock()
	if !src.loaded {
		src.loaded = true
		if e, _, err := src.opts.Store.Get(src.s.key()); err == nil && e != nil && e.ServerURL == src.s.URL {
			src.hold(e)
			src.entry = e
		} else if err != nil {
			src.lastErr = failed("token store", "%v", err)
		}
	}
	e := src.entry
	if e == nil {
		return ""
	}
	if !e.Valid(time.Now()) {
		if e.RefreshToken == "" {
			return ""
		}
		n, err := refresh(ctx, src.hc, e, src.s.ClientSecret)
		if err != nil {
			src.entry = nil
			return ""
		}
		src.save(n)
	}
	return "Bearer " + src.entry.AccessToken
}

// Authorize gets a new token after the server answered 401 with ch: with
// the client credentials grant when configured, else with a browser login
// when Interactive; otherwise it returns an *Error of kind
// ErrLoginRequired. It runs once per Source; later calls return the first
// outcome's error.
func (src *Source) Authorize(ctx context.Context, ch remote.BearerChallenge) (string, error) {
	src.mu.Lock()
	defer src.mu.Unlock()
	if src.tried {
		if src.lastErr != nil {
			return "", src.lastErr
		}
		return "", &Error{Step: "server", Msg: "the server refused the new token too (HTTP 401)", Kind: ErrFailed}
	}
	src.tried = true
	if src.lastErr != nil { // the token store could not be read
		return "", src.lastErr
	}
	if src.s.grant() != GrantClientCredentials && !src.opts.Interactive {
		src.lastErr = &Error{Msg: "the server needs an OAuth login and this run may not open a browser", Kind: ErrLoginRequired}
		if src.entry != nil {
			src.lastErr = &Error{Msg: "the stored token was refused and cannot be renewed without a login", Kind: ErrLoginRequired}
		}
		return "", src.lastErr
	}
	e, err := obtain(ctx, src.hc, src.s, ch, src.opts.Browser)
	if err != nil {
		src.lastErr = err
		return "", err
	}
	src.save(e)
	return "Bearer " + e.AccessToken, nil
}

// Credentials returns every credential the source has held so far, for
// redaction: the client secret (agentgate.toml's or a dynamically
// registered client's), and each access and refresh token it loaded,
// refreshed or obtained (a refreshed token does not make the old one
// safe to print).
func (src *Source) Credentials() []string {
	src.mu.Lock()
	defer src.mu.Unlock()
	out := slices.Clone(src.held)
	if src.s.ClientSecret != "" {
		out = append(out, src.s.ClientSecret)
	}
	return out
}

// hold records e's credentials (Credentials).
func (src *Source) hold(e *Entry) {
	for _, v := range []string{e.AccessToken, e.RefreshToken, e.ClientSecret} {
		if v != "" && !slices.Contains(src.held, v) {
			src.held = append(src.held, v)
		}
	}
}

func (src *Source) save(e *Entry) {
	src.hold(e)
	src.entry = e
	if _, err := src.opts.Store.Put(src.s.key(), e); err != nil {
		fmt.Fprintf(src.opts.Browser.promptOr(io.Discard), "agentgate: %s: warning: the new token could not be stored: %v\n", src.s.Name, err)
	}
}

func (b Browser) promptOr(w io.Writer) io.Writer {
	if b.Prompt != nil {
		return b.Prompt
	}
	return w
}

// obtain discovers and runs the server's grant.
func obtain(ctx context.Context, hc *http.Client, s Server, ch remote.BearerChallenge, br Browser) (*Entry, error) {
	d, err := Discover(ctx, hc, s.URL, ch)
	if err != nil {
		return nil, err
	}
	if s.grant() == GrantClientCredentials {
		return clientCredentials(ctx, hc, d, s)
	}
	return authorizationCode(ctx, hc, d, s, br)
}

// Login authorizes s from scratch (probing it for its challenge) and
// stores the token. It returns where the token was stored, or ok false
// when the server did not ask for authorization.
func Login(ctx context.Context, s Server, opts Options) (where string, ok bool, err error) {
	t := s.Timeout
	if t <= 0 {
		t = DefaultTimeout
	}
	hc := newHTTPClient(opts.Transport, t)
	ch, needed, err := probe(ctx, hc, s)
	if err != nil {
		return "", false, err
	}
	if !needed {
		return "", false, nil
	}
	e, err := obtain(ctx, hc, s, ch, opts.Browser)
	if err != nil {
		return "", true, err
	}
	where, err = opts.Store.Put(s.key(), e)
	if err != nil {
		return "", true, failed("token store", "%v", err)
	}
	return where, true, nil
}

// IsLoginRequired reports whether err means a person must log in.
func IsLoginRequired(err error) bool { return errors.Is(err, ErrLoginRequired) }

// ForServer returns the OAuth token source of the remote server r for
// remote.Options.Auth, or nil when its configuration sends an
// Authorization header of its own or no token store can be opened.
// timeout bounds each OAuth step when r's settings do not (0: the
// default); interactive allows a browser login, whose instructions go to
// prompt (nil: discarded).
func ForServer(r config.Resolved, timeout time.Duration, interactive bool, prompt io.Writer) remote.Authorizer {
	for k := range r.Headers {
		if strings.EqualFold(k, "Authorization") {
			return nil
		}
	}
	store, err := OpenStore(os.Getenv)
	if err != nil {
		return nil
	}
	if prompt == nil {
		prompt = io.Discard
	}
	srv := FromResolved(r)
	if srv.Timeout <= 0 {
		srv.Timeout = timeout
	}
	return NewSource(srv, Options{
		Store: store, Interactive: interactive,
		Browser: Browser{Getenv: os.Getenv, Prompt: prompt, Name: r.Name},
	})
}
