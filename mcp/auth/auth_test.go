package auth

import (
	"github.com/agentgate/agentgate/mcp/remote"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// The order is the MCP specification's (2025-11-25, "Authorization Server
// Metadata Discovery"), written out from its text.
func TestMetadataURLs(t *testing.T) {
	u, _ := url.Parse("https://auth.example.com/tenant1")
	want := []string{
		"https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
		"https://auth.example.com/.well-known/openid-configuration/tenant1",
		"https://auth.example.com/tenant1/.well-known/openid-configuration",
	}
	if got := metadataURLs(u); !slices.Equal(got, want) {
		t.Errorf("with a path: %q, want %q", got, want)
	}
	u, _ = url.Parse("https://auth.example.com")
	want = []string{"https://auth.example.com/.well-known/oauth-authorization-server", "https://auth.example.com/.well-known/openid-configuration"}
	if got := metadataURLs(u); !slices.Equal(got, want) {
		t.Errorf("without a path: %q, want %q", got, want)
	}
}

func TestResourceBinds(t *testing.T) {
	su, _ := url.Parse("https://mcp.example.com/a/mcp")
	for res, want := range map[string]bool{
		"https://mcp.example.com/a/mcp":   true,
		"https://mcp.example.com/a/mcp/":  true,
		"https://MCP.example.com/a":       true, // a path prefix at a "/"
		"https://mcp.example.com":         true,
		"https://mcp.example.com/a/m":     false,
		"https://mcp.example.com/a/mcpx":  false,
		"http://mcp.example.com/a/mcp":    false,
		"https://other.example.com/a/mcp": false,
		"https://mcp.example.com:8443/a":  false,
		"https://mcp.example.com/a?x=1":   false,
	} {
		if got := resourceBinds(res, su); got != want {
			t.Errorf("resourceBinds(%q) = %v, want %v", res, got, want)
		}
	}
}

func TestCheckEndpoint(t *testing.T) {
	for raw, ok := range map[string]bool{
		"https://as.example/token":      true,
		"http://localhost:8080/token":   true,
		"http://127.0.0.1/token":        true,
		"http://127.9.9.9/token":        true,
		"http://[::1]:9/token":          true,
		"http://as.example/token":       false,
		"http://localhost.example/t":    false,
		"https://user:pw@as.example/t":  false,
		"javascript:alert(1)":           false,
		"https://as.example/t#fragment": false,
		"/relative":                     false,
	} {
		if _, err := checkEndpoint("x", raw); (err == nil) != ok {
			t.Errorf("checkEndpoint(%q) = %v, want ok %v", raw, err, ok)
		}
	}
}

// RFC 8414 §2: client_secret_basic is the default when the server lists
// nothing; a public client always uses none.
func TestAuthMethod(t *testing.T) {
	cases := []struct {
		secret    bool
		supported []string
		want      string
	}{
		{false, []string{"client_secret_basic"}, "none"},
		{true, nil, "client_secret_basic"},
		{true, []string{"client_secret_post", "client_secret_basic"}, "client_secret_basic"},
		{true, []string{"client_secret_post"}, "client_secret_post"},
		{true, []string{"none"}, "none"},
		{true, []string{"private_key_jwt"}, "client_secret_basic"},
	}
	for _, c := range cases {
		if got := authMethod(c.secret, c.supported); got != c.want {
			t.Errorf("authMethod(%v, %q) = %q, want %q", c.secret, c.supported, got, c.want)
		}
	}
}

func TestSelectScope(t *testing.T) {
	d := &Discovery{Challenge: remote.BearerChallenge{Scope: "from:challenge"}, ScopesSupported: []string{"a", "b"}}
	if got := selectScope(Server{Scopes: []string{"x", "y"}}, d); got != "x y" {
		t.Errorf("configured scopes: %q", got)
	}
	if got := selectScope(Server{}, d); got != "from:challenge" {
		t.Errorf("challenge scope: %q", got)
	}
	d.Challenge.Scope = ""
	if got := selectScope(Server{}, d); got != "a b" {
		t.Errorf("scopes_supported: %q", got)
	}
	d.ScopesSupported = nil
	if got := selectScope(Server{}, d); got != "" {
		t.Errorf("nothing: %q, want the parameter left out", got)
	}
}

func TestFileStore(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"XDG_CONFIG_HOME": dir, StoreEnv: "file"}
	s, err := OpenStore(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "agentgate", "tokens.json"); s.File != want {
		t.Fatalf("file %s, want %s", s.File, want)
	}
	k := Key("https://s.example/mcp", "")
	if k == Key("https://s.example/mcp", "other-client") {
		t.Fatal("the key does not depend on the client")
	}
	e := &Entry{ServerURL: "https://s.example/mcp", AccessToken: "at", Expiry: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)}
	if where, err := s.Put(k, e); err != nil || where != s.File {
		t.Fatalf("Put: %q, %v", where, err)
	}
	fi, _ := os.Stat(s.File)
	di, _ := os.Stat(filepath.Dir(s.File))
	// Windows has no mode bits (Go reports 0666 and 0777): the file is
	// private through the ACL of the user's profile it lives in, and
	// readFile checks modes on unix only.
	if runtime.GOOS != "windows" && (fi.Mode().Perm() != 0o600 || di.Mode().Perm() != 0o700) {
		t.Fatalf("modes file %v dir %v, want 0600 and 0700", fi.Mode(), di.Mode())
	}
	got, where, err := s.Get(k)
	if err != nil || got == nil || got.AccessToken != "at" || where != s.File {
		t.Fatalf("Get: %+v %q %v", got, where, err)
	}
	if runtime.GOOS != "windows" { // no group bits to set there
		if err := os.Chmod(s.File, 0o640); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.Get(k); err == nil || !strings.Contains(err.Error(), "mode 0640") {
			t.Fatalf("a group-readable file was used: %v", err)
		}
		os.Chmod(s.File, 0o600)
	}
	if found, err := s.Delete(k); !found || err != nil {
		t.Fatalf("Delete: %v %v", found, err)
	}
	if got, _, _ := s.Get(k); got != nil {
		t.Fatal("still there after Delete")
	}
}

func TestEntryValid(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		e    Entry
		want bool
	}{
		{Entry{AccessToken: "a"}, true},
		{Entry{AccessToken: "a", Expiry: now.Add(2 * time.Minute)}, true},
		{Entry{AccessToken: "a", Expiry: now.Add(30 * time.Second)}, false}, // within the minute to spare
		{Entry{AccessToken: "", Expiry: now.Add(time.Hour)}, false},
	} {
		if got := c.e.Valid(now); got != c.want {
			t.Errorf("%+v.Valid = %v, want %v", c.e, got, c.want)
		}
	}
}
