package launcher

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Each row follows the launcher's documented argument rules: npm exec /
// npx (docs.npmjs.com/cli/commands/npm-exec), bunx (bun.sh/docs/cli/bunx),
// pnpm dlx, yarn dlx, uvx / uv tool run (docs.astral.sh/uv), pipx run,
// docker run ([OPTIONS] IMAGE [COMMAND]), go run (go help run).
func TestRecognizePackage(t *testing.T) {
	type want struct {
		eco, launcher, name, version string
		exact                        bool
		arg                          int
	}
	cases := []struct {
		cmd  string
		args string // space-separated
		want want
	}{
		// npm family
		{"npx", "-y @modelcontextprotocol/server-memory", want{EcoNPM, "npx", "@modelcontextprotocol/server-memory", "", false, 1}},
		{"npx", "-y @modelcontextprotocol/server-memory@2026.8.31", want{EcoNPM, "npx", "@modelcontextprotocol/server-memory", "2026.8.31", true, 1}},
		{"npx", "@modelcontextprotocol/server-filesystem@latest -y /tmp", want{EcoNPM, "npx", "@modelcontextprotocol/server-filesystem", "latest", false, 0}},
		{"npx", "--yes pkg@^1.2 --port 3", want{EcoNPM, "npx", "pkg", "^1.2", false, 1}},
		{"npx", "pkg@1.2.3-beta.1+b5 serve", want{EcoNPM, "npx", "pkg", "1.2.3-beta.1+b5", true, 0}},
		{"npx", "-y --registry http://r.example pkg@v1.0.0", want{EcoNPM, "npx", "pkg", "v1.0.0", true, 3}},
		{"npx", "-p pkg@1.0.0 pkg-bin --flag", want{EcoNPM, "npx", "pkg", "1.0.0", true, 1}},
		{"npx", "--package=@s/p@2.0.0 bin", want{EcoNPM, "npx", "@s/p", "2.0.0", true, 0}},
		{"npx", "--package x@1.0.0 -c cmd", want{EcoNPM, "npx", "x", "1.0.0", true, 1}},
		{"npx", "-y alias@npm:@s/real@3.1.4", want{EcoNPM, "npx", "@s/real", "3.1.4", true, 1}},
		{"npx", "-y pkg@1.2", want{EcoNPM, "npx", "pkg", "1.2", false, 1}},
		{"npx", "-- pkg@1.0.0 -y", want{EcoNPM, "npx", "pkg", "1.0.0", true, 1}},
		{`C:\nodejs\npx.cmd`, "-y pkg", want{EcoNPM, "npx", "pkg", "", false, 1}},
		{"npm", "exec --yes pkg@1.0.0", want{EcoNPM, "npm exec", "pkg", "1.0.0", true, 2}},
		{"npm", "exec bin --package=pkg@1.0.0", want{EcoNPM, "npm exec", "pkg", "1.0.0", true, 2}},
		{"npm", "x -- pkg@next arg", want{EcoNPM, "npm exec", "pkg", "next", false, 2}},
		{"npm", "--registry r exec pkg", want{EcoNPM, "npm exec", "pkg", "", false, 3}},
		{"bunx", "--bun @s/p@1.0.0", want{EcoNPM, "bunx", "@s/p", "1.0.0", true, 1}},
		{"bunx", "-p pkg@2.0.0 bin", want{EcoNPM, "bunx", "pkg", "2.0.0", true, 1}},
		{"pnpm", "dlx pkg@~1.4", want{EcoNPM, "pnpm dlx", "pkg", "~1.4", false, 1}},
		{"pnpm", "--package=pkg@1.0.0 dlx bin", want{EcoNPM, "pnpm dlx", "pkg", "1.0.0", true, 0}},
		{"pnpm", "dlx -c --package pkg@1.0.0 'bin | x'", want{EcoNPM, "pnpm dlx", "pkg", "1.0.0", true, 3}},
		{"yarn", "dlx -q pkg@1.0.0", want{EcoNPM, "yarn dlx", "pkg", "1.0.0", true, 2}},
		{"yarn", "dlx -p pkg@1.0.0 bin", want{EcoNPM, "yarn dlx", "pkg", "1.0.0", true, 2}},
		// python
		{"uvx", "mcp-server-fetch", want{EcoPyPI, "uvx", "mcp-server-fetch", "", false, 0}},
		{"uvx", "mcp-server-fetch@2025.4.7", want{EcoPyPI, "uvx", "mcp-server-fetch", "2025.4.7", true, 0}},
		{"uvx", "mcp_Server.Git==1.0.0 --repo .", want{EcoPyPI, "uvx", "mcp-server-git", "1.0.0", true, 0}},
		{"uvx", "FrIeNdLy-._.-bArD==1.0", want{EcoPyPI, "uvx", "friendly-bard", "1.0", true, 0}}, // the Name normalization spec's example
		{"uvx", "--python 3.12 tool@latest", want{EcoPyPI, "uvx", "tool", "latest", false, 2}},
		{"uvx", "--from ruff==0.6.1 ruff check", want{EcoPyPI, "uvx", "ruff", "0.6.1", true, 1}},
		{"uvx", "--from=black[d]>=24,<25 black", want{EcoPyPI, "uvx", "black", ">=24,<25", false, 0}},
		{"uvx", "tool===1.0.0.dev1", want{EcoPyPI, "uvx", "tool", "1.0.0.dev1", true, 0}},
		// Any spelling PEP 440 accepts is one version (uv reads it so);
		// a prefix match or a set is not.
		{"uvx", "tool==V1.0", want{EcoPyPI, "uvx", "tool", "V1.0", true, 0}},
		{"uvx", "tool==1.0.RC1", want{EcoPyPI, "uvx", "tool", "1.0.RC1", true, 0}},
		{"uvx", "tool==1.0-1", want{EcoPyPI, "uvx", "tool", "1.0-1", true, 0}},
		{"uvx", "tool@1.0alpha", want{EcoPyPI, "uvx", "tool", "1.0alpha", true, 0}},
		{"uvx", "tool==1.0+Local-7", want{EcoPyPI, "uvx", "tool", "1.0+Local-7", true, 0}},
		{"uvx", "tool==1.0.*", want{EcoPyPI, "uvx", "tool", "1.0.*", false, 0}},
		{"uvx", "tool==1.0,<2", want{EcoPyPI, "uvx", "tool", "==1.0,<2", false, 0}},
		{"uvx", "tool==1..0", want{EcoPyPI, "uvx", "tool", "1..0", false, 0}},
		{"uv", "tool run --with x pkg==2.0", want{EcoPyPI, "uv tool run", "pkg", "2.0", true, 4}},
		{"uv", "--directory d tool run pkg", want{EcoPyPI, "uv tool run", "pkg", "", false, 4}},
		{"pipx", "run pycowsay==0.0.0.2 moo", want{EcoPyPI, "pipx run", "pycowsay", "0.0.0.2", true, 1}},
		{"pipx", "run --spec tool~=1.2 tool", want{EcoPyPI, "pipx run", "tool", "~=1.2", false, 2}},
		// oci
		{"docker", "run -i --rm mcp/fetch", want{EcoOCI, "docker run", "mcp/fetch", "", false, 3}},
		{"docker", "run -i --rm -e TOKEN ghcr.io/o/img:1.2", want{EcoOCI, "docker run", "ghcr.io/o/img", "1.2", false, 5}},
		{"docker", "run -it -v /a:/b --name=x localhost:5000/img:v1@sha256:" + strings.Repeat("ab", 32) + " serve", want{EcoOCI, "docker run", "localhost:5000/img", "v1@sha256:" + strings.Repeat("ab", 32), true, 5}},
		{"docker", "run -eFOO=1 -p8080:80 img@sha256:" + strings.Repeat("0", 64), want{EcoOCI, "docker run", "img", "@sha256:" + strings.Repeat("0", 64), true, 3}},
		{"docker", "run -ie FOO img", want{EcoOCI, "docker run", "img", "", false, 3}},
		{"docker", "container run --rm img:latest", want{EcoOCI, "docker run", "img", "latest", false, 3}},
		{"podman", "run --rm -i quay.io/x/y", want{EcoOCI, "podman run", "quay.io/x/y", "", false, 3}},
		// go
		{"go", "run github.com/o/r/cmd/s@v1.2.3 -x", want{EcoGo, "go run", "github.com/o/r/cmd/s", "v1.2.3", true, 1}},
		{"go", "run -tags x golang.org/x/tools/gopls@latest", want{EcoGo, "go run", "golang.org/x/tools/gopls", "latest", false, 3}},
		// files
		{"node", "./server.js", want{EcoFile, "node", "server.js", "", true, 0}},
		{"node", "--env-file .env dist/index.js --port 1", want{EcoFile, "node", "dist/index.js", "", true, 2}},
		{"python3", "-u scripts/srv.py", want{EcoFile, "python3", "scripts/srv.py", "", true, 1}},
		{"./bin/server", "--stdio", want{EcoFile, "", "bin/server", "", true, -1}},
		{"bash", "tools/run.sh", want{EcoFile, "bash", "tools/run.sh", "", true, 0}},
		{"deno", "run -A ./srv.ts", want{EcoFile, "deno", "srv.ts", "", true, 2}},
	}
	for _, c := range cases {
		args := strings.Fields(c.args)
		got, err := RecognizePackage(c.cmd, args)
		if c.want.eco == "" {
			var u *UnpinnableError
			if !errors.As(err, &u) {
				t.Errorf("%s %s: got %+v, %v; want unpinnable", c.cmd, c.args, got, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s %s: %v", c.cmd, c.args, err)
			continue
		}
		g := want{got.Ecosystem, got.Launcher, got.Name, got.Version, got.Exact, got.Arg}
		if g != c.want {
			t.Errorf("%s %s:\n got %+v\nwant %+v", c.cmd, c.args, g, c.want)
		}
		if got.Arg >= 0 && got.Raw != args[got.Arg] {
			t.Errorf("%s %s: Raw %q, args[%d] = %q", c.cmd, c.args, got.Raw, got.Arg, args[got.Arg])
		}
	}
}

func TestRecognizePackageUnpinnable(t *testing.T) {
	for _, c := range []struct{ cmd, args, reason string }{
		{"node", "/opt/srv/index.js", "not a path inside"},
		{"node", "../outside/index.js", "not a path inside"},
		{"node", "${workspaceFolder}/index.js", "not a path inside"},
		{"python", "-m mcp_server", "inline code or a module"},
		{"node", "-e console.log(1)", "inline code"},
		{"mcp-server-bin", "--stdio", "not a known launcher"},
		{"npx", "-y github:o/r", "not a registry package"},
		{"npx", "-y ./local-dir", "not a registry package"},
		{"npx", "-y Bad_Name", "not a valid npm package name"},
		{"npx", "-y", "names no package"},
		{"npx", "-c 'echo hi'", "--call"},
		{"uvx", "git+https://x/y", "not a registry package"},
		{"uvx", "--from", "has no value"},
		{"uvx", "tool==", "empty version"},
		{"docker", "run --frobnicate x img", "not known to agentgate"},
		{"docker", "run -i --rm", "names no image"},
		{"docker", "run Bad:Ref:x", "not a valid image reference"},
		{"docker", "exec c cmd", "only `docker run`"},
		{"go", "run ./cmd/server", "working tree"},
		{"npm", "install pkg", "does not run a registry package"},
	} {
		_, err := RecognizePackage(c.cmd, strings.Fields(c.args))
		var u *UnpinnableError
		if !errors.As(err, &u) || !strings.Contains(err.Error(), c.reason) {
			t.Errorf("%s %s: err %v, want unpinnable mentioning %q", c.cmd, c.args, err, c.reason)
		}
	}
}

func TestPackageSpecString(t *testing.T) {
	for _, c := range []struct {
		p    PackageSpec
		want string
	}{
		{PackageSpec{Ecosystem: EcoNPM, Name: "@s/p", Version: "1.0.0"}, "@s/p@1.0.0"},
		{PackageSpec{Ecosystem: EcoNPM, Name: "p"}, "p"},
		{PackageSpec{Ecosystem: EcoPyPI, Name: "p", Version: "1.0"}, "p==1.0"},
		{PackageSpec{Ecosystem: EcoPyPI, Name: "p", Version: ">=1"}, "p>=1"},
		{PackageSpec{Ecosystem: EcoOCI, Name: "img", Version: "1"}, "img:1"},
		{PackageSpec{Ecosystem: EcoOCI, Name: "img", Version: "@sha256:00"}, "img@sha256:00"},
		{PackageSpec{Ecosystem: EcoGo, Name: "x.org/a", Version: "v1.0.0"}, "x.org/a@v1.0.0"},
	} {
		if got := c.p.String(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.p, got, c.want)
		}
	}
}

// FileIntegrity of "abc": SHA-256 ba7816bf...15ad (FIPS 180-2 test vector),
// base64 as `printf abc | openssl dgst -sha256 -binary | base64`.
func TestFileIntegrity(t *testing.T) {
	f := filepath.Join(t.TempDir(), "s.sh")
	if err := os.WriteFile(f, []byte("abc"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := FileIntegrity(f)
	if want := "sha256-ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0="; err != nil || got != want {
		t.Errorf("FileIntegrity = %q, %v; want %q", got, err, want)
	}
	if got := DataIntegrity([]byte("abc")); got != "sha256-ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=" {
		t.Errorf("DataIntegrity = %q", got)
	}
	if _, err := FileIntegrity(f + ".missing"); err == nil {
		t.Error("missing file: no error")
	}
}

// FuzzRecognizePackage: any command line either attributes to a package
// whose Arg indexes the argument holding Raw, or is an *UnpinnableError;
// never a panic.
func FuzzRecognizePackage(f *testing.F) {
	for _, s := range []string{"npx -y pkg@1.0.0", "npm exec -p x@1 -- b", "pnpm --package=a dlx b", "uvx --from=a==1 a", "docker run -it -e", "go run x.org/a@v1.0.0", "node -r x ./a.js", "uv tool run", "pipx run --spec"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			return
		}
		p, err := RecognizePackage(fields[0], fields[1:])
		args := fields[1:]
		if err != nil {
			var u *UnpinnableError
			if !errors.As(err, &u) {
				t.Fatalf("%q: error %v is not an UnpinnableError", line, err)
			}
			return
		}
		if p.Arg >= len(args) || (p.Arg >= 0 && p.Raw != args[p.Arg]) || (p.Arg < 0 && p.Ecosystem != EcoFile) {
			t.Fatalf("%q: Arg %d Raw %q out of step with args %q", line, p.Arg, p.Raw, args)
		}
		if p.Name == "" {
			t.Fatalf("%q: empty name in %+v", line, p)
		}
	})
}
