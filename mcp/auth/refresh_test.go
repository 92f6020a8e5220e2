package auth

import (
	"context"
	"encoding/json"
	"github.com/agentgate/agentgate/mcp/remote"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"
)

// An expired stored token is refreshed before use, with the resource
// (RFC 8707) and the client's authentication; the rotated refresh token
// replaces the old one in the store.
func TestSourceRefreshes(t *testing.T) {
	var mu sync.Mutex
	var got url.Values
	var basicID string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		mu.Lock()
		got, basicID = r.PostForm, ""
		if id, _, ok := r.BasicAuth(); ok {
			basicID = id
		}
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"access_token": "new-access", "token_type": "bearer", "expires_in": 600, "refresh_token": "rotated"})
	}))
	t.Cleanup(srv.Close)
	env := map[string]string{"XDG_CONFIG_HOME": t.TempDir(), StoreEnv: "file"}
	store, err := OpenStore(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	s := Server{Name: "notes", URL: "https://s.example/mcp"}
	old := &Entry{ServerURL: s.URL, ClientID: "cid", ClientSecret: "csecret", AuthMethod: methodBasic, TokenURL: srv.URL + "/token",
		Resource: "https://s.example/mcp", AccessToken: "old-access", RefreshToken: "old-refresh", Expiry: time.Now().Add(-time.Hour)}
	if _, err := store.Put(s.key(), old); err != nil {
		t.Fatal(err)
	}
	src := NewSource(s, Options{Store: store})
	if h := src.Header(context.Background()); h != "Bearer new-access" {
		t.Fatalf("Header = %q, want the refreshed token", h)
	}
	mu.Lock()
	defer mu.Unlock()
	if got.Get("grant_type") != "refresh_token" || got.Get("refresh_token") != "old-refresh" || got.Get("resource") != "https://s.example/mcp" || basicID != "cid" {
		t.Fatalf("refresh request %v (basic id %q): want the refresh grant, the old refresh token, the resource, client_secret_basic", got, basicID)
	}
	e, _, err := store.Get(s.key())
	if err != nil || e.AccessToken != "new-access" || e.RefreshToken != "rotated" || !e.Valid(time.Now()) {
		t.Fatalf("stored after refresh: %+v, %v", e, err)
	}
}

// Without a token, Authorize never opens a browser in a run that is not
// interactive: ErrLoginRequired.
func TestAuthorizeNotInteractive(t *testing.T) {
	env := map[string]string{"XDG_CONFIG_HOME": t.TempDir(), StoreEnv: "file"}
	store, _ := OpenStore(func(k string) string { return env[k] })
	opened := false
	src := NewSource(Server{Name: "notes", URL: "https://s.example/mcp"}, Options{Store: store,
		Browser: Browser{Getenv: func(string) string { opened = true; return "" }}})
	if _, err := src.Authorize(context.Background(), remote.BearerChallenge{}); !IsLoginRequired(err) || opened {
		t.Fatalf("err %v (browser looked up: %v), want ErrLoginRequired and no browser", err, opened)
	}
}
