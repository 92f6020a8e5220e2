package capture

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/agentgate/agentgate/mcp/config"
	"github.com/agentgate/agentgate/mcp/wire"
)

// TestHostileUserinfoIsNotARedirect: a URL with userinfo that fails with
// 401 is reported as a 401 from the configured host, without the password
// and without claiming a redirect to another host.
func TestHostileUserinfoIsNotARedirect(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no", http.StatusUnauthorized)
	}))
	defer srv.Close()
	u := strings.Replace(srv.URL, "http://", "http://user:"+hostileSecret+"@", 1) + "/mcp"
	r := config.Resolved{Server: config.Server{Name: "s", File: ".mcp.json", Transport: config.StreamableHTTP, URL: u},
		Secrets: []string{hostileSecret}}
	res := CaptureAll(context.Background(), []config.Resolved{r}, wire.Options{Timeout: 10 * time.Second})[0]
	if res.Err == nil {
		t.Fatal("a 401 was not an error")
	}
	msg := res.Err.Error()
	if !strings.Contains(msg, "HTTP 401") || strings.Contains(msg, "redirected") || strings.Contains(msg, hostileSecret) {
		t.Errorf("error: %s", msg)
	}
}
