// Package command finds the program a stdio MCP server's "command" names,
// as the AI clients do on each OS, with pure functions of an OS's rules,
// an environment and a file-system probe: every OS's rules can be tested
// on any machine. mcp/capture applies the rules of the OS it runs on.
//
// # Rules
//
// On every OS the lookup uses the server's own environment (agentgate's
// plus the configured env, merged by MergeEnv), not agentgate's: a config
// that sets PATH finds its command there, as a client's spawn does.
//
// unix (linux, darwin, the BSDs):
//   - "~" and "~/rest" are the home directory (HOME), as a shell would
//     expand them; "~user" is refused (no client supports it).
//   - a command with a "/" is a path: relative ones are relative to the
//     server's working directory; it must be an executable file.
//   - any other command is looked up in PATH's directories, in order
//     (an empty entry or "." is not the working directory: never
//     implicitly, as Go's os/exec decides).
//   - a Windows path (a drive letter "C:", a UNC "\\host\share" or a
//     backslash) is an error naming the fix: on unix it would silently be
//     a different file name, never the program the config means.
//
// windows:
//   - environment names are case-insensitive: "Path" and "PATH" are one
//     variable (the configured one wins).
//   - a command with "\" or "/" or a drive letter is a path (relative to
//     the server's working directory); otherwise it is looked up in PATH.
//   - a command without an extension is tried with every extension of
//     PATHEXT in order (default .COM;.EXE;.BAT;.CMD), so "npx" finds
//     npx.cmd as VS Code and Claude Code do; a command with one of those
//     extensions is taken as it is. Case does not matter.
//   - a .cmd or .bat file is run directly: Go's os/exec quotes its
//     arguments (syscall.EscapeArg) and Windows runs it with cmd.exe;
//     agentgate adds no quoting of its own. "cmd /c npx ..." is found as
//     cmd.exe in PATH (System32) and works the same way.
//
// A command that is not found is an *Error with a hint saying how to fix
// the config on this OS.
package command

import (
	"fmt"
	"path"
	"strings"
)

// Spec is what a server's config asks to run, after its variables were
// expanded.
type Spec struct {
	Command string
	Args    []string
	Dir     string   // working directory (absolute)
	Env     []string // the server's environment, "NAME=value" (see MergeEnv)
}

// Probe reports whether path names a file this OS could run (on unix: a
// regular file with an execute bit; on Windows: a regular file). Tests
// give a map; mcp/capture gives HostProbe.
type Probe func(path string) bool

// Resolved is the program to start and its arguments (args[0] excluded).
type Resolved struct {
	Path string
	Args []string
}

// Error is a command that cannot be run on this OS: Msg says why, Hint
// how to fix the config.
type Error struct {
	GOOS    string
	Command string
	Msg     string
	Hint    string
}

func (e *Error) Error() string { return e.Msg }

// Hints returns Hint as a list (nil when empty): what agentgate prints as
// "agentgate: hint: " lines.
func (e *Error) Hints() []string {
	if e.Hint == "" {
		return nil
	}
	return []string{e.Hint}
}

// Resolve finds spec's program under goos's rules (see the package doc).
func Resolve(goos string, spec Spec, probe Probe) (Resolved, error) {
	if goos == "windows" {
		return resolveWindows(spec, probe)
	}
	return resolveUnix(goos, spec, probe)
}

func resolveUnix(goos string, spec Spec, probe Probe) (Resolved, error) {
	c := spec.Command
	fail := func(msg, hint string) (Resolved, error) {
		return Resolved{}, &Error{GOOS: goos, Command: c, Msg: msg, Hint: hint}
	}
	if IsWindowsPath(c) {
		return fail(fmt.Sprintf("command %q is a Windows path, which %s cannot run", c, goos),
			"this server is configured for Windows; give a command that exists on "+goos+" (e.g. the program's name on PATH), or exclude the server on this OS in agentgate.toml")
	}
	if c == "~" || strings.HasPrefix(c, "~/") {
		home, ok := Getenv(goos, spec.Env, "HOME")
		if !ok || home == "" {
			return fail(fmt.Sprintf("command %q starts with ~ and HOME is not set", c), "set HOME, or give the command's absolute path")
		}
		c = strings.TrimSuffix(home, "/") + c[1:]
	} else if strings.HasPrefix(c, "~") {
		return fail(fmt.Sprintf("command %q: ~user is not expanded", c), "give the command's absolute path")
	}
	if strings.Contains(c, "/") {
		if !strings.HasPrefix(c, "/") {
			c = path.Join(spec.Dir, c)
		}
		if !probe(c) {
			return fail(fmt.Sprintf("command %q: %s is not an executable file", spec.Command, c),
				"check the path (relative paths are relative to the server's cwd, by default the repository root) and that the file is executable (chmod +x)")
		}
		return Resolved{Path: c, Args: spec.Args}, nil
	}
	pathVar, _ := Getenv(goos, spec.Env, "PATH")
	for _, dir := range strings.Split(pathVar, ":") {
		if dir == "" || !strings.HasPrefix(dir, "/") {
			continue
		}
		if p := strings.TrimSuffix(dir, "/") + "/" + c; probe(p) {
			return Resolved{Path: p, Args: spec.Args}, nil
		}
	}
	return fail(fmt.Sprintf("command %q not found in PATH", c),
		fmt.Sprintf("install %s, or give its absolute path in the config (PATH is the server's: agentgate's plus the configured env)", c))
}

// defaultPATHEXT is Windows' own default.
const defaultPATHEXT = ".COM;.EXE;.BAT;.CMD"

func resolveWindows(spec Spec, probe Probe) (Resolved, error) {
	c := spec.Command
	fail := func(msg, hint string) (Resolved, error) {
		return Resolved{}, &Error{GOOS: "windows", Command: c, Msg: msg, Hint: hint}
	}
	pathext, ok := Getenv("windows", spec.Env, "PATHEXT")
	if !ok || pathext == "" {
		pathext = defaultPATHEXT
	}
	var exts []string
	for _, e := range strings.Split(pathext, ";") {
		if e = strings.TrimSpace(e); strings.HasPrefix(e, ".") {
			exts = append(exts, e)
		}
	}
	// candidates are the names to try for base: as it is when it has an
	// extension of PATHEXT, else with each extension.
	candidates := func(base string) []string {
		name := base[strings.LastIndexAny(base, `\/`)+1:]
		if i := strings.LastIndexByte(name, '.'); i > 0 {
			for _, e := range exts {
				if strings.EqualFold(name[i:], e) {
					return []string{base}
				}
			}
		}
		var out []string
		for _, e := range exts {
			out = append(out, base+strings.ToLower(e))
		}
		return out
	}
	if strings.ContainsAny(c, `\/`) || hasDrive(c) {
		p := strings.ReplaceAll(c, "/", `\`)
		if !windowsAbs(p) {
			p = strings.TrimRight(spec.Dir, `\/`) + `\` + p
		}
		for _, cand := range candidates(p) {
			if probe(cand) {
				return Resolved{Path: cand, Args: spec.Args}, nil
			}
		}
		return fail(fmt.Sprintf("command %q: no such program (tried %s)", c, strings.Join(candidates(p), ", ")),
			"check the path (relative paths are relative to the server's cwd, by default the repository root)")
	}
	pathVar, _ := Getenv("windows", spec.Env, "PATH")
	for _, dir := range strings.Split(pathVar, ";") {
		dir = strings.Trim(dir, `"`)
		if dir == "" || !windowsAbs(dir) {
			continue
		}
		for _, cand := range candidates(strings.TrimRight(dir, `\/`) + `\` + c) {
			if probe(cand) {
				return Resolved{Path: cand, Args: spec.Args}, nil
			}
		}
	}
	return fail(fmt.Sprintf("command %q not found in PATH with PATHEXT %s", c, pathext),
		fmt.Sprintf("install %s (for npx: Node.js, which puts npx.cmd on PATH), or give its full path in the config; \"command\": \"cmd\", \"args\": [\"/c\", %q, ...] works too", c, c))
}

// IsWindowsPath reports whether p can only be a Windows path: a drive
// letter ("C:", "C:\x", "c:/x"), a UNC path ("\\host\share") or any
// backslash (a unix file name may hold one, but a config that has one in
// its command means Windows).
func IsWindowsPath(p string) bool {
	return hasDrive(p) || strings.Contains(p, `\`)
}

func hasDrive(p string) bool {
	return len(p) >= 2 && p[1] == ':' && ('a' <= p[0]|0x20 && p[0]|0x20 <= 'z')
}

// windowsAbs reports whether p is absolute on Windows: a drive letter and
// a separator, or a UNC path.
func windowsAbs(p string) bool {
	if hasDrive(p) {
		return len(p) >= 3 && (p[2] == '\\' || p[2] == '/')
	}
	return strings.HasPrefix(p, `\\`) || strings.HasPrefix(p, `//`)
}
