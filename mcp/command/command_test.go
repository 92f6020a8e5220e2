package command

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// files is a Probe over a fixed set of paths; Windows paths (with a
// backslash) compare case-insensitively, as NTFS does.
func files(paths ...string) Probe {
	return func(p string) bool {
		return slices.ContainsFunc(paths, func(f string) bool {
			return f == p || (strings.Contains(f, `\`) && strings.EqualFold(f, p))
		})
	}
}

func TestResolveWindows(t *testing.T) {
	env := []string{`Path=C:\Program Files\nodejs;C:\Windows\System32;relative\dir`, "PATHEXT=.COM;.EXE;.BAT;.CMD"}
	probe := files(`C:\Program Files\nodejs\npx.cmd`, `C:\Program Files\nodejs\node.exe`, `C:\Windows\System32\cmd.exe`,
		`C:\repo\tools\server.bat`, `C:\repo\bin\srv.exe`, `D:\x\uvx.EXE`, `\\host\share\s.exe`, `C:\Windows\System32\python.exe`)
	args := []string{"-y", `C:\My Files\data dir`, `say "hi"`, `50%`, `a&b`}
	tests := []struct {
		name, command, want string
		env                 []string
	}{
		{"npx finds npx.cmd through PATHEXT", "npx", `C:\Program Files\nodejs\npx.cmd`, env},
		{"node finds node.exe", "node", `C:\Program Files\nodejs\node.exe`, env},
		{"cmd /c form finds cmd.exe", "cmd", `C:\Windows\System32\cmd.exe`, env},
		{"case-insensitive name", "NPX", `C:\Program Files\nodejs\NPX.cmd`, nil},
		{"explicit extension, any case", "npx.CMD", `C:\Program Files\nodejs\npx.CMD`, env},
		{"relative path with backslash, against cwd", `tools\server`, `C:\repo\tools\server.bat`, env},
		{"relative path with slash", `bin/srv.exe`, `C:\repo\bin\srv.exe`, env},
		{"absolute with drive, PATHEXT's case", `D:\x\uvx`, `D:\x\uvx.exe`, env},
		{"UNC path", `\\host\share\s.exe`, `\\host\share\s.exe`, env},
		{"PATH spelt Path and PATHEXT unset: the default", "python", `C:\Windows\System32\python.exe`, []string{`Path=C:\Windows\System32`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := tc.env
			if e == nil {
				e = env
			}
			p := probe
			if tc.command == "NPX" {
				p = files(`C:\Program Files\nodejs\NPX.cmd`)
			}
			got, err := Resolve("windows", Spec{Command: tc.command, Args: args, Dir: `C:\repo`, Env: e}, p)
			if err != nil {
				t.Fatal(err)
			}
			if got.Path != tc.want {
				t.Errorf("path %q, want %q", got.Path, tc.want)
			}
			if !slices.Equal(got.Args, args) {
				t.Errorf("args %q changed (Go's os/exec quotes them, not agentgate)", got.Args)
			}
		})
	}
}

func TestResolveWindowsNotFound(t *testing.T) {
	env := []string{`PATH=C:\Windows\System32`, "PATHEXT=.EXE;.CMD"}
	for _, tc := range []struct{ command, msg, hint string }{
		{"npx", `command "npx" not found in PATH with PATHEXT .EXE;.CMD`, "Node.js, which puts npx.cmd on PATH"},
		{`C:\tools\missing`, `command "C:\\tools\\missing": no such program (tried C:\tools\missing.exe, C:\tools\missing.cmd)`, "check the path"},
	} {
		_, err := Resolve("windows", Spec{Command: tc.command, Dir: `C:\repo`, Env: env}, files())
		var e *Error
		if !errors.As(err, &e) || e.Msg != tc.msg || !strings.Contains(e.Hint, tc.hint) {
			t.Errorf("%s: got %#v", tc.command, err)
		}
	}
}

func TestResolveUnix(t *testing.T) {
	env := []string{"PATH=/usr/local/bin:/usr/bin::.:relative", "HOME=/home/dev/"}
	probe := files("/usr/bin/npx", "/usr/local/bin/uvx", "/home/dev/bin/server", "/repo/scripts/run.sh", "/opt/srv")
	for _, goos := range []string{"linux", "darwin", "freebsd"} {
		for _, tc := range []struct{ command, want string }{
			{"npx", "/usr/bin/npx"},
			{"uvx", "/usr/local/bin/uvx"},
			{"~/bin/server", "/home/dev/bin/server"},
			{"scripts/run.sh", "/repo/scripts/run.sh"},
			{"./scripts/run.sh", "/repo/scripts/run.sh"},
			{"/opt/srv", "/opt/srv"},
		} {
			got, err := Resolve(goos, Spec{Command: tc.command, Args: []string{"a b"}, Dir: "/repo", Env: env}, probe)
			if err != nil || got.Path != tc.want || !slices.Equal(got.Args, []string{"a b"}) {
				t.Errorf("%s %s: got %+v, %v; want %s", goos, tc.command, got, err, tc.want)
			}
		}
	}
	// Not the working directory implicitly, even with "." or "" in PATH.
	if _, err := Resolve("linux", Spec{Command: "run.sh", Dir: "/repo/scripts", Env: env}, probe); err == nil {
		t.Error("found run.sh in the working directory through PATH")
	}
	// The server's PATH, not agentgate's: the configured PATH decides.
	got, err := Resolve("linux", Spec{Command: "srv", Dir: "/", Env: []string{"PATH=/opt"}}, probe)
	if err != nil || got.Path != "/opt/srv" {
		t.Errorf("configured PATH: %+v %v", got, err)
	}
}

// TestResolveUnixRefusesWindowsPaths: a Windows path in a config is an
// error on unix naming the fix, never a file name with backslashes.
func TestResolveUnixRefusesWindowsPaths(t *testing.T) {
	for _, c := range []string{`C:\Users\dev\server.exe`, `c:/tools/s.exe`, `\\host\share\s.exe`, `tools\server.cmd`, `npx.cmd`, "~other/x"} {
		_, err := Resolve("darwin", Spec{Command: c, Dir: "/repo", Env: []string{"PATH=/usr/bin"}}, files("/usr/bin/npx.cmd"))
		var e *Error
		if !errors.As(err, &e) {
			if c == "npx.cmd" {
				continue // a unix file may well be called npx.cmd; it exists here
			}
			t.Errorf("%s: no error", c)
			continue
		}
		if IsWindowsPath(c) && (!strings.Contains(e.Msg, "is a Windows path, which darwin cannot run") || !strings.Contains(e.Hint, "configured for Windows")) {
			t.Errorf("%s: %q / %q", c, e.Msg, e.Hint)
		}
	}
	if _, err := Resolve("linux", Spec{Command: "~/x", Env: nil}, files()); err == nil || !strings.Contains(err.Error(), "HOME is not set") {
		t.Errorf("~ without HOME: %v", err)
	}
}

func TestMergeEnv(t *testing.T) {
	base := []string{"PATH=/bin", "Home=x", "B=1", "=C:=C:\\dir"}
	add := map[string]string{"Path": `C:\tools`, "A": "2"}
	if got, want := MergeEnv("windows", base, add), []string{`=C:=C:\dir`, "A=2", "B=1", "Home=x", `Path=C:\tools`}; !slices.Equal(got, want) {
		t.Errorf("windows: %q, want %q", got, want)
	}
	if got, want := MergeEnv("linux", base[:3], add), []string{"A=2", "B=1", "Home=x", "PATH=/bin", `Path=C:\tools`}; !slices.Equal(got, want) {
		t.Errorf("linux: %q, want %q", got, want)
	}
	if v, ok := Getenv("windows", []string{"path=a", "PATH=b"}, "Path"); !ok || v != "b" {
		t.Errorf("windows Getenv: %q %v", v, ok)
	}
	if _, ok := Getenv("linux", []string{"path=a"}, "PATH"); ok {
		t.Error("linux names are case-sensitive")
	}
}

// GetenvAs finds a variable by any spelling on Windows and returns the
// spelling the environment has (what a message must name); elsewhere
// names are exact. The last entry wins, as in os/exec.
func TestGetenvAs(t *testing.T) {
	env := []string{"PATH=/bin", "NPM_CONFIG_REGISTRY=http://a/", "Npm_Config_Registry=http://b/"}
	for _, tc := range []struct {
		goos, name, key, val string
		ok                   bool
	}{
		{"windows", "npm_config_registry", "Npm_Config_Registry", "http://b/", true},
		{"windows", "NPM_CONFIG_REGISTRY", "Npm_Config_Registry", "http://b/", true},
		{"linux", "NPM_CONFIG_REGISTRY", "NPM_CONFIG_REGISTRY", "http://a/", true},
		{"linux", "npm_config_registry", "", "", false},
		{"darwin", "path", "", "", false},
		{"windows", "path", "PATH", "/bin", true},
	} {
		key, val, ok := GetenvAs(tc.goos, env, tc.name)
		if key != tc.key || val != tc.val || ok != tc.ok {
			t.Errorf("GetenvAs(%s, %s) = %q, %q, %v; want %q, %q, %v", tc.goos, tc.name, key, val, ok, tc.key, tc.val, tc.ok)
		}
		if v, ok2 := Getenv(tc.goos, env, tc.name); v != tc.val || ok2 != tc.ok {
			t.Errorf("Getenv(%s, %s) = %q, %v; want %q, %v", tc.goos, tc.name, v, ok2, tc.val, tc.ok)
		}
	}
}
