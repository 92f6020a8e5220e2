package capture

import (
	"bytes"
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/mcp/config"
	"github.com/agentgate/agentgate/mcp/wire"
)

// TestProgressLines pins the progress format the package documents:
// "agentgate: NAME: STATE (ELAPSED)", one line per state change, in order,
// with a failed server ending in "failed" and a name that is not graphic
// shown escaped by safetext.VisibleLine, in quotes.
func TestProgressLines(t *testing.T) {
	n := strconv.Itoa(len(wantTools(t)))
	tests := []struct {
		name   string
		server config.Resolved
		want   []string // regexps, one per line, in order
	}{
		{
			name:   "success",
			server: fake(t, "notes", "-tools", "testdata/tools.json"),
			want: []string{
				`^agentgate: notes: starting \(0\.0s\)$`,
				`^agentgate: notes: initializing \(\d+\.\ds\)$`,
				`^agentgate: notes: listing tools \(protocol 2025-11-25\) \(\d+\.\ds\)$`,
				`^agentgate: notes: done: ` + n + ` tools \(\d+\.\ds\)$`,
			},
		},
		{
			name:   "failure",
			server: config.Resolved{Server: config.Server{Name: "down", File: ".mcp.json", Transport: config.Stdio, Command: "/nonexistent/agentgate-test-server"}},
			want: []string{
				`^agentgate: down: starting \(0\.0s\)$`,
				`^agentgate: down: failed \(\d+\.\ds\)$`,
			},
		},
		{
			name:   "escapes in the name",
			server: fake(t, "a\x1b[31mb\u202ec", "-tools", "testdata/tools.json"),
			want: []string{
				`^agentgate: "a\\x1b\[31mb<U\+202E RIGHT-TO-LEFT OVERRIDE>c": starting \(0\.0s\)$`,
				`^agentgate: "a\\x1b\[31mb<U\+202E RIGHT-TO-LEFT OVERRIDE>c": initializing `,
				`^agentgate: "a\\x1b\[31mb<U\+202E RIGHT-TO-LEFT OVERRIDE>c": listing tools `,
				`^agentgate: "a\\x1b\[31mb<U\+202E RIGHT-TO-LEFT OVERRIDE>c": done: ` + n + ` tools `,
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			CaptureAll(context.Background(), []config.Resolved{tc.server}, wire.Options{Progress: &buf})
			lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
			if len(lines) != len(tc.want) {
				t.Fatalf("%d progress lines, want %d:\n%s", len(lines), len(tc.want), buf.String())
			}
			for i, w := range tc.want {
				if !regexp.MustCompile(w).MatchString(lines[i]) {
					t.Errorf("line %d = %q, want %s", i+1, lines[i], w)
				}
			}
			if strings.ContainsAny(buf.String(), "\x1b\u202e") {
				t.Errorf("progress writes raw escape or bidi characters: %q", buf.String())
			}
		})
	}
}
