package capture

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/agentgate/agentgate/internal/testing/fakehttp"
	"github.com/agentgate/agentgate/internal/testing/fakeserver"
	"github.com/agentgate/agentgate/mcp/config"
	"github.com/agentgate/agentgate/mcp/wire"
)

// recorder collects what an HTTP fake received: method and headers.
type recorder struct {
	mu   sync.Mutex
	seen []seenMsg
}

type seenMsg struct {
	method string
	header http.Header
}

func (r *recorder) on(method string, h map[string][]string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seen = append(r.seen, seenMsg{method, http.Header(h)})
}

func (r *recorder) all() []seenMsg {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]seenMsg(nil), r.seen...)
}

func httpFake(t *testing.T, opts fakeserver.Options) (*httptest.Server, *recorder) {
	t.Helper()
	rec := &recorder{}
	opts.OnMessage = rec.on
	if opts.Tools == nil {
		opts.Tools = wantTools(t)
	}
	srv := httptest.NewServer(fakehttp.Handler(opts))
	t.Cleanup(srv.Close)
	return srv, rec
}

func remoteServer(name string, tr config.Transport, url string) config.Resolved {
	return config.Resolved{
		Server: config.Server{
			Name: name, File: ".vscode/mcp.json", Transport: tr, URL: url,
			Headers: map[string]string{"Authorization": "Bearer tok-123", "X-Api-Key": "key-456"},
		},
		Secrets: []string{"Bearer tok-123", "tok-123", "key-456"},
	}
}

func TestHTTPTransports(t *testing.T) {
	for _, tc := range []struct {
		name string
		tr   config.Transport
		path string
	}{
		{"streamable", config.StreamableHTTP, "/mcp"},
		{"sse", config.SSE, "/sse"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, rec := httpFake(t, fakeserver.Options{PageSize: 2})
			res := capture1(t, remoteServer("r", tc.tr, srv.URL+tc.path), wire.Options{})
			if res.Err != nil {
				t.Fatal(res.Err)
			}
			if !equalRaw(res.Tools, wantTools(t)) || res.Protocol != "2025-11-25" {
				t.Errorf("protocol %q, tools %s", res.Protocol, res.Tools)
			}
			var methods []string
			for _, m := range rec.all() {
				methods = append(methods, m.method)
				if m.header.Get("Authorization") != "Bearer tok-123" || m.header.Get("X-Api-Key") != "key-456" {
					t.Errorf("%s without the configured headers: %v", m.method, m.header)
				}
			}
			want := "initialize notifications/initialized tools/list tools/list tools/list"
			if tc.tr == config.StreamableHTTP {
				want += " DELETE" // the session DELETE carries the headers too
			}
			if got := strings.Join(methods, " "); got != want {
				t.Errorf("server saw %q, want %q", got, want)
			}
		})
	}
}

func TestHTTPStatusErrors(t *testing.T) {
	for _, tc := range []struct {
		code int
		want string
	}{
		{401, "HTTP 401 Unauthorized from POST /mcp (check the Authorization"},
		{403, "HTTP 403 Forbidden from POST /mcp (the credentials were refused"},
		{404, "HTTP 404 Not Found from POST /mcp (check the url"},
		{500, "HTTP 500 Internal Server Error from POST /mcp (the server failed"},
	} {
		t.Run(http.StatusText(tc.code), func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				http.Error(w, "no: Bearer tok-123", tc.code) // a body echoing the secret
			}))
			defer srv.Close()
			res := capture1(t, remoteServer("r", config.StreamableHTTP, srv.URL+"/mcp?key=key-456"), wire.Options{})
			want := strings.Replace(tc.want, "/mcp", srv.URL+"/mcp", 1)
			if !errors.Is(res.Err, wire.ErrHTTP) || !strings.Contains(res.Err.Error(), want) {
				t.Errorf("got  %v\nwant %s", res.Err, want)
			}
			for _, s := range []string{"tok-123", "key-456", "?"} {
				if strings.Contains(res.Err.Error(), s) {
					t.Errorf("error shows %q: %v", s, res.Err)
				}
			}
		})
	}
}

// TestRedirectToOtherHostDropsHeaders: with cross-origin-redirects, a
// redirect to another origin is followed without the configured headers
// and without Referer (which would carry the URL's query token).
func TestRedirectToOtherHostDropsHeaders(t *testing.T) {
	other, rec := httpFake(t, fakeserver.Options{})
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/mcp", http.StatusTemporaryRedirect)
	}))
	defer origin.Close()
	r := remoteServer("r", config.StreamableHTTP, origin.URL+"/mcp?token=query-tok-789")
	r.CrossOriginRedirects = true
	res := capture1(t, r, wire.Options{})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	seen := rec.all()
	if len(seen) == 0 {
		t.Fatal("the redirect target saw no request")
	}
	for _, m := range seen {
		if m.header.Get("Authorization") != "" || m.header.Get("X-Api-Key") != "" {
			t.Errorf("%s to another host carried the configured headers", m.method)
		}
		if ref := m.header.Get("Referer"); ref != "" {
			t.Errorf("%s to another host carried Referer %q", m.method, ref)
		}
	}
}

// TestHostileCrossOriginRedirectRefused: by default a redirect to another
// origin is an error naming the origin and the setting; the other host
// never sees a request (issue #17 item 11). A same-origin redirect is
// followed, without Referer.
func TestHostileCrossOriginRedirectRefused(t *testing.T) {
	other, rec := httpFake(t, fakeserver.Options{})
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/mcp", http.StatusTemporaryRedirect)
	}))
	defer origin.Close()
	res := capture1(t, remoteServer("r", config.StreamableHTTP, origin.URL+"/mcp?token=query-tok-789"), wire.Options{})
	if !errors.Is(res.Err, wire.ErrHTTP) || !strings.Contains(res.Err.Error(), "redirected to another origin, "+other.URL) ||
		!strings.Contains(res.Err.Error(), "[servers.r] cross-origin-redirects = true") || strings.Contains(res.Err.Error(), "query-tok-789") {
		t.Errorf("err %v", res.Err)
	}
	if n := len(rec.all()); n != 0 {
		t.Errorf("the other origin saw %d requests", n)
	}

	same, srec := httpFake(t, fakeserver.Options{})
	var referers []string
	hop := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		referers = append(referers, r.Header.Get("Referer"))
		if r.URL.Path == "/old" {
			http.Redirect(w, r, "/mcp", http.StatusTemporaryRedirect)
			return
		}
		same.Config.Handler.ServeHTTP(w, r)
	}))
	defer hop.Close()
	res = capture1(t, remoteServer("r", config.StreamableHTTP, hop.URL+"/old?token=query-tok-789"), wire.Options{})
	if res.Err != nil {
		t.Fatalf("same-origin redirect: %v", res.Err)
	}
	for _, ref := range referers {
		if ref != "" {
			t.Errorf("Referer %q", ref)
		}
	}
	_ = srec
}

func TestFallbackToSSE(t *testing.T) {
	fake := fakehttp.Handler(fakeserver.Options{Tools: wantTools(t)})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/legacy" && r.Method == http.MethodGet:
			r.URL.Path = "/sse"
		case r.URL.Path == "/legacy":
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		fake.ServeHTTP(w, r)
	}))
	defer srv.Close()
	r := remoteServer("legacy", config.StreamableHTTP, srv.URL+"/legacy")
	res := capture1(t, r, wire.Options{})
	if !errors.Is(res.Err, wire.ErrHTTP) || !strings.Contains(res.Err.Error(), "HTTP 405") {
		t.Errorf("without FallbackSSE: %v", res.Err)
	}
	r.FallbackSSE = true
	res = capture1(t, r, wire.Options{})
	if res.Err != nil || !equalRaw(res.Tools, wantTools(t)) {
		t.Errorf("with FallbackSSE: %v, %s", res.Err, res.Tools)
	}
}

func TestHTTPResponseTooLarge(t *testing.T) {
	for _, tc := range []struct {
		tr   config.Transport
		path string
	}{{config.StreamableHTTP, "/mcp"}, {config.SSE, "/sse"}} {
		t.Run(string(tc.tr), func(t *testing.T) {
			srv, _ := httpFake(t, fakeserver.Options{HugeDescription: 300000})
			res := capture1(t, remoteServer("big", tc.tr, srv.URL+tc.path), wire.Options{MaxResponseBytes: 100000})
			if !errors.Is(res.Err, wire.ErrTooLarge) || !strings.Contains(res.Err.Error(), "larger than 100000 bytes") {
				t.Errorf("got %v", res.Err)
			}
			if h := errHints(res.Err); len(h) != 1 || !strings.Contains(h[0], fmt.Sprintf("one page of the listing is over %d MiB", wire.DefaultMaxResponseBytes>>20)) {
				t.Errorf("hints %q, want the one for a page over the limit", h)
			}
		})
	}
}

func TestHTTPConnectionRefused(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	res := capture1(t, remoteServer("gone", config.StreamableHTTP, url+"/mcp"), wire.Options{})
	want := "initialize: cannot reach " + url + "/mcp: connect: connection refused (is the server running?"
	if !errors.Is(res.Err, wire.ErrConnect) || !strings.Contains(res.Err.Error(), want) {
		t.Errorf("got %v", res.Err)
	}
}
