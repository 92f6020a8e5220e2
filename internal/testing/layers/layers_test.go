// Package layers holds one test, TestLayers: the import rules of
// docs/ARCHITECTURE.md, read from `go list -deps`, so that the layering
// cannot silently run back up again. It is test support: nothing imports it.
package layers_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/internal/testing/testenv"
)

const mod = "github.com/agentgate/agentgate/"

// rule says that pkg (a path in the module; "dir/..." for dir and every
// package under it) never links (imports directly or through another
// package) any of never: a path in the module, "dir/..." for a tree of
// them ("..." alone: any package of the module), one of the standard
// library packages in std, or a package of another module (its full
// path, "path/..." for a tree). These are the "never" entries of
// docs/ARCHITECTURE.md that the code satisfies; where that table says
// "not yet", the rule is not here; costs says, for some rules, what
// breaking them would cost.
type rule struct {
	pkg   string
	never []string
}

// lean is what agentgate and git-agentgate never link. mcp-go, the JSON
// Schema validator it drags in (whose init costs milliseconds on every
// commit hook: issue #5) and mcp/capture: live capture belongs in
// cmd/agentgate-mcp (mcp/wire runs it). Package net: with cgo, the usual
// build, it makes the binary dynamically linked (ld.so and cgo start-up
// cost ~1 ms on every run); nor go-git's root package (its transports:
// SSH, HTTP, OpenPGP; see gitint/gogit.go and internal/demo/git.go), nor
// internal/testing (fakehttp is net/http).
var lean = []string{"net", "mcp/capture", "internal/testing/...",
	"github.com/mark3labs/...", "github.com/santhosh-tekuri/...", "github.com/go-git/go-git/v5"}

const leanWhy = "which costs every agentgate start a millisecond or more (issue #5); live capture belongs in cmd/agentgate-mcp (mcp/wire runs it)"

var costs = map[string]string{"cmd/agentgate": leanWhy, "cmd/git-agentgate": leanWhy}

var rules = []rule{
	{"lock", []string{"net", "net/http", "os/exec", "gitint", "mcp/...", "render", "hooks", "internal/cli", "internal/mcpmain", "internal/demo"}},
	{"render", []string{"net", "net/http", "os/exec", "gitint", "mcp/...", "internal/cli", "internal/mcpmain"}},
	{"hooks", []string{"..."}},
	{"gitint", []string{"net", "lock", "mcp/...", "render", "internal/cli", "internal/mcpmain"}},
	{"mcp/...", []string{"render", "internal/cli", "gitint", "hooks"}},
	{"mcp/config", []string{"net", "net/http", "os/exec", "lock", "render", "mcp/configedit"}},
	{"mcp/config/syntax", []string{"net", "net/http", "os/exec", "mcp/...", "lock", "render", "triage"}},
	{"mcp/configedit", []string{"net", "net/http", "os/exec", "lock", "render"}},
	{"mcp/guardargs", []string{"net", "net/http", "os/exec", "mcp/config", "mcp/configedit", "mcp/launcher", "lock", "render"}},
	{"mcp/launcher", []string{"net", "net/http", "os/exec", "mcp/config", "mcp/configedit", "mcp/guardargs", "lock", "render"}},
	{"mcp/auth", []string{"mcp/capture", "render", "lock"}},
	{"mcp/registry", []string{"mcp/capture", "render"}},
	{"mcp/capture", []string{"render", "mcp/guard", "mcp/bridge"}},
	{"mcp/jsonrpc", []string{"net", "github.com/mark3labs/..."}},
	{"mcp/proc", []string{"net", "github.com/mark3labs/..."}},
	{"mcp/remote", []string{"mcp/capture", "render"}},
	{"mcp/bridge", []string{"render", "mcp/guard", "mcp/capture"}},
	{"mcp/guard", []string{"render", "mcp/capture"}},
	{"internal/mcpmain", []string{"internal/cli"}},
	{"internal/cli", []string{"internal/mcpmain", "mcp/capture", "mcp/guard", "mcp/bridge", "mcp/auth", "mcp/registry", "net"}},
	{"internal/check", []string{"net", "net/http", "github.com/mark3labs/...", "internal/cli", "internal/mcpmain", "render",
		"mcp/capture", "mcp/guard", "mcp/bridge", "mcp/auth", "mcp/registry"}},
	{"internal/demo", []string{"internal/testing/...", "net"}},
	{"triage", []string{"net", "net/http", "os/exec", "gitint", "mcp/...", "render", "internal/cli", "internal/mcpmain"}},
	{"internal/safetext", []string{"..."}},
	{"internal/lazyre", []string{"..."}},
	{"internal/atomicfile", []string{"..."}},
	{"internal/reporoot", []string{"..."}},
	{"internal/sys/...", []string{"..."}},
	{"cmd/agentgate", lean},
	{"cmd/git-agentgate", lean},
}

// direct is what a package never imports itself (it may link it through
// another package: mcp/config's guard arguments are a flag.FlagSet).
var direct = []rule{
	// The engine parses no flags: internal/cli settles the options.
	{"internal/check", []string{"flag"}},
}

// links is what a package must link, so that the rules above keep
// checking what they mean to.
var links = []struct{ pkg, dep, why string }{
	// agentgate's demo-server is internal/demo's stdio server: the lean
	// rule is what keeps that server free of package net.
	{"cmd/agentgate", "internal/demo", "is demo-server still demo.Serve? (then the lean rule no longer keeps the server free of package net)"},
	{"cmd/agentgate-mcp", "github.com/mark3labs/mcp-go/client", "live capture runs there"},
}

// product is every package that ships: all but test support and the
// benchmark tools. None of them links internal/testing.
func product(pkg string) bool {
	return !under(pkg, "internal/testing/...") && !under(pkg, "scripts/...")
}

// mains: the thin mains import (directly) only their one package of this
// module.
var mains = map[string]string{
	"cmd/agentgate":     "internal/cli",
	"cmd/git-agentgate": "internal/cli",
	"cmd/agentgate-mcp": "internal/mcpmain",
}

// under reports whether path (relative to the module, or a standard
// library path) matches pattern: equal, or "dir/..." and under dir ("..."
// alone: any package of the module).
func under(path, pattern string) bool {
	if pattern == "..." {
		return true
	}
	if dir, ok := strings.CutSuffix(pattern, "/..."); ok {
		return path == dir || strings.HasPrefix(path, dir+"/")
	}
	return path == pattern
}

// graph returns, for every package of the module (relative path), its
// direct imports and its dependencies (module packages relative, the
// standard library and other modules as is).
func graph(t *testing.T) (imports, deps map[string][]string) {
	t.Helper()
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}}|{{join .Imports \" \"}}|{{join .Deps \" \"}}", "./...")
	cmd.Dir = testenv.RepoRoot(t)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list ./...: %v", err)
	}
	rel := func(list string) []string {
		var r []string
		for _, p := range strings.Fields(list) {
			r = append(r, strings.TrimPrefix(p, mod))
		}
		return r
	}
	imports, deps = map[string][]string{}, map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(line, "|")
		if len(f) != 3 {
			t.Fatalf("go list: unexpected line %q", line)
		}
		pkg := strings.TrimPrefix(f[0], mod)
		imports[pkg], deps[pkg] = rel(f[1]), rel(f[2])
	}
	return imports, deps
}

// TestLayers: every rule above holds, no product package links test
// support, and the mains import only their package. Each rule must name
// at least one existing package, so a moved package cannot leave its rule
// checking nothing.
func TestLayers(t *testing.T) {
	imports, deps := graph(t)
	for _, r := range rules {
		matched := false
		for pkg, ds := range deps {
			if !under(pkg, r.pkg) {
				continue
			}
			matched = true
			for _, d := range ds {
				for _, n := range r.never {
					if !matches(d, n, deps) {
						continue
					}
					if why, ok := costs[r.pkg]; ok {
						t.Errorf("%s links %s, %s", pkg, d, why)
					} else {
						t.Errorf("%s links %s, which docs/ARCHITECTURE.md says it never does (rule for %s)", pkg, d, r.pkg)
					}
				}
			}
		}
		if !matched {
			t.Errorf("rule for %s names no package: update the rules with the layout", r.pkg)
		}
	}
	for pkg, ds := range deps {
		if !product(pkg) {
			continue
		}
		for _, d := range ds {
			if under(d, "internal/testing/...") {
				t.Errorf("%s links %s: test support must not ship", pkg, d)
			}
		}
	}
	for _, r := range direct {
		matched := false
		for pkg, ds := range imports {
			if !under(pkg, r.pkg) {
				continue
			}
			matched = true
			for _, d := range ds {
				for _, n := range r.never {
					if matches(d, n, deps) {
						t.Errorf("%s imports %s, which docs/ARCHITECTURE.md says it never does (rule for %s)", pkg, d, r.pkg)
					}
				}
			}
		}
		if !matched {
			t.Errorf("rule for %s names no package: update the rules with the layout", r.pkg)
		}
	}
	for _, l := range links {
		if !slices.Contains(deps[l.pkg], l.dep) {
			t.Errorf("%s does not link %s: %s", l.pkg, l.dep, l.why)
		}
	}
	for main, want := range mains {
		got, ok := imports[main]
		if !ok {
			t.Errorf("no package %s", main)
		}
		for _, d := range got {
			if isModule(d, deps) && d != want {
				t.Errorf("%s imports %s: a thin main imports only %s", main, d, want)
			}
		}
	}
}

// std are the standard library packages the rules name; every other name
// in a rule is a package (or "dir/...", a tree) of this module or, when
// its first element has a dot, of another module.
var std = []string{"net", "net/http", "os/exec", "flag"}

// matches reports whether dependency d is what the rule entry n names.
func matches(d, n string, deps map[string][]string) bool {
	if first := strings.SplitN(n, "/", 2)[0]; slices.Contains(std, n) || first != "..." && strings.Contains(first, ".") {
		return !isModule(d, deps) && under(d, n)
	}
	return isModule(d, deps) && under(d, n)
}

// isModule reports whether p is a package of this module.
func isModule(p string, deps map[string][]string) bool {
	_, ok := deps[p]
	return ok
}

// maxConfigExports bounds the exported surface of mcp/config, the
// reader: the editor, guard's arguments, package recognition and the
// shared syntax each have their own package (docs/ARCHITECTURE.md), and a
// reader that grows past this is doing another job again.
const maxConfigExports = 40

// TestConfigExports: mcp/config declares at most maxConfigExports
// exported top-level names. The count, with go/parser over the package's
// non-test .go files: each exported name declared at the top level by a
// func without a receiver (methods are not counted), a type, a var or a
// const, one per name (a `const (A = 1; B = 2)` block is two).
func TestConfigExports(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(testenv.RepoRoot(t), "mcp", "config", "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("mcp/config: %v (%d files)", err, len(files))
	}
	var names []string
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range af.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil && d.Name.IsExported() {
					names = append(names, d.Name.Name)
				}
			case *ast.GenDecl:
				for _, sp := range d.Specs {
					switch sp := sp.(type) {
					case *ast.TypeSpec:
						if sp.Name.IsExported() {
							names = append(names, sp.Name.Name)
						}
					case *ast.ValueSpec:
						for _, n := range sp.Names {
							if n.IsExported() {
								names = append(names, n.Name)
							}
						}
					}
				}
			}
		}
	}
	if len(names) > maxConfigExports {
		slices.Sort(names)
		t.Errorf("mcp/config declares %d exported top-level names, at most %d: %s", len(names), maxConfigExports, strings.Join(names, " "))
	}
}

// silent are the packages that never write to the process's stdout or
// stderr themselves: they return what happened, and their caller prints.
var silent = []string{"internal/check"}

// TestSilent: no product file of a silent package names os.Stdout or
// os.Stderr or calls fmt.Print, fmt.Printf, fmt.Println, print or println.
func TestSilent(t *testing.T) {
	for _, pkg := range silent {
		dir := filepath.Join(testenv.RepoRoot(t), filepath.FromSlash(pkg))
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no Go files (%v): update silent with the layout", pkg, err)
		}
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				switch x := n.(type) {
				case *ast.SelectorExpr:
					if id, ok := x.X.(*ast.Ident); ok {
						switch id.Name + "." + x.Sel.Name {
						case "os.Stdout", "os.Stderr", "fmt.Print", "fmt.Printf", "fmt.Println":
							t.Errorf("%s/%s uses %s.%s: the package prints nothing (return it; the caller prints)", pkg, filepath.Base(name), id.Name, x.Sel.Name)
						}
					}
				case *ast.CallExpr:
					if id, ok := x.Fun.(*ast.Ident); ok && (id.Name == "print" || id.Name == "println") {
						t.Errorf("%s/%s calls %s: the package prints nothing", pkg, filepath.Base(name), id.Name)
					}
				}
				return true
			})
		}
	}
}

// testNever is what the tests of a package (its _test.go files, in the
// package and external) never import directly: the tests of a lower room
// test it through its own API or a built binary, not through the
// commands above it (a capture test once ran internal/cli's Main).
var testNever = []rule{
	{"mcp/...", []string{"internal/cli", "internal/mcpmain", "render"}},
	{"lock", []string{"internal/cli", "internal/mcpmain", "internal/check", "render", "mcp/..."}},
	{"render", []string{"internal/cli", "internal/mcpmain", "internal/check"}},
}

// TestTestImports: the rules of testNever hold.
func TestTestImports(t *testing.T) {
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}}|{{join .TestImports \" \"}} {{join .XTestImports \" \"}}", "./...")
	cmd.Dir = testenv.RepoRoot(t)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list ./...: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		name, list, _ := strings.Cut(line, "|")
		pkg := strings.TrimPrefix(name, mod)
		for _, r := range testNever {
			if !under(pkg, r.pkg) {
				continue
			}
			for _, d := range strings.Fields(list) {
				d, ok := strings.CutPrefix(d, mod)
				if !ok {
					continue
				}
				for _, n := range r.never {
					if under(d, n) && d != pkg {
						t.Errorf("a test of %s imports %s, which a test of %s never does", pkg, d, r.pkg)
					}
				}
			}
		}
	}
}
