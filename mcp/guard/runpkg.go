package guard

// runpkg.go: guard starts the package agentgate.lock pins, or nothing
// (docs/GUARD.md, "What runs is what was pinned").

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/agentgate/agentgate/lock"
	"github.com/agentgate/agentgate/mcp/command"
	"github.com/agentgate/agentgate/mcp/config"
	"github.com/agentgate/agentgate/mcp/jsonrpc"
	"github.com/agentgate/agentgate/mcp/registry"
)

// PackageError is why guard does not start a stdio server: its command
// would run another package, version or file than agentgate.lock pins,
// or one whose integrity guard could not check. Guard answers the
// client's initialize with an error and exits ExitUnverified
// (--allow-unpinned-package: a warning, and the command starts as
// configured).
type PackageError struct {
	Msg   string
	Hints []string
}

func (e *PackageError) Error() string { return e.Msg }

// lockHint is the fix for a config that runs another version than the
// lockfile pins.
func lockHint(server string) string {
	return fmt.Sprintf("if the configured package is the one to run, review it and lock it: agentgate lock --server %s", server)
}

// preinstallTimeout bounds npx's install of a locked package that no
// cache holds yet (the cold start).
const preinstallTimeout = 5 * time.Minute

// runPackage decides what guard starts for the stdio server r (its
// command and args as configured) from pins (nil: --allow-unlocked
// without an entry: nothing to enforce), and returns it: r itself, or r
// with the package argument replaced by the exact spec the lockfile pins
// (config.PackageSpec.PinnedArg, what `agentgate pin` writes; the client
// config is not touched). Each decision is one line on log. The rules:
//
//   - no package pinned (lockfile version 1, a server locked before its
//     package could be resolved): r, said once; a command no package can
//     be attributed to: r, said once;
//   - a lockfile package and a command that runs another ecosystem or
//     package, an exact spec naming another version or digest, or a
//     command that runs no package agentgate recognises: *PackageError;
//   - an in-repository file (ecosystem file): the file the command runs
//     must be the locked path (its absolute path ends with it) and its
//     bytes must hash to the locked integrity, else *PackageError naming
//     the file;
//   - an unpinned registry spec (npx -y pkg, uvx tool, image:tag): the
//     locked exact spec instead; an exact one that matches: unchanged;
//   - npm through npx or npm exec: the install npx will run
//     (registry.Resolver.NPXInstalled: the project's node_modules, else
//     npx's cache) must record the locked integrity, and no registry is
//     asked; when nothing is installed yet (the cold start), the
//     registry the launcher is configured to use must publish the locked
//     integrity for that version, npx installs it (`npx --yes
//     --package=SPEC -- node -e 0`, which runs no code of the package's
//     but its install scripts), and the install is checked before the
//     server starts. A registry that cannot be reached, or a launcher
//     missing from PATH, is a *PackageError: nothing is started;
//   - pnpm dlx, bunx, yarn dlx, uvx, uv tool run, pipx run, go run: the
//     version is pinned; the integrity is the launcher's to check against
//     its registry (agentgate does not read their stores);
//   - docker and podman run: pinned by the locked manifest digest, which
//     the container engine checks the image against.
func runPackage(ctx context.Context, r config.Resolved, server string, pins *Pins, log io.Writer) (config.Resolved, error) {
	if pins == nil {
		return r, nil
	}
	say := func(format string, a ...any) {
		fmt.Fprintf(log, "agentgate: guard: %s: package: %s\n", shown(server), visible(fmt.Sprintf(format, a...)))
	}
	k := pins.Package
	spec, err := config.RecognizePackage(r.Command, r.Args)
	var unpin *config.UnpinnableError
	if errors.As(err, &unpin) && k != nil && k.Ecosystem == config.EcoFile && filepath.IsAbs(r.Command) {
		// An absolute command inside the repository: capture locked it
		// as a file of the repository.
		spec, err = config.PackageSpec{Ecosystem: config.EcoFile, Name: filepath.ToSlash(r.Command), Exact: true, Arg: -1, Raw: r.Command}, nil
	}
	switch {
	case err != nil && k == nil:
		say("%v: started as configured, unpinned (agentgate.lock pins no package for it)", err)
		return r, nil
	case err != nil:
		return r, &PackageError{Msg: fmt.Sprintf("agentgate.lock pins %s package %s for server %q, but its command runs no package agentgate can attribute (%s)", k.Ecosystem, k.String(), server, unpin.Reason),
			Hints: []string{lockHint(server)}}
	case k == nil && pins.Version < lock.Version2:
		say("agentgate.lock (lockfile version %d) pins no packages: %s started as configured; lock with --lockfile-version 2 to pin it", pins.Version, spec.String())
		return r, nil
	case k == nil:
		say("agentgate.lock pins no package for this server: %s started as configured; run 'agentgate lock --server %s' to pin it", spec.String(), server)
		return r, nil
	case spec.Ecosystem == config.EcoFile || k.Ecosystem == config.EcoFile:
		return r, checkFile(r, server, spec, k, say)
	case !spec.Runs(k.Ecosystem, k.Name):
		return r, &PackageError{Msg: fmt.Sprintf("server %q runs %s package %s; agentgate.lock pins %s package %s", server, spec.Ecosystem, spec.String(), k.Ecosystem, k.String()),
			Hints: []string{lockHint(server)}}
	}
	return runPinned(ctx, r, server, spec, k, say)
}

// runPinned is runPackage for a server whose command runs the package
// agentgate.lock pins (k, recognised as spec): r with the locked version
// (and, for npx, the checked install) in place of the configured one.
func runPinned(ctx context.Context, r config.Resolved, server string, spec config.PackageSpec, k *lock.Package, say func(string, ...any)) (config.Resolved, error) {
	if spec.Exact {
		if locked, written, differs := spec.VersionDiffers(k.Version, k.Integrity); differs {
			return r, &PackageError{Msg: fmt.Sprintf("server %q is configured to run %s; agentgate.lock pins %s (locked %s, configured %s)", server, spec.String(), k.String(), locked, written),
				Hints: []string{lockHint(server), "or write the locked version back into the config: agentgate pin"}}
		}
	}
	arg, err := spec.PinnedArg(k.Version, k.Integrity)
	if err != nil {
		return r, &PackageError{Msg: fmt.Sprintf("server %q: cannot run %s at the version agentgate.lock pins: %v", server, spec.String(), err)}
	}
	run := r
	run.Args = slices.Clone(r.Args)
	run.Args[spec.Arg] = arg
	pinned := arg
	if strings.HasPrefix(pinned, "-") { // --package=SPEC, --from=SPEC
		_, pinned, _ = strings.Cut(pinned, "=")
	}
	how := "as configured"
	if !spec.Exact {
		how = fmt.Sprintf("instead of %s", spec.String())
	}
	switch {
	case spec.Ecosystem == config.EcoNPM && (spec.Launcher == "npx" || spec.Launcher == "npm exec"):
		checked, err := checkNPX(ctx, run, spec, k, pinned)
		if err != nil {
			return r, err
		}
		say("runs %s %s (%s)", pinned, how, checked)
	case spec.Ecosystem == config.EcoOCI:
		say("runs %s %s: the manifest digest agentgate.lock pins, which %s checks the image against", pinned, how, spec.Launcher)
	default:
		say("runs %s %s: the version agentgate.lock pins; its integrity is %s's to check (agentgate reads no %s cache)", pinned, how, spec.Launcher, spec.Launcher)
	}
	return run, nil
}

// checkFile checks that the file spec's command runs is the locked file
// k, byte for byte: its absolute path (against the working directory)
// ends with k's root-relative name, and its SHA-256 is k's integrity.
func checkFile(r config.Resolved, server string, spec config.PackageSpec, k *lock.Package, say func(string, ...any)) error {
	if spec.Ecosystem != k.Ecosystem {
		return &PackageError{Msg: fmt.Sprintf("server %q runs %s package %s; agentgate.lock pins %s package %s", server, spec.Ecosystem, spec.String(), k.Ecosystem, k.String()),
			Hints: []string{lockHint(server)}}
	}
	name := spec.Name
	if spec.Arg < 0 {
		name = r.Command
	}
	abs := filepath.FromSlash(name)
	if !filepath.IsAbs(abs) {
		wd := r.Cwd
		if wd == "" {
			wd, _ = os.Getwd()
		}
		abs = filepath.Join(wd, abs)
	}
	if s := filepath.ToSlash(abs); s != k.Name && !strings.HasSuffix(s, "/"+k.Name) {
		return &PackageError{Msg: fmt.Sprintf("server %q runs the file %s; agentgate.lock pins the file %s", server, abs, k.Name), Hints: []string{lockHint(server)}}
	}
	got, err := config.FileIntegrity(abs)
	if err != nil {
		return &PackageError{Msg: fmt.Sprintf("server %q: cannot read the file it runs, %s: %v", server, k.Name, errors.Unwrap(err))}
	}
	if got != k.Integrity {
		return &PackageError{Msg: fmt.Sprintf("server %q runs %s, which changed since it was locked: its SHA-256 is %s, agentgate.lock pins %s", server, k.Name, got, k.Integrity),
			Hints: []string{"review the change (git diff " + k.Name + "), then lock it: agentgate lock --server " + server}}
	}
	say("runs %s, whose bytes are the ones agentgate.lock pins (%s)", k.Name, got)
	return nil
}

// checkNPX checks what `npx` (or `npm exec`) will run for the pinned
// spec against the locked integrity (see runPackage) and returns how
// that was established, for the log line.
func checkNPX(ctx context.Context, run config.Resolved, spec config.PackageSpec, k *lock.Package, pinned string) (string, error) {
	wd := run.Cwd
	if wd == "" {
		wd, _ = os.Getwd()
	}
	env := command.MergeEnv(runtime.GOOS, os.Environ(), run.Env)
	res := &registry.Resolver{Dir: wd, Env: env}
	fail := func(format string, a ...any) error {
		return &PackageError{Msg: fmt.Sprintf("server %q: ", run.Name) + fmt.Sprintf(format, a...)}
	}
	in, ok, err := res.NPXInstalled(spec, run.Args, pinned, k.Version)
	if err != nil {
		return "", fail("%v", err)
	}
	if ok {
		files, err := checkInstall(res, in, run.Args, spec, k)
		if err != nil {
			return "", &PackageError{Msg: fmt.Sprintf("server %q: %v", run.Name, err),
				Hints: []string{fmt.Sprintf("remove that install (%s) so that npx fetches %s again, and check where the other bytes came from", in.Dir, pinned)}}
		}
		return fmt.Sprintf("installed in %s, integrity %s checked%s; no registry asked", in.Where, short(k.Integrity), files), nil
	}
	// The cold start: nothing installed yet.
	exact := spec
	exact.Version, exact.Exact = k.Version, true
	p, err := res.Resolve(ctx, exact, run.Args)
	if err != nil {
		var hints []string
		if errors.Is(err, registry.ErrUnreachable) {
			hints = append(hints, "npx has not installed "+pinned+" on this machine yet, so guard must ask the registry first; start the session again once it can be reached")
		}
		return "", &PackageError{Msg: fmt.Sprintf("server %q: cannot check %s before npx installs it: %v", run.Name, pinned, err), Hints: hints}
	}
	if p.Integrity != k.Integrity {
		return "", fail("the registry %s publishes %s with integrity %s; agentgate.lock pins %s: the version was republished with other bytes, or the registry is not the one it was locked from", p.Registry, pinned, p.Integrity, k.Integrity)
	}
	if err := preinstallNPM(ctx, run, spec, pinned, env, wd); err != nil {
		return "", err
	}
	in, ok, err = res.NPXInstalled(spec, run.Args, pinned, k.Version)
	switch {
	case err == nil && !ok && in.Version != "":
		err = fmt.Errorf("%s (%s) now holds %s %s, not %s: the registry served npx other bytes than it named to guard", in.Where, in.Dir, spec.Name, in.Version, pinned)
	case err == nil && !ok:
		err = fmt.Errorf("npx's install of %s is not where npx runs it from (%s)", pinned, in.Dir)
	}
	files := ""
	if err == nil {
		files, err = checkInstall(res, in, run.Args, spec, k)
	}
	if err != nil {
		return "", &PackageError{Msg: fmt.Sprintf("server %q: %v", run.Name, err), Hints: []string{"remove " + in.Dir + " and check the registry: it answered npx otherwise than guard"}}
	}
	return fmt.Sprintf("installed now from %s into %s, integrity %s checked%s", p.Registry, in.Where, short(k.Integrity), files), nil
}

// checkInstall checks the install in against the locked package k: npm's
// record of its integrity (registry.Resolver.CheckInstalled), then its
// files against the cached tarball (CompareFiles). files says, for the
// log line, whether the files were compared.
func checkInstall(res *registry.Resolver, in registry.Installed, args []string, spec config.PackageSpec, k *lock.Package) (files string, err error) {
	if err := res.CheckInstalled(in, spec, args, k.Integrity); err != nil {
		return "", err
	}
	ok, err := res.CompareFiles(in, spec, args, k.Integrity)
	switch {
	case err != nil:
		return "", err
	case !ok:
		return " (its files not compared: npm's cache no longer holds the tarball)", nil
	}
	return ", files identical to the locked tarball", nil
}

// preinstallNPM has the server's own launcher install the pinned spec
// where its next start runs it from, without running the package:
// `npx [OPTIONS] --yes --package=SPEC -- node -e 0` (`npm exec` alike),
// OPTIONS the configured options before the package (up to a "--", and
// without the -p/--package that names it). npx hashes the list
// of package specs to name its install directory, so this is the
// directory `npx -y SPEC` runs from.
func preinstallNPM(ctx context.Context, run config.Resolved, spec config.PackageSpec, pinned string, env []string, wd string) error {
	opts := slices.Clone(run.Args[:spec.Arg])
	if i := slices.Index(opts, "--"); i >= 0 {
		opts = opts[:i] // `npm exec [OPTIONS] -- pkg`
	}
	if n := len(opts); n > 0 && (opts[n-1] == "-p" || opts[n-1] == "--package") {
		opts = opts[:n-1]
	}
	args := append(opts, "--yes", "--package="+pinned, "--", "node", "-e", "0")
	res, err := command.Resolve(runtime.GOOS, command.Spec{Command: run.Command, Args: args, Dir: wd, Env: env}, command.HostProbe)
	if err != nil {
		return &PackageError{Msg: fmt.Sprintf("server %q: cannot install %s: %v", run.Name, pinned, err)}
	}
	ctx, cancel := context.WithTimeout(ctx, preinstallTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, res.Path, res.Args...)
	cmd.Dir, cmd.Env = wd, env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		tail := strings.TrimSpace(out.String())
		if len(tail) > 600 {
			tail = "..." + tail[len(tail)-600:]
		}
		return &PackageError{Msg: fmt.Sprintf("server %q: %s could not install %s: %v: %s", run.Name, spec.Launcher, pinned, err, run.Redact(tail))}
	}
	return nil
}

// startPinned is runPackage for guard's command line g: the server to
// start, or, when the package is refused, ExitUnverified after the error
// and its hints on stderr and a JSON-RPC error answering the client's
// first request (its initialize), so that the client shows why
// (--allow-unpinned-package: a warning, and r as configured).
func startPinned(ctx context.Context, r config.Resolved, g config.GuardArgs, pins *Pins, stdin io.Reader, stdout, stderr io.Writer) (config.Resolved, int) {
	run, err := runPackage(ctx, r, g.Server, pins, stderr)
	var pe *PackageError
	if !errors.As(err, &pe) {
		return run, ExitOK
	}
	msg := r.Redact(pe.Msg)
	if g.AllowUnpinnedPackage {
		fmt.Fprintf(stderr, "agentgate: guard: %s: warning: %s; --allow-unpinned-package: started as configured\n", shown(g.Server), visible(msg))
		return r, ExitOK
	}
	fmt.Fprintf(stderr, "agentgate: error: %s; guard did not start it\n", visible(msg))
	for _, h := range append(pe.Hints, "to start it anyway, unpinned, add --allow-unpinned-package (or allow-unpinned-package = true in agentgate.toml)") {
		fmt.Fprintf(stderr, "agentgate: hint: %s\n", visible(r.Redact(h)))
	}
	answerFirstRequest(stdin, stdout, "agentgate guard did not start server "+shown(g.Server)+": "+msg+" (guard's log on stderr has the details)")
	return r, ExitUnverified
}

// answerFirstRequest reads the client's messages up to its first request
// (initialize) and answers it with a JSON-RPC error (codeInternal,
// message); it returns at once when stdin ends first or a line is not a
// request. Notifications before it are read and dropped.
func answerFirstRequest(stdin io.Reader, stdout io.Writer, message string) {
	br := bufio.NewReaderSize(stdin, 64<<10)
	for {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			return
		}
		if msg := bytes.TrimSpace(line); len(msg) > 0 {
			if !json.Valid(msg) {
				return
			}
			env, perr := jsonrpc.ParseEnvelope(msg)
			if perr != nil || env.Response() {
				return
			}
			if env.ID != nil {
				_, _ = stdout.Write(append(errorLine(env.ID, codeInternal, message), '\n'))
				return
			}
		}
		if err != nil {
			return
		}
	}
}
