package config

import (
	"os"
	"path"
	"path/filepath"
	"strings"
)

// LoadAt loads the project as it is at another revision of the repository
// (for agentgate ci --trusted-ref): read returns the content of a
// slash-separated path relative to the root at that revision, ok false
// when the file does not exist there. paths lists the config files to read
// besides the ones Load discovers by name (pass the current Project.Files:
// read cannot list directories, so Continue's files and agentgate.toml's
// extra files are found through it); agentgate.toml, its relative extra
// files and the files a Windows client would run for agentgate at the root
// (agentgateNames, in lower case) are always read. Paths outside the root are ignored, and extra
// files outside the root (absolute or "~/") are read from disk as Load
// does. The returned Project's Root is "" (the files lived in a temporary
// directory, removed before LoadAt returns); errors name the files as at
// the revision.
func LoadAt(paths []string, read func(path string) (data []byte, ok bool, err error)) (*Project, error) {
	tmp, err := os.MkdirTemp("", "agentgate-rev-*")
	if err != nil {
		return nil, &Error{File: SettingsFile, Msg: "cannot make a temporary directory: " + errText(err)}
	}
	defer os.RemoveAll(tmp)
	want := map[string]bool{SettingsFile: true}
	for _, f := range projectFiles {
		want[f.path] = true
	}
	for _, n := range agentgateNames { // see plantedAgentgate
		want[n] = true
	}
	for _, p := range paths {
		want[p] = true
	}
	if data, ok, err := read(SettingsFile); err != nil {
		return nil, &Error{File: SettingsFile, Msg: "cannot read at the revision: " + errText(err)}
	} else if ok {
		if st, err := ParseSettings(SettingsFile, data); err == nil {
			for _, x := range st.Extra {
				want[strings.TrimPrefix(x.Path, "./")] = true
			}
		}
	}
	for p := range want {
		if !inside(p) {
			continue
		}
		data, ok, err := read(p)
		if err != nil {
			return nil, &Error{File: p, Msg: "cannot read at the revision: " + errText(err)}
		}
		if !ok {
			continue
		}
		abs := filepath.Join(tmp, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
			return nil, &Error{File: p, Msg: "cannot copy to a temporary directory: " + errText(err)}
		}
		if err := os.WriteFile(abs, data, 0o600); err != nil {
			return nil, &Error{File: p, Msg: "cannot copy to a temporary directory: " + errText(err)}
		}
	}
	p, err := Load(tmp)
	if err != nil {
		return nil, err
	}
	p.Root = ""
	return p, nil
}

// inside reports whether p is a clean slash path below the root.
func inside(p string) bool {
	return p != "" && !strings.HasPrefix(p, "/") && !strings.HasPrefix(p, "~") && !strings.Contains(p, "\\") &&
		path.Clean(p) == p && p != ".." && !strings.HasPrefix(p, "../")
}

// DefinitionDiff returns the first field in which the definitions a and b
// differ ("transport", "command", "args", "env", "envFile", "cwd", "url",
// "headers"), or "" when they are the same server. It is the comparison
// Load uses for a server defined in several files: templates are compared
// in one neutral syntax, and the environment is never read. Name, file and
// position are not compared.
func DefinitionDiff(a, b Server) string {
	if f := differ(a, b); f != "" {
		return f
	}
	if a.FallbackSSE != b.FallbackSSE {
		return "transport"
	}
	return ""
}
