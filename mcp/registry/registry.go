// Package registry resolves a recognised package spec (launcher.PackageSpec)
// to the exact version its launcher would run today and that version's
// integrity, by asking the registry the user's own tools are configured to
// use. It runs only in the helper binary agentgate-mcp: agentgate itself
// links no network code.
//
// # Registries
//
// No registry host is built in. Each ecosystem reads its launcher's own
// configuration (see docs/config.md, "Package registries"):
//
//   - npm: for npx and npm exec, NPM_CONFIG_REGISTRY / npm_config_registry,
//     then `@scope:registry` and `registry=` in the project's .npmrc, then
//     the user's ~/.npmrc (NPM_CONFIG_USERCONFIG overrides its path), then
//     `npm config get registry` when npm is on PATH. Credentials:
//     `//host/path/:_authToken`, `:_auth`, `:username` + `:_password` for
//     the longest matching registry path, with ${VAR} expansion, as npm
//     sends them. pnpm dlx adds pnpm's global rc and asks `pnpm config
//     get` first; bunx reads BUN_CONFIG_REGISTRY and bunfig.toml before
//     the .npmrc files; yarn dlx reads only YARN_NPM_REGISTRY_SERVER and
//     .yarnrc.yml (npmlaunchers.go).
//   - pypi: for uvx and uv tool run, the server's index options, uv's
//     variables (UV_INDEX, UV_DEFAULT_INDEX, UV_INDEX_URL, ...) and the
//     user- and system-level uv.toml, searched with uv's index strategy;
//     for pipx run, pip's options, variables and pip.conf files
//     (pyindex.go). Credentials in the URL's userinfo, uv's
//     UV_INDEX_<NAME>_USERNAME/_PASSWORD, else .netrc ($NETRC, else
//     ~/.netrc).
//   - oci: the registry named in the image reference; a reference without
//     one uses Docker's default registry (docker.io, served at
//     registry-1.docker.io) and `library/` for one-component names, which
//     is Docker's rule. Credentials from Docker's config.json
//     ($DOCKER_CONFIG/config.json, else ~/.docker/config.json): `auths`
//     entries and credential helpers (`credHelpers`, `credsStore`).
//   - go: GOPROXY from the environment, else `go env GOPROXY`; GONOPROXY
//     and GOPRIVATE route a module to `direct`, which agentgate cannot
//     follow (it fetches no version control). Credentials in the proxy
//     URL's userinfo, else .netrc.
//
// When no registry is configured (or the launcher's default cannot be
// asked), resolution fails with ErrNoRegistry naming what was read.
//
// # What is recorded
//
// Package.Integrity is, per ecosystem: npm, the registry's dist.integrity
// for the exact version (its sha512- SRI token); pypi, a "sha256-"
// digest over the sha256 of every file of that version (see
// PyPIIntegrity); oci, the manifest digest ("sha256:..."); go, the module
// zip's "h1:" hash as go.sum records it (golang.org/x/mod/sumdb/dirhash).
//
// # Errors
//
// Every failure is an *Error naming the spec, the registry (as configured,
// without credentials) and where that registry came from; it unwraps to
// one of the sentinels below. Credentials never appear in an error.
// Each answer is read up to Resolver.MaxBytes (module zips up to
// MaxZipBytes); a longer one is ErrTooLarge.
package registry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/agentgate/agentgate/mcp/config"
	"github.com/agentgate/agentgate/mcp/launcher"

	"github.com/agentgate/agentgate/mcp/command"
)

// Sentinels an *Error unwraps to.
var (
	ErrNoRegistry  = errors.New("no registry configured")
	ErrUnreachable = errors.New("registry unreachable")
	ErrNotFound    = errors.New("package not found")
	ErrNoVersion   = errors.New("no matching version")        // none satisfies, or the version is yanked, unpublished or absent
	ErrProtocol    = errors.New("unexpected registry answer") // an answer that is not what the registry's API promises
	ErrHTTP        = errors.New("registry error status")
	ErrAuth        = errors.New("registry refused credentials")
	ErrTooLarge    = errors.New("registry answer too large")
	ErrSpec        = errors.New("malformed package spec")
	ErrUnsupported = errors.New("source not supported") // e.g. GOPROXY=direct: a VCS fetch
	ErrIntegrity   = errors.New("integrity mismatch")   // a launcher cache holds other bytes than the registry names
)

// Defaults for the zero values of Resolver's limits.
const (
	DefaultTimeout  = 60 * time.Second
	DefaultMaxBytes = 64 << 20  // one metadata answer (packument, index page, manifest)
	MaxZipBytes     = 500 << 20 // one Go module zip (the go command's own limit)
)

// Package is one resolved package: what the lockfile records.
type Package struct {
	Ecosystem string // launcher.EcoNPM, EcoPyPI, EcoOCI or EcoGo
	Name      string // npm name, PEP 503 normalised PyPI name, full OCI repository (host/path), Go module path
	Version   string // exact version; for OCI the tag ("" when the spec names only a digest)
	Integrity string // see the package doc
	Registry  string // the registry asked, without credentials
	// Cache is the launcher cache entry that was checked against
	// Integrity (npm's cache index file); "" when the cache holds no
	// entry for this package.
	Cache string
}

// Resolver resolves package specs. The zero value reads the process's
// environment, the current directory's .npmrc and the user's home.
type Resolver struct {
	// Dir is the project directory (the repository root): where the
	// project .npmrc is read. "" means the current directory.
	Dir string
	// Env is the environment the launcher would run with ("NAME=value",
	// as command.MergeEnv builds a server's): where the launchers'
	// variables are read, and what `npm config get` and `go env` run
	// with. nil means this process's environment.
	Env []string
	// Home is the user's home directory; "" means os.UserHomeDir.
	Home string
	// SystemDir, when set, holds the system-wide configuration files the
	// launchers read (/etc/uv/uv.toml, /etc/pip.conf, ...) under their
	// paths without the leading slash; "" means the machine's own (tests
	// set it).
	SystemDir string
	// GOOS is the operating system whose rules the lookups follow: where
	// each launcher's user and system config files are (one table per
	// launcher: uvConfigFiles, pipConfig, pnpmGlobalRC, netrcFiles, ...)
	// and whether variable names are
	// case-insensitive. "" means runtime.GOOS; tests set it to check every
	// OS's table on one machine.
	GOOS string
	// Client makes the requests; nil means a client with
	// http.ProxyFromEnvironment and TLS as configured on this machine.
	Client *http.Client
	// Timeout bounds one Resolve (0 = DefaultTimeout).
	Timeout time.Duration
	// MaxBytes bounds one metadata answer (0 = DefaultMaxBytes).
	MaxBytes int64
	// Run runs a launcher to read its configuration (`npm config get
	// registry`, `go env GOPROXY`) and returns its trimmed stdout; nil
	// runs the command found on PATH. A missing command is
	// exec.ErrNotFound.
	Run func(ctx context.Context, name string, args ...string) (string, error)
	// Runs, when set, holds the answers of Run shared with other
	// Resolvers (capture gives one to every server of a run, so that a
	// lock of many npx servers asks `npm config get registry` once); nil
	// means this Resolver's own. Resolvers that share it share Run.
	Runs *Runs

	own Runs
}

// Runs holds the answers of Resolver.Run by working directory,
// environment and command line: each is asked once. The zero value is
// ready to use; it is safe for concurrent use.
type Runs struct {
	mu sync.Mutex
	m  map[runKey]*runEntry
}

type runKey struct{ dir, env, cmd string }

type runEntry struct {
	mu   sync.Mutex
	done bool
	out  string
	err  error
}

// Error is why a spec could not be resolved.
type Error struct {
	Spec      string // the spec as written (launcher.PackageSpec.String)
	Ecosystem string
	Registry  string // the registry as configured, without credentials; "" when none
	Source    string // where Registry came from (a variable, a file, a command)
	Msg       string // what happened; never holds a credential
	Kind      error  // one of the sentinels
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s package %s", e.Ecosystem, e.Spec)
	if e.Registry != "" {
		fmt.Fprintf(&b, " from %s", e.Registry)
		if e.Source != "" {
			fmt.Fprintf(&b, " (configured by %s)", e.Source)
		}
	}
	fmt.Fprintf(&b, ": %s", e.Msg)
	return b.String()
}

// Unwrap returns the sentinel.
func (e *Error) Unwrap() error { return e.Kind }

// Resolve returns the exact version spec resolves to and its integrity.
// args are the server's arguments that spec was recognised in
// (config.Server.Args; nil for none): a registry option the launcher
// reads there, before the package, wins over every variable and file, as
// it does for the launcher (see launcherOption). A file spec is not a
// registry package: it is the caller's (its hash is launcher.FileIntegrity).
func (r *Resolver) Resolve(ctx context.Context, spec launcher.PackageSpec, args []string) (Package, error) {
	timeout := r.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	switch spec.Ecosystem {
	case launcher.EcoNPM:
		return r.resolveNPM(ctx, spec, args)
	case launcher.EcoPyPI:
		return r.resolvePyPI(ctx, spec, args)
	case launcher.EcoOCI:
		return r.resolveOCI(ctx, spec)
	case launcher.EcoGo:
		return r.resolveGo(ctx, spec)
	}
	return Package{}, &Error{Spec: spec.String(), Ecosystem: spec.Ecosystem, Msg: "not a registry ecosystem", Kind: ErrUnsupported}
}

// launcherOption returns the value of the first of names among the
// launcher's options in args (the first of launcherOptions), and which
// option it was; "" when none is given.
func launcherOption(spec launcher.PackageSpec, args []string, names ...string) (val, source string) {
	if o := launcherOptions(spec, args, names...); len(o) > 0 {
		return o[0].val, o[0].source
	}
	return "", ""
}

// launcherOptions returns every value of names among the launcher's
// options in args, in order: those before the spec's argument (npx, bunx,
// pnpm dlx, yarn dlx, uvx and pipx stop reading options there), or up to
// "--" for npm exec, which reads options anywhere. Both "--name value" and
// "--name=value" count (a "--no-" name takes no value); source says which
// option it was.
func launcherOptions(spec launcher.PackageSpec, args []string, names ...string) []optionValue {
	end := len(args)
	if spec.Launcher != "npm exec" && spec.Arg >= 0 && spec.Arg < end {
		end = spec.Arg
	}
	var out []optionValue
	for i := 0; i < end; i++ {
		a := args[i]
		if a == "--" {
			break
		}
		for _, n := range names {
			switch {
			case strings.HasPrefix(a, n+"="):
				out = append(out, optionValue{a[len(n)+1:], "the server's " + n + " option"})
			case a == n && i+1 < len(args) && !strings.HasPrefix(n, "--no-"):
				out = append(out, optionValue{args[i+1], "the server's " + n + " option"})
				i++
			case a == n:
				out = append(out, optionValue{"", "the server's " + n + " option"})
			}
		}
	}
	return out
}

type optionValue struct{ val, source string }

func (r *Resolver) environ() []string {
	if r.Env != nil {
		return r.Env
	}
	return os.Environ()
}

func (r *Resolver) goos() string {
	if r.GOOS != "" {
		return r.GOOS
	}
	return runtime.GOOS
}

func (r *Resolver) lookupEnv(k string) (string, bool) {
	return command.Getenv(r.goos(), r.environ(), k)
}

// envAs returns the value of k and its name as the environment spells
// it (see command.GetenvAs): what a message names as the source.
func (r *Resolver) envAs(k string) (name, val string) {
	name, val, _ = command.GetenvAs(r.goos(), r.environ(), k)
	return name, val
}

func (r *Resolver) getenv(k string) string {
	v, _ := r.lookupEnv(k)
	return v
}

func (r *Resolver) home() string {
	if r.Home != "" {
		return r.Home
	}
	h, _ := os.UserHomeDir()
	return h
}

// dirOrWD is Dir, else the current directory.
func (r *Resolver) dirOrWD() string {
	if r.Dir != "" {
		return r.Dir
	}
	wd, _ := os.Getwd()
	return wd
}

func (r *Resolver) maxBytes() int64 {
	if r.MaxBytes > 0 {
		return r.MaxBytes
	}
	return DefaultMaxBytes
}

func (r *Resolver) client() *http.Client {
	if r.Client != nil {
		return r.Client
	}
	return defaultClient
}

var defaultClient = &http.Client{Transport: http.DefaultTransport}

// run runs a launcher's configuration command once per Runs (npm starts
// in about 0.2 s): an answer cut short by ctx is not kept.
func (r *Resolver) run(ctx context.Context, name string, args ...string) (string, error) {
	c := r.Runs
	if c == nil {
		c = &r.own
	}
	// NUL separates: no environment entry or argument holds one.
	k := runKey{r.dirOrWD(), strings.Join(r.environ(), "\x00"), name + "\x00" + strings.Join(args, "\x00")}
	c.mu.Lock()
	e := c.m[k]
	if e == nil {
		if c.m == nil {
			c.m = map[runKey]*runEntry{}
		}
		e = &runEntry{}
		c.m[k] = e
	}
	c.mu.Unlock()
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.done {
		out, err := r.runOnce(ctx, name, args...)
		if ctx.Err() != nil {
			return out, err
		}
		e.done, e.out, e.err = true, out, err
	}
	return e.out, e.err
}

func (r *Resolver) runOnce(ctx context.Context, name string, args ...string) (string, error) {
	if r.Run != nil {
		return r.Run(ctx, name, args...)
	}
	dir := r.dirOrWD()
	// Found as the server's own command would be (PATH of Env; npm.cmd
	// on Windows).
	res, err := command.Resolve(runtime.GOOS, command.Spec{Command: name, Args: args, Dir: dir, Env: r.environ()}, command.HostProbe)
	if err != nil {
		return "", exec.ErrNotFound
	}
	cmd := exec.CommandContext(ctx, res.Path, res.Args...)
	cmd.Dir, cmd.Env = dir, r.environ()
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s %s: %w", name, strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out)), nil
}

// failer builds the *Error of one resolution.
type failer struct {
	spec, eco, registry, source string
}

func (f *failer) fail(kind error, format string, a ...any) *Error {
	return &Error{Spec: f.spec, Ecosystem: f.eco, Registry: f.registry, Source: f.source, Msg: fmt.Sprintf(format, a...), Kind: kind}
}

// response is one fetched answer.
type response struct {
	status int
	header http.Header
	body   []byte
}

// fetch sends req and reads its body up to limit bytes. Transport failures
// (refused, DNS, TLS, timeout) are ErrUnreachable; a body over limit is
// ErrTooLarge. The status is the caller's to judge. Messages name the URL
// without userinfo or query.
func (r *Resolver) fetch(f *failer, req *http.Request, limit int64) (response, error) {
	resp, err := r.client().Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) || errors.Is(req.Context().Err(), context.DeadlineExceeded) {
			return response{}, f.fail(ErrUnreachable, "%s %s: no answer in time", req.Method, RedactURL(req.URL))
		}
		return response{}, f.fail(ErrUnreachable, "%s %s: %s", req.Method, RedactURL(req.URL), transportReason(err))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		if req.Context().Err() != nil {
			return response{}, f.fail(ErrUnreachable, "%s %s: no complete answer in time", req.Method, RedactURL(req.URL))
		}
		return response{}, f.fail(ErrUnreachable, "%s %s: reading the answer: %s", req.Method, RedactURL(req.URL), transportReason(err))
	}
	if int64(len(body)) > limit {
		return response{}, f.fail(ErrTooLarge, "%s %s: answer larger than %d bytes", req.Method, RedactURL(req.URL), limit)
	}
	return response{status: resp.StatusCode, header: resp.Header, body: body}, nil
}

// statusError turns a non-2xx status into the matching sentinel.
func statusError(f *failer, u *url.URL, status int, what string) error {
	switch {
	case status == http.StatusNotFound || status == http.StatusGone:
		return f.fail(ErrNotFound, "%s: %s not found (HTTP %d)", RedactURL(u), what, status)
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return f.fail(ErrAuth, "%s: HTTP %d: the registry wants credentials it did not get or refused the ones configured", RedactURL(u), status)
	}
	return f.fail(ErrHTTP, "%s: HTTP %d", RedactURL(u), status)
}

// transportReason is err's message without the URL (which net/http
// includes whole, userinfo and all).
func transportReason(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return err.Error()
}

// RedactURL is u without userinfo, query or fragment (config.StripURL).
func RedactURL(u *url.URL) string { return config.StripURL(u.String()) }

// redactString parses s as a URL and redacts it; text that is not a URL
// is returned with anything before an "@" in its authority removed.
func redactString(s string) string {
	if u, err := url.Parse(s); err == nil && u.Host != "" {
		return RedactURL(u)
	}
	if i := strings.Index(s, "@"); i >= 0 && !strings.Contains(s[:i], "/") {
		return s[i+1:]
	}
	return s
}
