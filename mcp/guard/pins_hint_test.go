package guard

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A lockfile of a newer version gets lock's own hint (upgrade agentgate,
// from lock.VersionError's Hints); a damaged one, guard's (regenerate it).
func TestReadPinsHints(t *testing.T) {
	for _, tc := range []struct{ name, data, want string }{
		{"newer", `{"lockfileVersion": 99}`, "agentgate: hint: a newer agentgate wrote this file: upgrade agentgate"},
		{"damaged", `{"lockfileVersion": 1, "servers": [}`, "agentgate: hint: agentgate writes this file; if it was edited by hand or damaged"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "agentgate.lock")
			if err := os.WriteFile(path, []byte(tc.data), 0o644); err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			if _, code := readPins(path, "x", false, &stderr); code != ExitInvalid || !strings.Contains(stderr.String(), tc.want) {
				t.Errorf("exit %d, stderr:\n%s\nwant a line starting %q", code, stderr.String(), tc.want)
			}
		})
	}
}
