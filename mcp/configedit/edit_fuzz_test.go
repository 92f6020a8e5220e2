package configedit

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/mcp/config"
	"github.com/agentgate/agentgate/mcp/launcher"
)

// FuzzEditRoundTrip: on any input the editor either refuses or edits
// exactly: a file WrapFile accepts comes back byte for byte from
// UnwrapFile and reads as the same servers through the wrapper; a pin of
// every unpinned spec reads back as the pinned argv (SetArgument checks
// that itself) and pins nothing twice. Seeded with every golden input.
func FuzzEditRoundTrip(f *testing.F) {
	files, _ := filepath.Glob("testdata/edit/*.txtar")
	for _, name := range files {
		a, client, file, err := readEditCase(name)
		if err != nil {
			f.Fatal(err)
		}
		for _, af := range a.Files {
			if af.Name == "in" {
				f.Add(client+"\n"+file, af.Data)
			}
		}
	}
	f.Fuzz(func(t *testing.T, where string, data []byte) {
		client, file, ok := strings.Cut(where, "\n")
		if !ok || !knownEditFormat(client, file) {
			return
		}
		out, wrapped, _, err := WrapFile(client, file, data, WrapOptions{})
		if err != nil {
			return
		}
		if len(wrapped) > 0 {
			back, _, err := UnwrapFile(client, file, out)
			if err != nil || !bytes.Equal(back, data) {
				t.Fatalf("unwrap(wrap(x)) != x (%v):\n%q\n%q", err, back, data)
			}
			sa, err1 := readThrough(client, file, data)
			sb, err2 := readThrough(client, file, out)
			if err1 != nil || err2 != nil || len(sa) != len(sb) {
				t.Fatalf("wrapped file reads differently: %v %v", err1, err2)
			}
			for i := range sa {
				if d := config.DefinitionDiff(sa[i], sb[i]); d != "" {
					t.Fatalf("server %q: %s differs through the wrapper", sa[i].Name, d)
				}
			}
		}
		pinned, pins, err := PinFile(client, file, data, func(_ config.Server, p launcher.PackageSpec) (string, string, error) {
			if p.Ecosystem == launcher.EcoGo {
				return "v1.2.3", "", nil
			}
			return "1.2.3", "sha256:" + strings.Repeat("ab", 32), nil
		})
		if err != nil || len(pins) == 0 {
			return
		}
		again, more, err := PinFile(client, file, pinned, func(config.Server, launcher.PackageSpec) (string, string, error) {
			return "9.9.9", "sha256:" + strings.Repeat("cd", 32), nil
		})
		if err != nil || len(more) > 0 || !bytes.Equal(again, pinned) {
			t.Fatalf("a pinned file pins again (%v, %+v)", err, more)
		}
	})
}

func knownEditFormat(client, file string) bool {
	switch client {
	case "codex", "zed", "opencode":
		return true
	case "continue":
		return strings.HasPrefix(file, ".continue/mcpServers/") && len(file) > len(".continue/mcpServers/")
	}
	key, _ := config.ServersMember(client)
	return key != ""
}
