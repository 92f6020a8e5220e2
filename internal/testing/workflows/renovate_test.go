package workflows

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/internal/testing/testenv"
	"github.com/agentgate/agentgate/mcp/config"
)

type renovateManager struct {
	CustomType          string   `json:"customType"`
	ManagerFilePatterns []string `json:"managerFilePatterns"`
	MatchStrings        []string `json:"matchStrings"`
	DatasourceTemplate  string   `json:"datasourceTemplate"`
}

// readRenovate compiles docs/renovate.json's custom managers: each file
// pattern ("/regex/") and match string as Go regexps (RE2, as Renovate's
// re2 engine; named groups (?<name>) as Renovate writes them).
func readRenovate(t *testing.T) map[string]struct{ files, match *regexp.Regexp } {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "docs", "renovate.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		CustomManagers    []renovateManager `json:"customManagers"`
		GitIgnoredAuthors []string          `json:"gitIgnoredAuthors"`
	}
	if err := json.Unmarshal(b, &cfg); err != nil {
		t.Fatalf("docs/renovate.json: %v", err)
	}
	wf, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "docs", "github-actions-renovate.yml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range cfg.GitIgnoredAuthors {
		if !strings.Contains(string(wf), `git config user.email "`+a+`"`) {
			t.Errorf("gitIgnoredAuthors %q is not the relock workflow's committer", a)
		}
	}
	out := map[string]struct{ files, match *regexp.Regexp }{}
	for _, m := range cfg.CustomManagers {
		if m.CustomType != "regex" || len(m.ManagerFilePatterns) != 1 || len(m.MatchStrings) != 1 {
			t.Fatalf("manager %+v: want a regex manager with one file pattern and one match string", m)
		}
		pat := m.ManagerFilePatterns[0]
		if !strings.HasPrefix(pat, "/") || !strings.HasSuffix(pat, "/") {
			t.Fatalf("managerFilePatterns %q: want a /regex/", pat)
		}
		out[m.DatasourceTemplate] = struct{ files, match *regexp.Regexp }{
			regexp.MustCompile(strings.Trim(pat, "/")), regexp.MustCompile(m.MatchStrings[0])}
	}
	return out
}

// TestRenovateFilePatterns: every manager reads exactly the client configs
// agentgate reads by default (config.IsConfigPath), not agentgate's own files.
func TestRenovateFilePatterns(t *testing.T) {
	paths := []string{".mcp.json", ".vscode/mcp.json", ".codex/config.toml", "opencode.jsonc",
		".continue/mcpServers/a.yaml", "agentgate.toml", "agentgate.lock", "sub/.mcp.json", "package.json", ".mcp.json.bak"}
	for _, g := range config.ConfigGlobs() {
		paths = append(paths, strings.ReplaceAll(g, "*", "server"))
	}
	for ds, m := range readRenovate(t) {
		for _, p := range paths {
			want := config.IsConfigPath(p) && p != config.SettingsFile
			if got := m.files.MatchString(p); got != want {
				t.Errorf("%s manager: matches %q = %v, config.IsConfigPath (not agentgate.toml) says %v", ds, p, got, want)
			}
		}
	}
}

// TestRenovateMatchStrings: the managers find the pinned versions in the
// forms agentgate pin writes and leave unpinned specs alone.
func TestRenovateMatchStrings(t *testing.T) {
	m := readRenovate(t)
	digest := strings.Repeat("0a", 32)
	for _, tt := range []struct {
		ds, text string
		want     map[string]string // named group -> value; nil: no match
	}{
		{"npm", `"args": ["-y", "@modelcontextprotocol/server-memory@2026.1.26"]`, map[string]string{"depName": "@modelcontextprotocol/server-memory", "currentValue": "2026.1.26"}},
		{"npm", `args = ["-y", "mcp-remote@0.1.37"]`, map[string]string{"depName": "mcp-remote", "currentValue": "0.1.37"}},
		{"npm", `"args": ["-y", "pkg@1.0.0-beta.2"]`, map[string]string{"depName": "pkg", "currentValue": "1.0.0-beta.2"}},
		{"npm", `"args": ["-y", "@modelcontextprotocol/server-memory"]`, nil},
		{"npm", `"args": ["-y", "pkg@latest"]`, nil},
		{"npm", `"url": "https://user@1.2.3.4/mcp"`, nil},
		{"pypi", `"args": ["mcp-server-fetch==2025.4.7"]`, map[string]string{"depName": "mcp-server-fetch", "currentValue": "2025.4.7"}},
		{"pypi", `"args": ["--from", "mcp_server_git==1.2rc1", "mcp-server-git"]`, map[string]string{"depName": "mcp_server_git", "currentValue": "1.2rc1"}},
		{"pypi", `"args": ["mcp-server-fetch>=2025"]`, nil},
		{"docker", `"args": ["run", "-i", "--rm", "ghcr.io/github/github-mcp-server:v0.9.0@sha256:` + digest + `"]`, map[string]string{"depName": "ghcr.io/github/github-mcp-server", "currentValue": "v0.9.0", "currentDigest": "sha256:" + digest}},
		{"docker", `"args": ["run", "mcp/fetch:latest"]`, nil},
	} {
		re := m[tt.ds].match
		sub := re.FindStringSubmatch(tt.text)
		if tt.want == nil {
			if sub != nil {
				t.Errorf("%s: %s: matched %q, want no match", tt.ds, tt.text, sub[0])
			}
			continue
		}
		if sub == nil {
			t.Errorf("%s: %s: no match", tt.ds, tt.text)
			continue
		}
		for name, want := range tt.want {
			if got := sub[re.SubexpIndex(name)]; got != want {
				t.Errorf("%s: %s: %s = %q, want %q", tt.ds, tt.text, name, got, want)
			}
		}
	}
}
