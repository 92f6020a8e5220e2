package config

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentgate/agentgate/internal/reporoot"
)

// projectFiles are the client configs discovered at the repository root,
// in the order of ConfigGlobs.
var projectFiles = []struct{ path, client string }{
	{".mcp.json", "claude-code"},
	{".cursor/mcp.json", "cursor"},
	{".vscode/mcp.json", "vscode"},
	{".codex/config.toml", "codex"},
	{".gemini/settings.json", "gemini"},
	{".qwen/settings.json", "qwen"},
	{copilotFile, "copilot"},
	{".zed/settings.json", "zed"},
	{".roo/mcp.json", "roo"},
	{".kiro/settings/mcp.json", "kiro"},
	{".amazonq/mcp.json", "amazonq"},
	{".junie/mcp/mcp.json", "junie"},
	{"opencode.json", "opencode"},
	{"opencode.jsonc", "opencode"},
}

// copilotFile is Copilot CLI's repository config, which it reads only
// when the root has no .mcp.json (a .mcp.json that exists, even empty or
// invalid, takes its place; Copilot CLI 1.0.102, observed).
const copilotFile = ".github/mcp.json"

// continueDir holds Continue's per-file server blocks.
const continueDir = ".continue/mcpServers"

var continueExts = []string{".yaml", ".yml", ".json"}

// ConfigGlobs returns the slash patterns, relative to the repository root,
// of every file Load reads by default, agentgate.toml included (for
// documentation and for a pre-commit "files:" pattern).
func ConfigGlobs() []string {
	var g []string
	for _, f := range projectFiles {
		g = append(g, f.path)
	}
	for _, e := range continueExts {
		g = append(g, continueDir+"/*"+e)
	}
	return append(g, SettingsFile)
}

// IsConfigPath reports whether the slash path, relative to the repository
// root, is a file Load reads by default (see ConfigGlobs). Use
// Project.IsConfigPath to also count the extra files agentgate.toml lists.
func IsConfigPath(p string) bool {
	p = path.Clean(strings.TrimPrefix(filepath.ToSlash(p), "./"))
	if p == SettingsFile {
		return true
	}
	for _, f := range projectFiles {
		if p == f.path {
			return true
		}
	}
	return path.Dir(p) == continueDir && slices.Contains(continueExts, path.Ext(p))
}

// IsConfigPath reports whether the slash path, relative to the root, is a
// file this project's Load reads: a default config file that agentgate.toml
// does not ignore, agentgate.toml itself, or an extra file inside the root.
func (p *Project) IsConfigPath(rel string) bool {
	rel = path.Clean(strings.TrimPrefix(filepath.ToSlash(rel), "./"))
	for _, x := range p.Settings.Extra {
		if path.Clean(strings.TrimPrefix(x.Path, "./")) == rel {
			return true
		}
	}
	return IsConfigPath(rel) && (rel == SettingsFile || !ignored(p.Settings.Ignore, rel))
}

func ignored(patterns []string, rel string) bool {
	for _, g := range patterns {
		if ok, _ := path.Match(g, rel); ok {
			return true
		}
	}
	return false
}

// FindRoot walks up from dir to the directory containing ".git" (a
// directory, or a file in worktrees and submodules), by
// internal/reporoot's rule, the one gitint uses, and returns it as an
// absolute path. Outside a git repository it returns dir, made absolute.
func FindRoot(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("find repository root from %s: %w", dir, err)
	}
	if fi, err := os.Stat(abs); err != nil {
		return "", fmt.Errorf("find repository root: %w", err)
	} else if !fi.IsDir() {
		return "", fmt.Errorf("find repository root: %s is not a directory", dir)
	}
	root, _, err := reporoot.Find(abs)
	switch {
	case errors.Is(err, reporoot.ErrNone):
		return abs, nil
	case err != nil:
		return "", fmt.Errorf("find repository root: %w", err)
	}
	return root, nil
}

// source is one config file to read.
type source struct {
	rel     string // as reported in Server.File
	abs     string
	client  string
	extra   bool
	opt     bool
	outside bool // the file (after symbolic links) is outside the root: errors are opaque
}

// discover lists the config files under root, sorted by rel, and the
// errors met on the way (every one).
//
// A file found by name that is, or lies under, a symbolic link leading
// outside the root is refused unless an [[extra]] entry names it by the
// same path: a committed link must not make agentgate read, and quote,
// a file of the machine it runs on.
func discover(root string, st Settings) ([]source, Errors) {
	var out []source
	var errs Errors
	realRoot, rerr := filepath.EvalSymlinks(root)
	if rerr != nil {
		realRoot = root
	}
	namedExtra := func(rel string) bool {
		return slices.ContainsFunc(st.Extra, func(x ExtraFile) bool {
			return strings.TrimPrefix(path.Clean(filepath.ToSlash(x.Path)), "./") == rel
		})
	}
	add := func(rel, client string) {
		if ignored(st.Ignore, rel) {
			return
		}
		abs := filepath.Join(root, filepath.FromSlash(rel))
		fi, err := os.Stat(abs)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return
		case err != nil:
			errs = append(errs, &Error{File: rel, Msg: "cannot read: " + errText(err)})
			return
		case fi.IsDir():
			errs = append(errs, &Error{File: rel, Msg: "is a directory, expected a config file"})
			return
		}
		if outsideRoot(realRoot, abs) {
			if !namedExtra(rel) {
				errs = append(errs, &Error{File: rel, Msg: "is a symbolic link (or lies under one) that leads outside the repository; agentgate does not read it",
					Hint: fmt.Sprintf("replace the link by the file, or, if reading it is intended, name it in agentgate.toml: [[extra]] path = %q, format = %q", rel, client)})
			}
			return
		}
		out = append(out, source{rel: rel, abs: abs, client: client})
	}
	for _, f := range projectFiles {
		if f.path == copilotFile {
			if _, err := os.Stat(filepath.Join(root, dotMcpFile)); err == nil {
				continue // Copilot CLI reads .mcp.json instead
			}
		}
		add(f.path, f.client)
	}
	entries, err := os.ReadDir(filepath.Join(root, continueDir))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		errs = append(errs, &Error{File: continueDir, Msg: "cannot read directory: " + errText(err)})
	}
	for _, e := range entries {
		if !e.IsDir() && slices.Contains(continueExts, path.Ext(e.Name())) {
			add(continueDir+"/"+e.Name(), "continue")
		}
	}
	for i, x := range st.Extra {
		abs, err := extraPath(root, x.Path)
		if err != nil {
			errs = append(errs, st.errAt(fmt.Sprintf("extra[%d].path", i), err.Error(), ""))
			continue
		}
		if _, err := os.Stat(abs); err != nil {
			if x.Optional && errors.Is(err, fs.ErrNotExist) {
				continue
			}
			errs = append(errs, st.errAt(fmt.Sprintf("extra[%d].path", i), fmt.Sprintf("cannot read %s: %s", x.Path, errText(err)),
				"fix the path, or set optional = true if the file is not present everywhere"))
			continue
		}
		rel := strings.TrimPrefix(path.Clean(filepath.ToSlash(x.Path)), "./")
		if slices.ContainsFunc(out, func(s source) bool { return s.abs == abs }) {
			errs = append(errs, st.errAt(fmt.Sprintf("extra[%d].path", i), rel+" is already read by default", "remove this [[extra]] entry"))
			continue
		}
		out = append(out, source{rel: rel, abs: abs, client: x.Format, extra: true, opt: x.Optional, outside: outsideRoot(realRoot, abs)})
	}
	slices.SortFunc(out, func(a, b source) int { return strings.Compare(a.rel, b.rel) })
	return out, errs
}

// ConfigFile is where a config file of a Project is, and whether it is
// the repository's own (see Project.ConfigFile).
type ConfigFile struct {
	Abs string // its path: "~/" expanded, a relative path joined to the root
	// Outside: the file is outside the repository root, by its path
	// (an [[extra]] path that is absolute, "~/..." or "../...") or
	// through a symbolic link leading out of the root (the file, or a
	// directory above it). agentgate quotes nothing of such a file in
	// errors, and wrap, unwrap and pin do not edit it.
	Outside bool
	// Link: Outside only through a symbolic link; its path is in the
	// repository.
	Link bool
}

// ConfigFile returns where config file rel (one of p.Files, as named
// there) is and whether it is outside the repository, with every
// symbolic link resolved now, as Load decides it when it reads the file:
// the one decision of which config files are the repository's own.
func (p *Project) ConfigFile(rel string) ConfigFile {
	abs, err := extraPath(p.Root, rel)
	if err != nil {
		return ConfigFile{Abs: rel, Outside: true}
	}
	realRoot, err := filepath.EvalSymlinks(p.Root)
	if err != nil {
		realRoot = p.Root
	}
	f := ConfigFile{Abs: abs, Outside: outsideRoot(realRoot, abs)}
	byPath := filepath.IsAbs(rel) || strings.HasPrefix(rel, "~/") || rel == ".." || strings.HasPrefix(path.Clean(filepath.ToSlash(rel)), "../")
	f.Link = f.Outside && !byPath
	return f
}

// outsideRoot reports whether abs, with every symbolic link resolved, is
// outside realRoot (the root with its links resolved). A path that cannot
// be resolved counts as outside.
func outsideRoot(realRoot, abs string) bool {
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return true
	}
	rel, err := filepath.Rel(realRoot, real)
	return err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel)
}

// extraPath resolves an [[extra]] path: "~/" is the home directory, a
// relative path is relative to root.
func extraPath(root, p string) (string, error) {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("cannot expand ~: %v", err)
		}
		return filepath.Join(home, filepath.FromSlash(rest)), nil
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p), nil
	}
	return filepath.Join(root, filepath.FromSlash(p)), nil
}

// errText renders an OS error without repeating the path, in the same
// words on every OS for the two a user meets most: a missing file is "no
// such file or directory" (Windows says "The system cannot find the file
// specified.", or "... path ...") and a refused one "permission denied".
func errText(err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "no such file or directory"
	case errors.Is(err, fs.ErrPermission):
		return "permission denied"
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// readSource reads and parses one file with its client's parser.
func readSource(s source) (fileResult, error) {
	f, err := os.Open(s.abs)
	if err != nil {
		msg := "cannot read: " + errText(err)
		return fileResult{}, &Error{File: s.rel, Msg: msg, kind: msg}
	}
	defer f.Close()
	// Read at most maxFileSize+1 bytes: a buffer sized for the file, not
	// for the limit (this runs on every commit, for every config file).
	data, err := io.ReadAll(io.LimitReader(f, maxFileSize+1))
	if err != nil {
		msg := "cannot read: " + errText(err)
		return fileResult{}, &Error{File: s.rel, Msg: msg, kind: msg}
	}
	if len(data) > maxFileSize {
		msg := fmt.Sprintf("larger than %d bytes", maxFileSize)
		return fileResult{}, &Error{File: s.rel, Msg: msg, kind: msg}
	}
	return parseFile(s.client, s.rel, data)
}

// ParseFile parses data as a config file of client (file is its slash
// path relative to the root, as Server.File names it) with the client's
// own rules: its enabled servers in file order, commands and args as
// written (what mcp/configedit edits), and the servers it configures but
// does not lock. Load reads each file so and then sees through the guard
// wrapper (SeeThrough). The error is an *Error or an Errors.
func ParseFile(client, file string, data []byte) ([]Server, []Skipped, error) {
	res, err := parseFileRaw(client, file, data)
	return res.servers, res.skipped, err
}

// parseFile parses data as the given client's config, seeing through the
// agentgate guard wrapper (see seeThrough).
func parseFile(client, file string, data []byte) (fileResult, error) {
	res, err := parseFileRaw(client, file, data)
	if err != nil {
		return res, err
	}
	return seeThrough(file, res)
}

// parseFileRaw parses data as the given client's config, commands and args
// as written.
func parseFileRaw(client, file string, data []byte) (fileResult, error) {
	switch {
	case client == "codex":
		root, err := parseTOML(file, data)
		if err != nil {
			return fileResult{}, err
		}
		return parseCodex(file, root)
	case client == "continue" && path.Ext(file) != ".json":
		root, err := parseYAML(file, data)
		if err != nil {
			return fileResult{}, err
		}
		return parseContinue(file, root)
	}
	root, err := parseJSONC(file, data)
	if err != nil {
		return fileResult{}, err
	}
	switch client {
	case "zed":
		return parseZed(file, root)
	case "opencode":
		return parseOpencode(file, root)
	}
	if _, ok := jsonClients[client]; !ok {
		return fileResult{}, &Error{File: file, Msg: fmt.Sprintf("unknown client format %q", client)}
	}
	res, err := parseJSONClient(client, file, root)
	if client == "claude-code" && file == dotMcpFile {
		noteVSCodeReading(&res, data)
	}
	return res, err
}

// ClientOf returns the client whose format the file rel (as in
// Server.File) is read with: a default config file's client, or the
// format of the [[extra]] entry of st naming it; "" if neither.
func (st Settings) ClientOf(rel string) string {
	for _, f := range projectFiles {
		if f.path == rel {
			return f.client
		}
	}
	if path.Dir(rel) == continueDir {
		return "continue"
	}
	for _, x := range st.Extra {
		if strings.TrimPrefix(path.Clean(filepath.ToSlash(x.Path)), "./") == rel {
			return x.Format
		}
	}
	return ""
}
