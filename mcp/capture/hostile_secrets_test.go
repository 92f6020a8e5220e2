package capture

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentgate/agentgate/mcp/config"
	"github.com/agentgate/agentgate/mcp/wire"
)

// Parts of secrets (issue #17 item 6): no output shows a fragment of a
// known secret, wherever a cut falls: redact first, then cut, and never
// keep a fragment at a cut edge.

const fragSecret = "sk-live-0123456789abcdefghijABCDEFGHIJ" // 38 bytes

// assertNoFragment fails when text holds any 6-byte piece of secret.
func assertNoFragment(t *testing.T, what, text, secret string) {
	t.Helper()
	for i := 0; i+6 <= len(secret); i++ {
		if strings.Contains(text, secret[i:i+6]) {
			t.Errorf("%s shows %q, a piece of the secret:\n%s", what, secret[i:i+6], text)
			return
		}
	}
}

// shServer is a stdio server running script with the secret in API_KEY.
func shServer(script string) config.Resolved {
	return config.Resolved{
		Server:  config.Server{Name: "sh", File: ".mcp.json", Transport: config.Stdio, Command: "sh", Args: []string{"-c", script}, Env: map[string]string{"API_KEY": fragSecret}},
		Secrets: []string{fragSecret},
	}
}

func TestHostileSecretFragments(t *testing.T) {
	for _, tc := range []struct{ name, script string }{
		// A non-JSON stdout line whose secret straddles the 120-byte cut.
		{"stdout line cut", fmt.Sprintf(`printf '%%s%%s tail\n' "%s" "$API_KEY"; exit 1`, strings.Repeat("x", 100))},
		// The same, each cut position around the secret.
		{"stdout line cut at 90", fmt.Sprintf(`printf '%%s%%s tail\n' "%s" "$API_KEY"; exit 1`, strings.Repeat("x", 90))},
		// A stderr tail without a newline whose 8 KiB window starts inside
		// the secret.
		{"stderr tail mid-line", fmt.Sprintf(`printf '%%s%%s%%s' "head" "$API_KEY" "%s" >&2; exit 1`, strings.Repeat("z", 8192-20))},
		// A last stderr line longer than 300 bytes, secret across the cut.
		{"stderr last line cut", fmt.Sprintf(`printf '%%s%%s tail\n' "%s" "$API_KEY" >&2; exit 1`, strings.Repeat("y", 280))},
		// Base64 of the secret, as a Basic credential echoed back.
		{"base64 echoed", `printf 'Authorization: Basic %s\n' "$(printf '%s' "$API_KEY" | base64 -w0)" >&2; exit 1`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			res := CaptureAll(ctx, []config.Resolved{shServer(tc.script)}, wire.Options{Timeout: 20 * time.Second})[0]
			if res.Err == nil {
				t.Fatal("no error")
			}
			assertNoFragment(t, "error", res.Err.Error(), fragSecret)
			assertNoFragment(t, "stderr tail", res.StderrTail, fragSecret)
			b64 := base64.StdEncoding.EncodeToString([]byte(fragSecret))
			assertNoFragment(t, "error (base64)", res.Err.Error(), b64)
			assertNoFragment(t, "stderr tail (base64)", res.StderrTail, b64)
		})
	}
}
