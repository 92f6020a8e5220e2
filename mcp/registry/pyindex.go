package registry

// pyindex.go: which package indexes uvx / uv tool run and pipx run
// search, in which order, read as each launcher reads its own settings
// (docs/config.md, "Package registries", names the versions followed).

import (
	"bufio"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentgate/agentgate/mcp/launcher"

	"github.com/BurntSushi/toml"
)

// Index strategies: uv's --index-strategy values; pip always considers
// every index and takes the best version (uvBestMatch).
const (
	uvFirstIndex = "first-index"
	uvFirstMatch = "unsafe-first-match"
	uvBestMatch  = "unsafe-best-match"
)

// pyIndex is one index to search.
type pyIndex struct {
	url    string // as configured (may hold userinfo)
	source string // where it was configured
	name   string // uv's index name ("" when unnamed): UV_INDEX_<NAME>_USERNAME / _PASSWORD
	// ignore are HTTP statuses that pass the search on to the next index
	// like a 404 (uv's [[index]] ignore-error-codes).
	ignore []int
}

// pyIndexes is the search a launcher makes: list in priority order (the
// default index last), the strategy, and, when list is empty, what was
// read (for the error).
type pyIndexes struct {
	list     []pyIndex
	strategy string
	read     string
}

// pypiIndexes returns the indexes spec's launcher searches.
func (r *Resolver) pypiIndexes(spec launcher.PackageSpec, args []string) (pyIndexes, error) {
	if strings.HasPrefix(spec.Launcher, "pipx") {
		return r.pipIndexes(spec, args)
	}
	return r.uvIndexes(spec, args)
}

// uvSettings is the part of a uv.toml agentgate reads (uv's settings
// reference: index, index-url, extra-index-url, index-strategy, no-index).
type uvSettings struct {
	Index []struct {
		Name     string `toml:"name"`
		URL      string `toml:"url"`
		Default  bool   `toml:"default"`
		Explicit bool   `toml:"explicit"`
		Format   string `toml:"format"`
		Ignore   []int  `toml:"ignore-error-codes"`
	} `toml:"index"`
	IndexURL      string   `toml:"index-url"`
	ExtraIndexURL []string `toml:"extra-index-url"`
	IndexStrategy string   `toml:"index-strategy"`
	NoIndex       bool     `toml:"no-index"`
}

// uvIndexes follows uv (docs.astral.sh/uv, "Configuration files", "Package
// indexes" and the environment and CLI references, uv 0.9): the command
// line, then the environment, then uv.toml files; for tool commands (uvx,
// uv tool run) only the user-level and system-level uv.toml are read,
// never the project's uv.toml or pyproject.toml. Extra indexes (--index,
// --extra-index-url, UV_INDEX, UV_EXTRA_INDEX_URL, [[index]] entries
// without default = true, extra-index-url) come first, in that order, each
// list in its written order; the default index (--default-index,
// --index-url, UV_DEFAULT_INDEX, UV_INDEX_URL, the [[index]] entry with
// default = true, index-url; the first found) is searched last. Explicit
// indexes (explicit = true) serve only packages pinned to them in a
// project's sources, and flat (find-links) indexes are no simple API:
// neither is searched.
func (r *Resolver) uvIndexes(spec launcher.PackageSpec, args []string) (pyIndexes, error) {
	var c uvCollect
	// The command line (options before the package).
	for _, o := range launcherOptions(spec, args, "--index") {
		c.addExtra(o.val, o.source)
	}
	for _, o := range launcherOptions(spec, args, "--extra-index-url") {
		c.addExtra(o.val, o.source)
	}
	for _, o := range launcherOptions(spec, args, "--default-index", "--index-url", "-i") {
		c.setDef(pyIndex{url: o.val, source: o.source})
	}
	c.strategy, _ = launcherOption(spec, args, "--index-strategy")
	noConfig := len(launcherOptions(spec, args, "--no-config")) > 0
	configFile, configSrc := launcherOption(spec, args, "--config-file")
	// The environment.
	c.addExtra(r.getenv("UV_INDEX"), "UV_INDEX")
	c.addExtra(r.getenv("UV_EXTRA_INDEX_URL"), "UV_EXTRA_INDEX_URL")
	for _, v := range []string{"UV_DEFAULT_INDEX", "UV_INDEX_URL"} {
		c.setDef(pyIndex{url: r.getenv(v), source: v})
	}
	if c.strategy == "" {
		c.strategy = r.getenv("UV_INDEX_STRATEGY")
	}
	if v := strings.ToLower(r.getenv("UV_NO_CONFIG")); v != "" && v != "0" && v != "false" {
		noConfig = true
	}
	if configFile == "" {
		configFile, configSrc = r.getenv("UV_CONFIG_FILE"), "UV_CONFIG_FILE"
	}
	// uv.toml: --config-file / UV_CONFIG_FILE replaces discovery; user
	// before system (scalars: the user's wins; lists: the user's first).
	var files []string
	c.read = []string{"--index / --default-index / --index-url in the server's args", "UV_INDEX", "UV_EXTRA_INDEX_URL", "UV_DEFAULT_INDEX", "UV_INDEX_URL"}
	switch {
	case noConfig:
		c.read = append(c.read, "no uv.toml (--no-config / UV_NO_CONFIG)")
	case configFile != "":
		files = []string{configFile}
	default:
		files = r.uvConfigFiles()
	}
	for _, file := range files {
		var st uvSettings
		md, err := toml.DecodeFile(file, &st)
		switch {
		case errors.Is(err, os.ErrNotExist) && configFile == "":
			c.read = append(c.read, file+" (absent)")
			continue
		case err != nil && configFile != "":
			return pyIndexes{}, fmt.Errorf("cannot read uv's config file %s (given by %s): %v", file, configSrc, err)
		case err != nil:
			return pyIndexes{}, fmt.Errorf("cannot read uv's config file %s: %v (uv refuses it too)", file, err)
		}
		c.addFile(file, st, md)
	}
	return c.indexes()
}

// uvCollect gathers what uvIndexes finds, in uv's order of precedence.
type uvCollect struct {
	extra    []pyIndex
	def      *pyIndex // the first default index found
	strategy string   // the first index strategy found
	read     []string // what was read, for the error when nothing names an index
}

// setDef makes ix the default index unless one was found before (or ix
// has no URL).
func (c *uvCollect) setDef(ix pyIndex) {
	if c.def == nil && strings.TrimSpace(ix.url) != "" {
		ix.url = strings.TrimSpace(ix.url)
		c.def = &ix
	}
}

// addExtra adds the extra indexes of a space-separated list, each a URL
// or NAME=URL (as --index and UV_INDEX take them).
func (c *uvCollect) addExtra(list string, source string) {
	for _, e := range strings.Fields(list) {
		name, u, ok := strings.Cut(e, "=")
		if !ok || strings.Contains(name, "/") || strings.Contains(name, ":") {
			name, u = "", e
		}
		c.extra = append(c.extra, pyIndex{url: u, source: source, name: name})
	}
}

// addFile adds what one uv.toml names: its [[index]] entries (neither
// explicit nor flat), extra-index-url, index-url and index-strategy.
func (c *uvCollect) addFile(file string, st uvSettings, md toml.MetaData) {
	c.read = append(c.read, file)
	for i, ix := range st.Index {
		src := fmt.Sprintf("%s ([[index]] #%d)", file, i+1)
		switch {
		case ix.Explicit || ix.Format == "flat" || strings.TrimSpace(ix.URL) == "":
		case ix.Default:
			c.setDef(pyIndex{url: ix.URL, source: src, name: ix.Name, ignore: ix.Ignore})
		default:
			c.extra = append(c.extra, pyIndex{url: strings.TrimSpace(ix.URL), source: src, name: ix.Name, ignore: ix.Ignore})
		}
	}
	for _, u := range st.ExtraIndexURL {
		c.extra = append(c.extra, pyIndex{url: strings.TrimSpace(u), source: file + " (extra-index-url)"})
	}
	c.setDef(pyIndex{url: st.IndexURL, source: file + " (index-url)"})
	if c.strategy == "" && md.IsDefined("index-strategy") {
		c.strategy = st.IndexStrategy
	}
}

// indexes is the extra indexes, then the default one, searched with the
// strategy found (uv's first-index when none).
func (c *uvCollect) indexes() (pyIndexes, error) {
	out := pyIndexes{list: c.extra, strategy: uvFirstIndex, read: strings.Join(c.read, ", ") + ": none names an index"}
	switch c.strategy {
	case "", uvFirstIndex, "first-match":
	case uvFirstMatch, uvBestMatch:
		out.strategy = c.strategy
	case "unsafe-any-match":
		out.strategy = uvBestMatch
	default:
		return pyIndexes{}, fmt.Errorf("unknown uv index strategy %q", c.strategy)
	}
	if c.def != nil {
		out.list = append(out.list, *c.def)
	}
	return out, nil
}

// uvConfigFiles are the user-level and system-level uv.toml, as uv
// discovers them: the user's $XDG_CONFIG_HOME/uv/uv.toml (else
// ~/.config/uv/uv.toml, on macOS too; %APPDATA%\uv\uv.toml on Windows), then the first
// system file among $XDG_CONFIG_DIRS/uv/uv.toml (default /etc/xdg) and
// /etc/uv/uv.toml (%SYSTEMDRIVE%\ProgramData\uv\uv.toml on Windows)
// (docs.astral.sh/uv/concepts/configuration-files, "Configuration
// files": user- and system-level configuration).
func (r *Resolver) uvConfigFiles() []string {
	var user string
	var system []string
	if r.goos() == "windows" {
		if ad := r.getenv("APPDATA"); ad != "" {
			user = filepath.Join(ad, "uv", "uv.toml")
		}
		drive := r.getenv("SYSTEMDRIVE")
		if drive == "" {
			drive = "C:"
		}
		system = []string{filepath.Join(r.systemRoot(drive+`\ProgramData`), "uv", "uv.toml")}
	} else {
		user = filepath.Join(r.xdgConfigHome(), "uv", "uv.toml")
		dirs := r.getenv("XDG_CONFIG_DIRS")
		if dirs == "" {
			dirs = r.systemRoot("/etc/xdg")
		}
		for _, d := range filepath.SplitList(dirs) {
			if d != "" {
				system = append(system, filepath.Join(d, "uv", "uv.toml"))
			}
		}
		system = append(system, filepath.Join(r.systemRoot("/etc"), "uv", "uv.toml"))
	}
	var out []string
	if user != "" {
		out = append(out, user)
	}
	for _, s := range system {
		if _, err := os.Stat(s); err == nil {
			return append(out, s)
		}
	}
	return out
}

// xdgConfigHome is $XDG_CONFIG_HOME, else ~/.config.
func (r *Resolver) xdgConfigHome() string {
	if x := r.getenv("XDG_CONFIG_HOME"); filepath.IsAbs(x) {
		return x
	}
	return filepath.Join(r.home(), ".config")
}

// systemRoot maps a system-wide directory (/etc, /etc/xdg, ProgramData)
// into Resolver.SystemDir when that is set (tests), else returns it.
func (r *Resolver) systemRoot(dir string) string {
	if r.SystemDir == "" {
		return dir
	}
	if len(dir) >= 2 && dir[1] == ':' {
		dir = dir[2:] // C:\ProgramData: a drive letter cannot be a directory name
	}
	return filepath.Join(r.SystemDir, strings.TrimPrefix(strings.ReplaceAll(dir, `\`, "/"), "/"))
}

// pipIndexes follows pip (pip.pypa.io, "Configuration", pip 24/25), which
// pipx runs as `pip install`: options in the server's args (pipx run
// --index-url, and --index-url / --extra-index-url inside --pip-args),
// then PIP_INDEX_URL / PIP_EXTRA_INDEX_URL, then pip.conf files, where a
// key of the [install] section wins over [global] whatever file holds it,
// and among files the later one in pip's order wins: PIP_CONFIG_FILE's is
// loaded last unless it is os.devnull (then no file is read); the global
// files ($XDG_CONFIG_DIRS/pip/pip.conf, default /etc/xdg, then
// /etc/pip.conf), then the user's legacy ~/.pip/pip.conf and
// $XDG_CONFIG_HOME/pip/pip.conf (skipped when PIP_CONFIG_FILE names a file
// that exists). On macOS the global file is /Library/Application
// Support/pip/pip.conf and the user's ~/Library/Application
// Support/pip/pip.conf when that directory exists, else
// ~/.config/pip/pip.conf; on Windows the file name is pip.ini:
// %ProgramData%\pip\pip.ini (default C:\ProgramData), then the legacy
// %HOME%\pip\pip.ini (the user's home, %USERPROFILE%) and
// %APPDATA%\pip\pip.ini. (pip.pypa.io/en/stable/topics/configuration,
// "Location".) pip considers every index and takes the best
// version (uvBestMatch); the index-url comes first in the list here only
// so that, for the same best version, its files are the ones recorded.
func (r *Resolver) pipIndexes(spec launcher.PackageSpec, args []string) (pyIndexes, error) {
	var def *pyIndex
	var extra []pyIndex
	if v, src := launcherOption(spec, args, "--index-url", "-i"); v != "" {
		def = &pyIndex{url: v, source: src}
	}
	if pa, _ := launcherOption(spec, args, "--pip-args"); pa != "" {
		f := strings.Fields(pa)
		for i := 0; i < len(f); i++ {
			name, val, eq := strings.Cut(f[i], "=")
			if !eq && i+1 < len(f) {
				val = f[i+1]
			}
			switch name {
			case "--index-url", "-i":
				if def == nil {
					def = &pyIndex{url: val, source: "the server's --pip-args " + name + " option"}
				}
			case "--extra-index-url":
				extra = append(extra, pyIndex{url: val, source: "the server's --pip-args --extra-index-url option"})
			}
		}
	}
	conf, read := r.pipConfig()
	key := func(k string) (string, string) {
		if v, ok := r.lookupEnv("PIP_" + strings.ToUpper(strings.ReplaceAll(k, "-", "_"))); ok && v != "" {
			return v, "PIP_" + strings.ToUpper(strings.ReplaceAll(k, "-", "_"))
		}
		for _, sec := range []string{"install", "global"} {
			if e, ok := conf[sec+"."+k]; ok {
				return e.val, e.file + " ([" + sec + "] " + k + ")"
			}
		}
		return "", ""
	}
	if def == nil {
		if v, src := key("index-url"); strings.TrimSpace(v) != "" {
			def = &pyIndex{url: strings.TrimSpace(v), source: src}
		}
	}
	if v, src := key("extra-index-url"); v != "" {
		for _, u := range strings.Fields(v) {
			extra = append(extra, pyIndex{url: u, source: src})
		}
	}
	out := pyIndexes{strategy: uvBestMatch, read: "--index-url / --pip-args in the server's args, PIP_INDEX_URL, PIP_EXTRA_INDEX_URL, " + read + ": none names an index"}
	if def != nil {
		out.list = append(out.list, *def)
	}
	out.list = append(out.list, extra...)
	return out, nil
}

type pipEntry struct{ val, file string }

// pipConfig reads pip's configuration files in pip's override order and
// returns "section.key" (key lower-cased, "_" as "-") -> value and file,
// and a description of what was read.
func (r *Resolver) pipConfig() (map[string]pipEntry, string) {
	base := "pip.conf"
	if r.goos() == "windows" {
		base = "pip.ini"
	}
	envFile, hasEnv := r.lookupEnv("PIP_CONFIG_FILE")
	if hasEnv && (envFile == os.DevNull || r.goos() != "windows" && envFile == "/dev/null") {
		return nil, "no pip.conf (PIP_CONFIG_FILE=" + envFile + ")"
	}
	files := r.pipGlobalFiles(base)
	envExists := false
	if hasEnv && envFile != "" {
		_, err := os.Stat(envFile)
		envExists = err == nil
	}
	if !envExists {
		files = append(files, r.pipUserFiles(base)...)
	}
	if hasEnv && envFile != "" {
		files = append(files, envFile)
	}
	out := map[string]pipEntry{}
	var read []string
	for _, file := range files {
		kv, ok := readINI(file)
		if !ok {
			continue
		}
		read = append(read, file)
		for k, v := range kv {
			out[k] = pipEntry{v, file}
		}
	}
	if len(read) == 0 {
		return out, "no pip.conf (" + strings.Join(files, ", ") + ")"
	}
	return out, strings.Join(read, ", ")
}

// pipGlobalFiles are pip's global (site-wide) configuration files named
// base, in its override order (pipConfig).
func (r *Resolver) pipGlobalFiles(base string) []string {
	switch r.goos() {
	case "windows":
		pd := r.getenv("ProgramData")
		if pd == "" {
			pd = `C:\ProgramData`
		}
		return []string{filepath.Join(r.systemRoot(pd), "pip", base)}
	case "darwin":
		return []string{filepath.Join(r.systemRoot("/Library/Application Support"), "pip", base)}
	}
	var files []string
	dirs := r.getenv("XDG_CONFIG_DIRS")
	if dirs == "" {
		dirs = r.systemRoot("/etc/xdg")
	}
	for _, d := range filepath.SplitList(dirs) {
		if d != "" {
			files = append(files, filepath.Join(d, "pip", base))
		}
	}
	return append(files, filepath.Join(r.systemRoot("/etc"), base))
}

// pipUserFiles are the user's pip configuration files named base, the
// legacy one first (pipConfig).
func (r *Resolver) pipUserFiles(base string) []string {
	switch r.goos() {
	case "windows":
		files := []string{filepath.Join(r.home(), "pip", base)}
		if ad := r.getenv("APPDATA"); ad != "" {
			files = append(files, filepath.Join(ad, "pip", base))
		}
		return files
	case "darwin":
		// pip's user_config_dir: Application Support/pip when that
		// directory exists, else ~/.config/pip.
		user := filepath.Join(r.home(), "Library", "Application Support", "pip")
		if fi, err := os.Stat(user); err != nil || !fi.IsDir() {
			user = filepath.Join(r.home(), ".config", "pip")
		}
		return []string{filepath.Join(r.home(), ".pip", base), filepath.Join(user, base)}
	}
	return []string{filepath.Join(r.home(), ".pip", base), filepath.Join(r.xdgConfigHome(), "pip", base)}
}

// readINI parses a file as Python's configparser.RawConfigParser does for
// pip: [section] headers, "key = value" or "key: value", whole-line # and
// ; comments, indented continuation lines appended with "\n". Keys are
// "section.key", lower-cased with "_" as "-" (pip's _normalize_name).
func readINI(path string) (map[string]string, bool) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	out := map[string]string{}
	section, last := "", ""
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		raw := sc.Text()
		line := strings.TrimSpace(raw)
		switch {
		case line == "" || line[0] == '#' || line[0] == ';':
			continue
		case raw[0] == ' ' || raw[0] == '\t':
			if last != "" {
				out[last] = strings.TrimSpace(out[last] + "\n" + line)
			}
			continue
		case line[0] == '[' && strings.HasSuffix(line, "]"):
			section, last = strings.TrimSpace(line[1:len(line)-1]), ""
			continue
		}
		i := strings.IndexAny(line, "=:")
		if i < 0 || section == "" {
			last = ""
			continue
		}
		k := strings.ReplaceAll(strings.ToLower(strings.TrimSpace(line[:i])), "_", "-")
		k = strings.TrimPrefix(k, "--")
		last = section + "." + k
		out[last] = strings.TrimSpace(line[i+1:])
	}
	return out, true
}

// pyIndexAuth returns the credentials the launcher sends to index ix:
// userinfo in the URL, else (uv, a named index) UV_INDEX_<NAME>_USERNAME
// and UV_INDEX_<NAME>_PASSWORD, else the .netrc entry for the host.
func (r *Resolver) pyIndexAuth(ix pyIndex, base *url.URL) (user, password string, ok bool) {
	if base.User != nil {
		return base.User.Username(), passwordOf(base.User), true
	}
	if ix.name != "" {
		n := strings.Map(func(c rune) rune {
			switch {
			case c >= 'a' && c <= 'z':
				return c - 'a' + 'A'
			case c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
				return c
			}
			return '_'
		}, ix.name)
		u, uok := r.lookupEnv("UV_INDEX_" + n + "_USERNAME")
		p, pok := r.lookupEnv("UV_INDEX_" + n + "_PASSWORD")
		if uok || pok {
			return u, p, true
		}
	}
	return r.netrcAuth(base.Hostname())
}
