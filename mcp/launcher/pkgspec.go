// Package launcher recognises the package a stdio server's command runs:
// npx, npm exec, bunx, pnpm dlx, yarn dlx, uvx, uv tool run, pipx run,
// docker or podman run, go run, or an interpreter running a file, parsed
// as each launcher parses its arguments (RecognizePackage -> PackageSpec);
// the argument that pins a spec to an exact version (PinnedArg), the
// comparison with a locked package (Runs, VersionDiffers), the program
// text an interpreter is given inline (ProgramText) and a file's
// integrity (FileIntegrity). It is pure: it reads no config, asks no
// registry and starts nothing (FileIntegrity reads the one file it is
// given).
package launcher

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/agentgate/agentgate/internal/lazyre"
	"github.com/agentgate/agentgate/mcp/pep440"
)

// Package ecosystems recognised in a stdio server's command.
const (
	EcoNPM  = "npm"
	EcoPyPI = "pypi"
	EcoOCI  = "oci"
	EcoGo   = "go"
	EcoFile = "file"
)

// PackageSpec is the package a stdio server's command runs, as its launcher
// parses the arguments. It is recognition only: no registry is asked, so an
// unpinned spec has no exact version yet (resolution is the helper's job).
type PackageSpec struct {
	Ecosystem string // EcoNPM, EcoPyPI, EcoOCI, EcoGo or EcoFile
	Launcher  string // "npx", "npm exec", "bunx", "pnpm dlx", "yarn dlx", "uvx", "uv tool run", "pipx run", "docker run", "podman run", "go run", or the interpreter / "" for a file
	// Name is the registry name: npm name (scoped names keep their scope;
	// the real name of an npm: alias), PEP 503 normalised PyPI name, OCI
	// image repository (without tag or digest), Go package path, or the
	// slash-separated path of a file relative to the server's working
	// directory.
	Name string
	// Version is the version part as written: "" when absent, a dist-tag
	// ("latest"), a range ("^1.2", ">=1,<2"), an exact version ("1.4.2"),
	// an OCI tag, or an OCI "tag@sha256:..." / "@sha256:..." digest. Empty
	// for files.
	Version string
	// Exact reports whether Version names one immutable artefact: a full
	// semver version (npm, Go), "==" / "===" / "@" with a plain version
	// (PyPI), a digest (OCI). Files are always exact (their hash pins them).
	Exact bool
	// Arg is the index in the server's Args of the argument that holds the
	// spec (what `agentgate pin` rewrites), or -1 when the spec is the
	// command itself. Raw is that argument as written.
	Arg int
	Raw string
}

// String is the spec as a user would type it: name@version for npm and Go,
// name==version for PyPI, the image reference for OCI, the path for files.
func (p PackageSpec) String() string {
	switch {
	case p.Version == "" || p.Ecosystem == EcoFile:
		return p.Name
	case p.Ecosystem == EcoPyPI:
		if strings.ContainsAny(p.Version[:1], "=<>!~") {
			return p.Name + p.Version
		}
		return p.Name + "==" + p.Version
	case p.Ecosystem == EcoOCI:
		if strings.HasPrefix(p.Version, "@") {
			return p.Name + p.Version
		}
		return p.Name + ":" + p.Version
	}
	return p.Name + "@" + p.Version
}

// UnpinnableError says why a stdio command cannot be attributed to a
// package: `verify` reports it instead of skipping the server silently.
type UnpinnableError struct {
	Command string
	Reason  string
}

func (e *UnpinnableError) Error() string {
	return fmt.Sprintf("command %q: cannot attribute to a package: %s", e.Command, e.Reason)
}

func unpinnable(cmd, format string, a ...any) error {
	return &UnpinnableError{Command: cmd, Reason: fmt.Sprintf(format, a...)}
}

// RecognizePackage parses command and args as the launcher named by
// command would, and returns the package it runs. It is pure: it reads no
// file and asks no registry.
func RecognizePackage(command string, args []string) (PackageSpec, error) {
	base := launcherName(command)
	if run, ok := launchers[base]; ok {
		return run(command, base, args)
	}
	if interp, ok := interpreters[base]; ok {
		return interpreterSpec(command, base, args, interp)
	}
	if isRelativePath(command) {
		return fileSpec(command, "", command, -1)
	}
	return PackageSpec{}, unpinnable(command, "not a known launcher (npx, npm exec, bunx, pnpm dlx, yarn dlx, uvx, uv tool run, pipx run, docker/podman run, go run) nor a file inside the repository")
}

// launchers reads the args of each launcher RecognizePackage knows, by
// launcherName: what follows is the package it runs, or why it runs none.
var launchers = map[string]func(command, base string, args []string) (PackageSpec, error){
	"npx": func(command, _ string, args []string) (PackageSpec, error) {
		return npmExec(command, "npx", args, 0, true)
	},
	"bunx": func(command, _ string, args []string) (PackageSpec, error) {
		return npmExec(command, "bunx", args, 0, true)
	},
	"npm":    npmSubcommand,
	"pnpm":   npmSubcommand,
	"yarn":   npmSubcommand,
	"uvx":    func(command, _ string, args []string) (PackageSpec, error) { return uvRun(command, "uvx", args, 0) },
	"uv":     uvTool,
	"pipx":   pipxSubcommand,
	"docker": dockerSubcommand,
	"podman": dockerSubcommand,
	"go":     goSubcommand,
}

// npmSubcommand reads npm exec / npm x, pnpm dlx and yarn dlx.
func npmSubcommand(command, base string, args []string) (PackageSpec, error) {
	i, sub := firstPositional(args, npmGlobalValueFlags)
	switch {
	case base == "npm" && (sub == "exec" || sub == "x"), base == "pnpm" && sub == "dlx", base == "yarn" && sub == "dlx":
		// Options before the subcommand count too (`pnpm
		// --package=x dlx bin`): parse without the subcommand.
		launcher := base + " dlx"
		if base == "npm" {
			launcher = "npm exec"
		}
		rest := append(append([]string{}, args[:i]...), args[i+1:]...)
		p, err := npmExec(command, launcher, rest, 0, false)
		if err == nil && p.Arg >= i {
			p.Arg++
		}
		return p, err
	}
	return PackageSpec{}, unpinnable(command, "%s %s does not run a registry package (only exec/x and dlx do)", base, sub)
}

// uvTool reads uv tool run.
func uvTool(command, _ string, args []string) (PackageSpec, error) {
	i, sub := firstPositional(args, uvValueFlags)
	if sub == "tool" && i+1 < len(args) {
		j, sub2 := firstPositional(args[i+1:], uvValueFlags)
		if sub2 == "run" {
			return uvRun(command, "uv tool run", args, i+1+j+1)
		}
	}
	return PackageSpec{}, unpinnable(command, "only `uv tool run` runs a registry package")
}

// pipxSubcommand reads pipx run.
func pipxSubcommand(command, _ string, args []string) (PackageSpec, error) {
	i, sub := firstPositional(args, pipxValueFlags)
	if sub == "run" {
		return pipxRun(command, args, i+1)
	}
	return PackageSpec{}, unpinnable(command, "only `pipx run` runs a registry package")
}

// dockerSubcommand reads docker (podman) run and container run.
func dockerSubcommand(command, base string, args []string) (PackageSpec, error) {
	i, sub := firstPositional(args, dockerGlobalValueFlags)
	if sub == "container" && i+1 < len(args) && args[i+1] == "run" {
		i++
		sub = "run"
	}
	if sub == "run" {
		return dockerRun(command, base+" run", args, i+1)
	}
	return PackageSpec{}, unpinnable(command, "only `%s run` runs an image", base)
}

// goSubcommand reads go run.
func goSubcommand(command, _ string, args []string) (PackageSpec, error) {
	i, sub := firstPositional(args, nil)
	if sub == "run" {
		return goRun(command, args, i+1)
	}
	return PackageSpec{}, unpinnable(command, "only `go run pkg@version` runs a module")
}

// interpreterSpec reads an interpreter's command line (interp: its
// options that take a value) as running a script file.
func interpreterSpec(command, base string, args []string, interp flagSet) (PackageSpec, error) {
	i, script := firstPositional(args, interp)
	if i < 0 {
		return PackageSpec{}, unpinnable(command, "%s runs no script file (e.g. -m or -e)", base)
	}
	if base == "deno" || base == "bun" {
		// deno run FILE, bun run FILE / bun FILE.
		if script == "run" {
			j, s2 := firstPositional(args[i+1:], interp)
			if j < 0 {
				return PackageSpec{}, unpinnable(command, "%s run names no file", base)
			}
			i, script = i+1+j, s2
		}
	}
	if hasFlag(args[:i], interpCodeFlags) {
		return PackageSpec{}, unpinnable(command, "%s runs inline code or a module, not a file", base)
	}
	return fileSpec(command, base, script, i)
}

// launcherName is the command's base name, lower-cased, without a Windows
// executable extension: "C:\\bin\\npx.cmd" -> "npx".
func launcherName(command string) string {
	b := strings.ToLower(path.Base(strings.ReplaceAll(command, `\`, "/")))
	for _, ext := range []string{".cmd", ".exe", ".bat", ".ps1"} {
		b = strings.TrimSuffix(b, ext)
	}
	return b
}

// flagSet lists the options that take a value in the next argument (when
// not written --name=value). Every other option is a boolean, as npm's
// option parser (nopt) treats unknown options.
type flagSet map[string]bool

// firstPositional returns the index and text of the first argument that is
// not an option or an option's value, or -1, "" when there is none. "--"
// ends the options.
func firstPositional(args []string, values flagSet) (int, string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			if i+1 < len(args) {
				return i + 1, args[i+1]
			}
			return -1, ""
		case len(a) > 1 && a[0] == '-':
			if !strings.Contains(a, "=") && values[a] {
				i++
			}
		default:
			return i, a
		}
	}
	return -1, ""
}

func hasFlag(args []string, flags flagSet) bool {
	for _, a := range args {
		name, _, _ := strings.Cut(a, "=")
		if flags[name] {
			return true
		}
	}
	return false
}

var npmGlobalValueFlags = flagSet{"--registry": true, "--cache": true, "--userconfig": true, "--prefix": true, "--loglevel": true, "--workspace": true, "-w": true, "--dir": true, "-C": true, "--cwd": true, "--filter": true, "-F": true}

// npm exec / npx / bunx / pnpm dlx / yarn dlx: options may precede the
// package; --package/-p names the package (repeatable: the first is the one
// recorded; the positional is then the command, not a package); -c/--call
// runs a shell line (only --package attributes it). For npx and bunx every
// argument after the first positional belongs to the command.
var npmExecValueFlags = flagSet{"--package": true, "-p": true, "--call": true, "-c": true, "--registry": true, "--cache": true, "--userconfig": true, "--prefix": true, "--loglevel": true, "--workspace": true, "-w": true, "--node-options": true, "--script-shell": true}

func npmExec(command, launcher string, args []string, from int, stopAtPositional bool) (PackageSpec, error) {
	values := npmExecValueFlags
	if launcher == "pnpm dlx" || launcher == "yarn dlx" {
		// pnpm dlx -c/--shell-mode is a boolean.
		values = flagSet{}
		for k, v := range npmExecValueFlags {
			values[k] = v
		}
		values["-c"] = false
	}
	return npmExecWith(command, launcher, args, from, stopAtPositional, values)
}

func npmExecWith(command, launcher string, args []string, from int, stopAtPositional bool, values flagSet) (PackageSpec, error) {
	pkgArg := -1
	call := false
	for i := from; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			if pkgArg < 0 && i+1 < len(args) && !call {
				pkgArg = i + 1
			}
			break
		}
		if len(a) > 1 && a[0] == '-' {
			name, val, eq := strings.Cut(a, "=")
			switch name {
			case "--package", "-p":
				if !eq {
					if i+1 >= len(args) {
						return PackageSpec{}, unpinnable(command, "%s %s has no value", launcher, name)
					}
					i++
					val = args[i]
				}
				if pkgArg < 0 {
					p, err := npmSpec(command, launcher, val, i)
					if err != nil {
						return PackageSpec{}, err
					}
					p.Raw = args[i]
					if eq {
						// --package=spec: the spec starts after "=".
						p.Raw = a
					}
					return p, nil
				}
				continue
			case "--call", "-c":
				if launcher == "pnpm dlx" && name == "-c" {
					continue
				}
				call = true
			}
			if !eq && values[name] {
				i++
			}
			continue
		}
		if pkgArg < 0 && !call {
			pkgArg = i
		}
		if stopAtPositional {
			break
		}
	}
	// A --package after the positional still names the package for npm
	// exec (its options are parsed everywhere); npx and bunx stop at the
	// positional, so they never see one.
	if !stopAtPositional {
		for i := from; i < len(args) && args[i] != "--"; i++ {
			name, val, eq := strings.Cut(args[i], "=")
			if name == "--package" || name == "-p" {
				if !eq && i+1 < len(args) {
					val = args[i+1]
					i++
				}
				p, err := npmSpec(command, launcher, val, i)
				if err == nil {
					p.Raw = args[i]
				}
				return p, err
			}
		}
	}
	if pkgArg < 0 {
		if call {
			return PackageSpec{}, unpinnable(command, "%s --call runs a shell line and names no --package", launcher)
		}
		return PackageSpec{}, unpinnable(command, "%s names no package", launcher)
	}
	p, err := npmSpec(command, launcher, args[pkgArg], pkgArg)
	if err != nil {
		return PackageSpec{}, err
	}
	p.Raw = args[pkgArg]
	return p, nil
}

var (
	npmNameRE = lazyre.New(`^(@[a-z0-9][a-z0-9._~-]*/)?[a-z0-9._~-][a-z0-9._~-]*$`)
	// semverRE is a full semver 2.0.0 version, with npm's loose leading
	// "v" or "=".
	semverRE = lazyre.New(`^[v=]?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?(\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$`)
)

// npmSpec parses an npm package spec as npm-package-arg does for registry
// specs: name, name@version|range|tag, @scope/name@..., alias@npm:real@....
// Git, tarball, URL and directory specs are not registry packages.
func npmSpec(command, launcher, spec string, arg int) (PackageSpec, error) {
	s := strings.TrimPrefix(spec, "npm:")
	name, ver := s, ""
	at := strings.Index(s[min(1, len(s)):], "@")
	if at >= 0 {
		at += min(1, len(s))
		name, ver = s[:at], s[at+1:]
	}
	if strings.HasPrefix(ver, "npm:") {
		// alias@npm:real@range runs real.
		r, err := npmSpec(command, launcher, ver, arg)
		if err != nil {
			return PackageSpec{}, err
		}
		return r, nil
	}
	switch {
	case name == "":
		return PackageSpec{}, unpinnable(command, "%s: empty package spec", launcher)
	case strings.HasPrefix(name, ".") || strings.HasPrefix(name, "/") || strings.Contains(name, ":") || strings.Contains(name, "#") ||
		(strings.Contains(name, "/") && !strings.HasPrefix(name, "@")) || strings.HasSuffix(name, ".tgz"):
		return PackageSpec{}, unpinnable(command, "%s %q is a git, URL, tarball or directory spec, not a registry package", launcher, spec)
	case !npmNameRE().MatchString(name):
		return PackageSpec{}, unpinnable(command, "%s %q is not a valid npm package name", launcher, spec)
	}
	return PackageSpec{Ecosystem: EcoNPM, Launcher: launcher, Name: name, Version: ver, Exact: semverRE().MatchString(ver), Arg: arg}, nil
}

// uv's options that take a value (uv tool run --help, uv 0.9).
var uvValueFlags = flagSet{
	"--from": true, "--with": true, "-w": true, "--with-editable": true, "--with-requirements": true,
	"--python": true, "-p": true, "--index": true, "--default-index": true, "--index-url": true, "-i": true,
	"--extra-index-url": true, "--find-links": true, "-f": true, "--constraints": true, "-c": true, "--overrides": true,
	"--build-constraints": true, "-b": true, "--directory": true, "--project": true, "--config-file": true, "--cache-dir": true,
	"--color": true, "--python-preference": true, "--refresh-package": true, "--reinstall-package": true,
	"--upgrade-package": true, "-P": true, "--no-binary-package": true, "--only-binary-package": true,
	"--no-build-package": true, "--no-build-isolation-package": true, "--exclude-newer": true, "--exclude-newer-package": true,
	"--resolution": true, "--prerelease": true, "--fork-strategy": true, "--index-strategy": true, "--keyring-provider": true,
	"--link-mode": true, "--config-setting": true, "-C": true, "--env-file": true, "--allow-insecure-host": true,
	"--torch-backend": true, "--python-platform": true,
}

// uvRun: uvx [OPTIONS] <COMMAND>[@VERSION] [ARGS]; --from <SPEC> names
// the package and the positional is then only the command. Everything
// after the positional belongs to the command.
func uvRun(command, launcher string, args []string, from int) (PackageSpec, error) {
	for i := from; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if len(a) < 2 || a[0] != '-' {
			break
		}
		name, val, eq := strings.Cut(a, "=")
		if name == "--from" {
			if !eq {
				if i+1 >= len(args) {
					return PackageSpec{}, unpinnable(command, "%s --from has no value", launcher)
				}
				i++
				val = args[i]
			}
			return pypiSpec(command, launcher, val, i, a)
		}
		if !eq && uvValueFlags[name] {
			i++
		}
	}
	i, spec := firstPositional(args[from:], uvValueFlags)
	if i < 0 {
		return PackageSpec{}, unpinnable(command, "%s names no tool", launcher)
	}
	return pypiSpec(command, launcher, spec, from+i, "")
}

var pipxValueFlags = flagSet{"--spec": true, "--python": true, "--pip-args": true, "--index-url": true, "-i": true, "--backend": true, "--fetch-missing-python": false}

// pipxRun: pipx run [--spec SPEC] [options] APP [ARGS]; --spec names the
// package. pipx also accepts APP==VERSION.
func pipxRun(command string, args []string, from int) (PackageSpec, error) {
	for i := from; i < len(args); i++ {
		a := args[i]
		if a == "--" || len(a) < 2 || a[0] != '-' {
			break
		}
		name, val, eq := strings.Cut(a, "=")
		if name == "--spec" {
			if !eq {
				if i+1 >= len(args) {
					return PackageSpec{}, unpinnable(command, "pipx run --spec has no value")
				}
				i++
				val = args[i]
			}
			return pypiSpec(command, "pipx run", val, i, a)
		}
		if !eq && pipxValueFlags[name] {
			i++
		}
	}
	i, spec := firstPositional(args[from:], pipxValueFlags)
	if i < 0 {
		return PackageSpec{}, unpinnable(command, "pipx run names no app")
	}
	return pypiSpec(command, "pipx run", spec, from+i, "")
}

var (
	pypiNameRE = lazyre.New(`^([A-Za-z0-9][A-Za-z0-9._-]*[A-Za-z0-9]|[A-Za-z0-9])(\[[A-Za-z0-9._,\s-]*\])?`)
)

// pypiSpec parses a PEP 508 requirement as uv and pipx accept it on the
// command line: name, name[extras], name==1.2.3, name===1.2.3, name@1.2.3
// (uv), name@latest (uv), name>=1,<2. URLs, paths and git specs are not
// registry packages. raw is the argument when it differs from spec
// (--from=spec).
func pypiSpec(command, launcher, spec string, arg int, raw string) (PackageSpec, error) {
	if raw == "" || !strings.Contains(raw, "=") {
		raw = spec
	}
	s := strings.TrimSpace(spec)
	if strings.Contains(s, "://") || strings.HasPrefix(s, "git+") || strings.HasPrefix(s, ".") || strings.HasPrefix(s, "/") || strings.Contains(s, " @ ") {
		return PackageSpec{}, unpinnable(command, "%s %q is a URL, git or path spec, not a registry package", launcher, spec)
	}
	m := pypiNameRE().FindStringSubmatchIndex(s)
	if m == nil {
		return PackageSpec{}, unpinnable(command, "%s %q is not a valid Python package spec", launcher, spec)
	}
	name := pep440.NormalizeName(s[m[2]:m[3]])
	rest := strings.TrimSpace(s[m[1]:])
	p := PackageSpec{Ecosystem: EcoPyPI, Launcher: launcher, Name: name, Arg: arg, Raw: raw}
	switch {
	case rest == "":
	case strings.HasPrefix(rest, "@"):
		p.Version = strings.TrimSpace(rest[1:])
		p.Exact = pep440.Valid(p.Version)
	case strings.HasPrefix(rest, "==="):
		p.Version = strings.TrimSpace(rest[3:])
		p.Exact = p.Version != "" && !strings.ContainsAny(p.Version, ",;*")
	case strings.HasPrefix(rest, "==") && !strings.Contains(rest, ","):
		p.Version = strings.TrimSpace(rest[2:])
		p.Exact = pep440.Valid(p.Version)
	case strings.ContainsAny(rest[:1], "<>=!~"):
		p.Version = rest
	default:
		return PackageSpec{}, unpinnable(command, "%s %q is not a valid Python package spec", launcher, spec)
	}
	if p.Version == "" && rest != "" {
		return PackageSpec{}, unpinnable(command, "%s %q has an empty version", launcher, spec)
	}
	return p, nil
}

// docker run / podman run options that take a value (docker run --help,
// Docker 28). An option not listed here and not in dockerBoolFlags makes the
// image position unknowable: the command is reported as unpinnable rather
// than guessed.
var dockerRunValueFlags = flagSet{
	"--add-host": true, "--annotation": true, "-a": true, "--attach": true, "--blkio-weight": true, "--blkio-weight-device": true,
	"--cap-add": true, "--cap-drop": true, "--cgroup-parent": true, "--cgroupns": true, "--cidfile": true,
	"--cpu-period": true, "--cpu-quota": true, "--cpu-rt-period": true, "--cpu-rt-runtime": true, "-c": true, "--cpu-shares": true,
	"--cpus": true, "--cpuset-cpus": true, "--cpuset-mems": true, "--detach-keys": true, "--device": true,
	"--device-cgroup-rule": true, "--device-read-bps": true, "--device-read-iops": true, "--device-write-bps": true,
	"--device-write-iops": true, "--dns": true, "--dns-option": true, "--dns-search": true, "--domainname": true,
	"--entrypoint": true, "-e": true, "--env": true, "--env-file": true, "--expose": true, "--gpus": true, "--group-add": true,
	"--health-cmd": true, "--health-interval": true, "--health-retries": true, "--health-start-interval": true,
	"--health-start-period": true, "--health-timeout": true, "-h": true, "--hostname": true, "--ip": true, "--ip6": true,
	"--ipc": true, "--isolation": true, "--kernel-memory": true, "-l": true, "--label": true, "--label-file": true,
	"--link": true, "--link-local-ip": true, "--log-driver": true, "--log-opt": true, "--mac-address": true,
	"-m": true, "--memory": true, "--memory-reservation": true, "--memory-swap": true, "--memory-swappiness": true,
	"--mount": true, "--name": true, "--network": true, "--net": true, "--network-alias": true, "--net-alias": true,
	"--oom-score-adj": true, "--pid": true, "--pids-limit": true, "--platform": true, "-p": true, "--publish": true,
	"--pull": true, "--restart": true, "--runtime": true, "--security-opt": true, "--shm-size": true,
	"--stop-signal": true, "--stop-timeout": true, "--storage-opt": true, "--sysctl": true, "--tmpfs": true,
	"--ulimit": true, "-u": true, "--user": true, "--userns": true, "--uts": true, "-v": true, "--volume": true,
	"--volume-driver": true, "--volumes-from": true, "-w": true, "--workdir": true,
	// podman
	"--arch": true, "--os": true, "--variant": true, "--pod": true, "--secret": true, "--userns-uid-map": true,
	"--uidmap": true, "--gidmap": true, "--authfile": true, "--creds": true, "--cert-dir": true, "--decryption-key": true,
	"--pidfile": true, "--conmon-pidfile": true, "--log-level": true, "--requires": true, "--chrootdirs": true,
	"--hosts-file": true, "--image-volume": true, "--init-path": true, "--personality": true, "--preserve-fd": true,
	"--rdt-class": true, "--retry": true, "--retry-delay": true, "--seccomp-policy": true, "--sdnotify": true,
	"--subgidname": true, "--subuidname": true, "--timeout": true, "--timezone": true, "--umask": true, "--unsetenv": true,
}

var dockerBoolFlags = flagSet{
	"-d": true, "--detach": true, "-i": true, "--interactive": true, "-t": true, "--tty": true, "--rm": true,
	"--init": true, "--privileged": true, "--read-only": true, "-P": true, "--publish-all": true, "-q": true, "--quiet": true,
	"--no-healthcheck": true, "--oom-kill-disable": true, "--sig-proxy": true, "--disable-content-trust": true,
	"--use-api-socket": true, "--env-host": true, "--http-proxy": true, "--replace": true, "--tls-verify": true,
	"--read-only-tmpfs": true, "--systemd": true, "--passwd": true, "--no-hosts": true,
}

var dockerGlobalValueFlags = flagSet{"--config": true, "-c": true, "--context": true, "-H": true, "--host": true, "-l": true, "--log-level": true, "--tlscacert": true, "--tlscert": true, "--tlskey": true, "--connection": true, "--url": true, "--identity": true, "--root": true, "--runroot": true, "--storage-driver": true, "--cgroup-manager": true, "--events-backend": true, "--network-cmd-path": true, "--runtime": true, "--tmpdir": true, "--module": true}

var (
	ociRefRE    = lazyre.New(`^[a-z0-9]+([._-]+[a-z0-9]+)*(:[0-9]+)?(/[a-z0-9]+([._-]+[a-z0-9]+)*)*$`)
	ociTagRE    = lazyre.New(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$`)
	ociDigestRE = lazyre.New(`^sha256:[0-9a-f]{64}$|^sha512:[0-9a-f]{128}$`)
)

func dockerRun(command, launcher string, args []string, from int) (PackageSpec, error) {
	for i := from; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			i++
			if i < len(args) {
				return ociSpec(command, launcher, args[i], i)
			}
			break
		}
		if len(a) < 2 || a[0] != '-' {
			return ociSpec(command, launcher, a, i)
		}
		if strings.HasPrefix(a, "--") {
			name, _, eq := strings.Cut(a, "=")
			switch {
			case eq || dockerBoolFlags[name]:
			case dockerRunValueFlags[name]:
				i++
			default:
				return PackageSpec{}, unpinnable(command, "%s option %q is not known to agentgate, so the image argument cannot be located; write it as %s=VALUE", launcher, name, name)
			}
			continue
		}
		// A cluster of short options (-it, -eFOO=1, -p8080:80): booleans
		// until one takes a value, which is the rest of the cluster or
		// the next argument.
		for k := 1; k < len(a); k++ {
			f := "-" + a[k:k+1]
			if dockerBoolFlags[f] {
				continue
			}
			if dockerRunValueFlags[f] {
				if k == len(a)-1 {
					i++
				}
				break
			}
			return PackageSpec{}, unpinnable(command, "%s option %q is not known to agentgate, so the image argument cannot be located", launcher, f)
		}
	}
	return PackageSpec{}, unpinnable(command, "%s names no image", launcher)
}

// ociSpec parses an image reference: [host[:port]/]path[:tag][@digest].
// Name is the reference without tag and digest; Version is "tag",
// "tag@digest" or "@digest".
func ociSpec(command, launcher, ref string, arg int) (PackageSpec, error) {
	name, digest, hasDigest := strings.Cut(ref, "@")
	tag := ""
	if i := strings.LastIndex(name, ":"); i > strings.LastIndex(name, "/") {
		name, tag = name[:i], name[i+1:]
	}
	switch {
	case !ociRefRE().MatchString(name):
		return PackageSpec{}, unpinnable(command, "%s image %q is not a valid image reference", launcher, ref)
	case tag != "" && !ociTagRE().MatchString(tag):
		return PackageSpec{}, unpinnable(command, "%s image %q has an invalid tag", launcher, ref)
	case hasDigest && !ociDigestRE().MatchString(digest):
		return PackageSpec{}, unpinnable(command, "%s image %q has an invalid digest", launcher, ref)
	}
	v := tag
	if hasDigest {
		v += "@" + digest
	}
	return PackageSpec{Ecosystem: EcoOCI, Launcher: launcher, Name: name, Version: v, Exact: hasDigest, Arg: arg, Raw: ref}, nil
}

// go run build flags that take a value (go help build).
var goValueFlags = flagSet{"-C": true, "-p": true, "-asmflags": true, "-buildmode": true, "-compiler": true, "-gccgoflags": true, "-gcflags": true, "-installsuffix": true, "-ldflags": true, "-mod": true, "-modfile": true, "-overlay": true, "-pgo": true, "-pkgdir": true, "-tags": true, "-toolexec": true, "-exec": true, "-covermode": true, "-coverpkg": true, "-o": true}

var goPathRE = lazyre.New(`^[A-Za-z0-9][A-Za-z0-9._~+-]*(/[A-Za-z0-9._~+-]+)+$`)

func goRun(command string, args []string, from int) (PackageSpec, error) {
	vf := flagSet{}
	for k, v := range goValueFlags {
		vf[k], vf["-"+k] = v, v // go accepts --flag too
	}
	i, spec := firstPositional(args[from:], vf)
	if i < 0 {
		return PackageSpec{}, unpinnable(command, "go run names no package")
	}
	i += from
	pkg, ver, hasVer := strings.Cut(spec, "@")
	if !hasVer {
		return PackageSpec{}, unpinnable(command, "go run %q builds source from the working tree, not a module version (write pkg@version)", spec)
	}
	if !goPathRE().MatchString(pkg) || ver == "" {
		return PackageSpec{}, unpinnable(command, "go run %q is not a valid package@version", spec)
	}
	exact := semverRE().MatchString(ver) && strings.HasPrefix(ver, "v")
	return PackageSpec{Ecosystem: EcoGo, Launcher: "go run", Name: pkg, Version: ver, Exact: exact, Arg: i, Raw: spec}, nil
}

// interpreters maps a script interpreter to its options that take a value.
var interpreters = map[string]flagSet{
	"node":   {"-r": true, "--require": true, "--import": true, "--loader": true, "--experimental-loader": true, "--env-file": true, "--conditions": true, "-C": true, "--max-old-space-size": false},
	"python": {"-W": true, "-X": true, "-Q": true}, "python3": {"-W": true, "-X": true}, "py": {"-W": true, "-X": true},
	"bash": {"-o": true, "-O": true}, "sh": {"-o": true}, "zsh": {"-o": true},
	"deno": {"--config": true, "-c": true, "--import-map": true, "--lock": true, "--cert": true, "--location": true, "--env-file": false},
	"bun":  {"--cwd": true, "--config": true, "-c": true, "--preload": true, "-r": true, "--env-file": true},
	"ruby": {"-r": true, "-I": true, "-C": true},
	"tsx":  {"--tsconfig": true},
}

// interpCodeFlags run inline code or a module instead of a file.
var interpCodeFlags = flagSet{"-e": true, "--eval": true, "-p": true, "--print": true, "-m": true, "-c": true}

func fileSpec(command, launcher, p string, arg int) (PackageSpec, error) {
	if !isRelativePath(p) {
		return PackageSpec{}, unpinnable(command, "%q is not a path inside the repository (absolute, templated, or outside it)", p)
	}
	clean := path.Clean(strings.ReplaceAll(p, `\`, "/"))
	return PackageSpec{Ecosystem: EcoFile, Launcher: launcher, Name: clean, Exact: true, Arg: arg, Raw: p}, nil
}

// isRelativePath reports whether p is a relative file path that stays
// inside its base directory and carries no variable reference. A bare word
// ("server") is a name looked up on PATH, not a path, unless it has a
// directory part or a script extension.
func isRelativePath(p string) bool {
	q := strings.ReplaceAll(p, `\`, "/")
	if q == "" || strings.HasPrefix(q, "/") || strings.Contains(q, "$") || strings.Contains(q, "%") || filepath.VolumeName(p) != "" || (len(q) > 1 && q[1] == ':') {
		return false
	}
	c := path.Clean(q)
	if c == ".." || strings.HasPrefix(c, "../") || c == "." {
		return false
	}
	return strings.Contains(q, "/") || path.Ext(q) != ""
}

// FileIntegrity is the Subresource Integrity string ("sha256-" + standard
// base64 of the SHA-256 digest) of the file at name: what the lockfile
// records for the file ecosystem.
func FileIntegrity(name string) (string, error) {
	f, err := os.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	return sriSHA256(h.Sum(nil)), nil
}

// DataIntegrity is FileIntegrity of a file holding data (the hook hashes
// the staged bytes it reads from the index).
func DataIntegrity(data []byte) string {
	sum := sha256.Sum256(data)
	return sriSHA256(sum[:])
}

func sriSHA256(sum []byte) string { return "sha256-" + base64.StdEncoding.EncodeToString(sum) }
