package auth

import (
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"github.com/agentgate/agentgate/mcp/remote"
	"github.com/mark3labs/mcp-go/client/transport"
)

// LoginTimeout bounds how long a login waits for the browser to come back.
const LoginTimeout = 5 * time.Minute

// Browser opens the authorization URL for a person.
type Browser struct {
	// Getenv reads $BROWSER.
	Getenv func(string) string
	// Prompt receives the line that shows the URL (always printed, for
	// copy and paste).
	Prompt io.Writer
	// Name is the server's name, for the prompt.
	Name string
}

// open runs $BROWSER with the URL as its only argument when set, else the
// OS opener (open, xdg-open, rundll32 url.dll). It does not wait for it;
// a failure to start is reported on Prompt and is not fatal.
func (b Browser) open(authURL string) {
	fmt.Fprintf(b.Prompt, "agentgate: %s: to authorize agentgate, open this URL in a browser:\nagentgate: %s: %s\n", b.Name, b.Name, authURL)
	var cmd *exec.Cmd
	if p := b.Getenv("BROWSER"); p != "" {
		cmd = exec.Command(p, authURL)
	} else {
		switch runtime.GOOS {
		case "darwin":
			cmd = exec.Command("open", authURL)
		case "windows":
			cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", authURL)
		default:
			cmd = exec.Command("xdg-open", authURL)
		}
	}
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	cmd.Stdin = nil
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(b.Prompt, "agentgate: %s: could not start a browser (%v); open the URL above by hand\n", b.Name, err)
		return
	}
	go cmd.Wait()
}

// callback is what the authorization server's redirect brought: a code,
// or why it is refused.
type callback struct {
	code string
	err  error
}

// callbackHandler serves the loopback redirect of a login whose state
// agentgate sent and whose authorization server is issuer: the first
// redirect to /callback is sent on done (which must have room for it),
// with a short page for the browser.
func callbackHandler(state, issuer string, done chan<- callback) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/callback" {
			http.NotFound(w, r)
			return
		}
		res := checkCallback(r.URL.Query(), state, issuer)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if res.err != nil {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, "<p>agentgate: authorization failed: %s</p>\n", html.EscapeString(res.err.Error()))
		} else {
			fmt.Fprintf(w, "<p>agentgate: authorized. You can close this tab.</p>\n")
		}
		select {
		case done <- res:
		default:
		}
	})
}

// checkCallback reads the redirect's query q: the same state as sent, no
// error, a code, and (RFC 9207) no other issuer.
func checkCallback(q url.Values, state, issuer string) callback {
	switch {
	case q.Get("state") != state:
		return callback{err: refused("authorization response", "the redirect came back with another state than agentgate sent (a forged or stale redirect)")}
	case q.Get("error") != "":
		msg := q.Get("error")
		if d := q.Get("error_description"); d != "" {
			if len(d) > 200 {
				d = d[:200] + "..."
			}
			msg += " (" + d + ")"
		}
		return callback{err: failed("authorization response", "the authorization server refused: %s", msg)}
	case q.Get("code") == "":
		return callback{err: refused("authorization response", "the redirect came back without a code")}
	case q.Has("iss") && strings.TrimSuffix(q.Get("iss"), "/") != strings.TrimSuffix(issuer, "/"):
		return callback{err: refused("authorization response", "the redirect names issuer %q, not %q (RFC 9207)", q.Get("iss"), issuer)}
	}
	return callback{code: q.Get("code")}
}

// authorizationCode runs the authorization code grant with PKCE (S256) and
// the resource parameter, redirecting to a loopback listener on a random
// port of 127.0.0.1, and returns the stored entry's content.
func authorizationCode(ctx context.Context, hc *http.Client, d *Discovery, s Server, br Browser) (*Entry, error) {
	if d.Metadata.AuthorizationEndpoint == "" {
		return nil, refused("authorization server metadata", "it has no authorization_endpoint")
	}
	if !d.Legacy && len(d.Metadata.CodeChallengeMethodsSupported) > 0 && !containsFold(d.Metadata.CodeChallengeMethodsSupported, "S256") {
		return nil, refused("authorization server metadata", "it does not support PKCE with S256 (code_challenge_methods_supported)")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, failed("login", "cannot listen on a loopback port: %v", err)
	}
	defer ln.Close()
	redirectURI := fmt.Sprintf("http://127.0.0.1:%d/callback", ln.Addr().(*net.TCPAddr).Port)
	if err := transport.ValidateRedirectURI(redirectURI); err != nil {
		return nil, failed("login", "%v", err)
	}
	c, err := identify(ctx, hc, d, s, redirectURI)
	if err != nil {
		return nil, err
	}
	state, err := transport.GenerateState()
	if err != nil {
		return nil, failed("login", "%v", err)
	}
	verifier, err := transport.GenerateCodeVerifier()
	if err != nil {
		return nil, failed("login", "%v", err)
	}
	au, _ := url.Parse(d.Metadata.AuthorizationEndpoint)
	q := au.Query()
	q.Set("response_type", "code")
	q.Set("client_id", c.ID)
	q.Set("redirect_uri", redirectURI)
	q.Set("state", state)
	q.Set("code_challenge", transport.GenerateCodeChallenge(verifier))
	q.Set("code_challenge_method", "S256")
	q.Set("resource", d.Resource)
	if sc := selectScope(s, d); sc != "" {
		q.Set("scope", sc)
	}
	au.RawQuery = q.Encode()

	done := make(chan callback, 1)
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: callbackHandler(state, d.Metadata.Issuer, done)}
	go srv.Serve(ln)
	defer srv.Close()

	br.open(au.String())
	timer := time.NewTimer(LoginTimeout)
	defer timer.Stop()
	var res callback
	select {
	case res = <-done:
	case <-timer.C:
		return nil, failed("authorization response", "the browser did not come back within %s", LoginTimeout)
	case <-ctx.Done():
		return nil, failed("login", "%v", ctx.Err())
	}
	if res.err != nil {
		return nil, res.err
	}
	params := url.Values{
		"grant_type":    {GrantAuthorizationCode},
		"code":          {res.code},
		"redirect_uri":  {redirectURI},
		"code_verifier": {verifier},
		"resource":      {d.Resource},
	}
	tok, err := tokenRequest(ctx, hc, d.Metadata.TokenEndpoint, c, params)
	if err != nil {
		return nil, err
	}
	return newEntry(s, d, c, tok), nil
}

func containsFold(list []string, s string) bool {
	for _, v := range list {
		if strings.EqualFold(v, s) {
			return true
		}
	}
	return false
}

// probe asks the server, without a token, for its 401 challenge: a
// streamable-HTTP initialize POST (sse: a GET of the event stream). It
// returns ok false when the server answers without asking for
// authorization.
func probe(ctx context.Context, hc *http.Client, s Server) (remote.BearerChallenge, bool, error) {
	const step = "server"
	var req *http.Request
	var err error
	if s.SSE {
		req, err = http.NewRequestWithContext(ctx, http.MethodGet, s.URL, nil)
		if err == nil {
			req.Header.Set("Accept", "text/event-stream")
		}
	} else {
		body := `{"jsonrpc":"2.0","id":"agentgate-auth-probe","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"agentgate","version":"1"}}}`
		req, err = http.NewRequestWithContext(ctx, http.MethodPost, s.URL, strings.NewReader(body))
		if err == nil {
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
		}
	}
	if err != nil {
		return remote.BearerChallenge{}, false, failed(step, "%v", err)
	}
	for k, v := range s.Headers {
		req.Header.Set(k, v)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return remote.BearerChallenge{}, false, classify(step, err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		return remote.BearerChallenge{}, false, nil
	}
	ch := remote.ParseBearer(resp.Header.Values("WWW-Authenticate"))
	if !ch.Bearer {
		return ch, true, failed(step, "HTTP 401 without a Bearer challenge (WWW-Authenticate): the server does not use OAuth; set the credentials it wants in its headers in the client config")
	}
	return ch, true, nil
}

var _ = errors.New
var _ = os.Getenv
