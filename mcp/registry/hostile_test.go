package registry

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/agentgate/agentgate/mcp/launcher"
)

// One misbehaving registry, asked as each ecosystem's registry in turn:
// every edge is exit 3 material (an *Error of the right kind) naming the
// registry, and none hangs past the timeout or reads past the limit.
func TestHostileRegistries(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The first path segment is the mode (after /v2/ for OCI, where
		// it is the repository's first component).
		m, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(r.URL.Path, "/"), "v2/"), "/")
		switch m {
		case "slow":
			select {
			case <-release:
			case <-r.Context().Done():
			}
		case "huge":
			w.Header().Set("Content-Type", "application/vnd.pypi.simple.v1+json")
			w.Header().Set("Docker-Content-Digest", "not-a-digest")
			chunk := []byte(strings.Repeat(" ", 1<<16))
			for i := 0; i < 64; i++ {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		case "e500":
			w.WriteHeader(http.StatusInternalServerError)
		case "e401":
			w.WriteHeader(http.StatusUnauthorized)
		case "e403":
			w.WriteHeader(http.StatusForbidden)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	host := strings.TrimPrefix(srv.URL, "http://")
	specs := map[string]func(mode string) (map[string]string, launcher.PackageSpec){
		"npm": func(mode string) (map[string]string, launcher.PackageSpec) {
			return map[string]string{"NPM_CONFIG_REGISTRY": srv.URL + "/" + mode + "/"}, mustRecognize(t, "npx", "-y", "pkg")
		},
		"pypi": func(mode string) (map[string]string, launcher.PackageSpec) {
			return map[string]string{"UV_INDEX_URL": srv.URL + "/" + mode + "/simple"}, mustRecognize(t, "uvx", "tool")
		},
		"oci": func(mode string) (map[string]string, launcher.PackageSpec) {
			return map[string]string{}, mustRecognize(t, "docker", "run", "-i", host+"/"+mode+"/img:1")
		},
		"go": func(mode string) (map[string]string, launcher.PackageSpec) {
			return map[string]string{"GOPROXY": srv.URL + "/" + mode}, mustRecognize(t, "go", "run", "example.com/m@v1.0.0")
		},
	}
	for eco, mk := range specs {
		for _, c := range []struct {
			mode string
			kind error
		}{
			{"slow", ErrUnreachable},
			{"huge", ErrTooLarge},
			{"e500", ErrHTTP},
			{"e401", ErrAuth},
			{"e403", ErrAuth},
			{"e404", ErrNotFound},
		} {
			env, spec := mk(c.mode)
			r := npmResolver(t, env)
			r.Timeout = 300 * time.Millisecond
			r.MaxBytes = 1 << 20
			start := time.Now()
			_, err := r.Resolve(context.Background(), spec, nil)
			var e *Error
			if !errors.As(err, &e) || !errors.Is(err, c.kind) || e.Registry == "" || !strings.Contains(err.Error(), e.Registry) {
				t.Errorf("%s %s: %v, want %v", eco, c.mode, err, c.kind)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("%s %s: took %v", eco, c.mode, d)
			}
		}
	}
}

func mustRecognize(t *testing.T, cmd string, args ...string) launcher.PackageSpec {
	t.Helper()
	p, err := launcher.RecognizePackage(cmd, args)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
