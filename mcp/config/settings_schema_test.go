package config

import (
	"bytes"
	"encoding/json"
	"go/ast"
	goparser "go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/agentgate/agentgate/triage"
	"github.com/rogpeppe/go-internal/txtar"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

const settingsSchemaPath = "../../docs/spec/agentgate.toml.schema.json"

func settingsSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	sch, err := c.Compile(settingsSchemaPath)
	if err != nil {
		t.Fatalf("compile %s: %v", settingsSchemaPath, err)
	}
	return sch
}

// validateSettings decodes data as TOML (BurntSushi) and validates the
// result, as JSON, against the schema.
func validateSettings(sch *jsonschema.Schema, data []byte) error {
	var v map[string]any
	if _, err := toml.Decode(string(data), &v); err != nil {
		return err
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return err
	}
	return sch.Validate(doc)
}

// settingsFixtures collects every agentgate.toml the tests use: files of
// that name under the module, sections of that name in txtar scripts, and
// string literals written as agentgate.toml in Go tests (an argument right
// after "agentgate.toml", a map value under that key, the data given to
// ParseSettings).
func settingsFixtures(t *testing.T) map[string][]byte {
	t.Helper()
	root := filepath.Join("..", "..")
	out := map[string][]byte{}
	fset := token.NewFileSet()
	lit := func(e ast.Expr) (string, bool) {
		if c, ok := e.(*ast.CallExpr); ok && len(c.Args) == 1 { // []byte(`...`)
			e = c.Args[0]
		}
		b, ok := e.(*ast.BasicLit)
		if !ok || b.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(b.Value)
		return s, err == nil
	}
	isName := func(e ast.Expr) bool {
		s, ok := lit(e)
		return ok && (s == "agentgate.toml" || strings.HasSuffix(s, "/agentgate.toml"))
	}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == ".git") {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(root, p)
		switch {
		case d.Name() == "agentgate.toml":
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[rel] = b
		case strings.HasSuffix(p, ".txtar"):
			a, err := txtar.ParseFile(p)
			if err != nil {
				return err
			}
			for _, f := range a.Files {
				if path := f.Name; path == "agentgate.toml" || strings.HasSuffix(path, "/agentgate.toml") {
					out[rel+":"+path] = f.Data
				}
			}
		case strings.HasSuffix(p, "_test.go"):
			f, err := goparser.ParseFile(fset, p, nil, 0)
			if err != nil {
				return err
			}
			ast.Inspect(f, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.CallExpr:
					for i := 0; i+1 < len(n.Args); i++ {
						if isName(n.Args[i]) {
							if s, ok := lit(n.Args[i+1]); ok {
								out[fset.Position(n.Pos()).String()] = []byte(s)
							}
						}
					}
					if id, ok := n.Fun.(*ast.Ident); ok && id.Name == "ParseSettings" && len(n.Args) == 2 {
						if s, ok := lit(n.Args[1]); ok {
							out[fset.Position(n.Pos()).String()] = []byte(s)
						}
					}
				case *ast.KeyValueExpr:
					if isName(n.Key) {
						if s, ok := lit(n.Value); ok {
							out[fset.Position(n.Pos()).String()] = []byte(s)
						}
					}
				}
				return true
			})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSettingsSchemaFixtures: every agentgate.toml in the tests and
// testdata that agentgate accepts is valid under the schema.
func TestSettingsSchemaFixtures(t *testing.T) {
	sch := settingsSchema(t)
	accepted := 0
	for name, data := range settingsFixtures(t) {
		if _, err := ParseSettings("agentgate.toml", data); err != nil {
			continue // a test of a bad file
		}
		accepted++
		if err := validateSettings(sch, data); err != nil {
			t.Errorf("%s: agentgate accepts it, the schema does not: %v\n%s", name, err, data)
		}
	}
	t.Logf("%d agentgate.toml fixtures agentgate accepts, all valid under the schema", accepted)
	if accepted < 20 {
		t.Errorf("only %d accepted agentgate.toml fixtures found", accepted)
	}
}

// TestSettingsSchemaRejects: files agentgate refuses for a reason a schema
// can state, which the schema refuses too.
func TestSettingsSchemaRejects(t *testing.T) {
	sch := settingsSchema(t)
	for _, data := range []string{
		"unknown = 1\n",
		"concurrency = 0\n",
		"concurrency = 257\n",
		"timeout = 45\n",
		"timeout = \"soon\"\n",
		"hook = \"sometimes\"\n",
		"max-tools = 0\n",
		"max-listing-bytes = \"12MB\"\n",
		"definitions = \"no\"\n",
		"client-capabilities = [\"telepathy\"]\n",
		"[[extra]]\npath = \"x.json\"\nformat = \"notepad\"\n",
		"[[extra]]\nformat = \"vscode\"\n",
		"[servers.x]\nexclude = \"\"\n",
		"[servers.x]\ncolour = \"red\"\n",
		"[servers.x]\nignore-members = [\"name\"]\n",
		"[servers.x.oauth]\ngrant = \"client_credentials\"\n",
		"[servers.x.oauth]\ngrant = \"password\"\n",
		"[servers.x.oauth]\nclient-secret-env = \"not a name\"\n",
		"[inputs]\na = { env = \"A\", value = \"b\" }\n",
		"[inputs]\na = { }\n",
		"[[rename]]\nfile = \".mcp.json\"\nserver = \"a\"\n",
	} {
		if _, err := ParseSettings("agentgate.toml", []byte(data)); err == nil {
			t.Errorf("agentgate accepts %q: not a rejection case", data)
		}
		if err := validateSettings(sch, []byte(data)); err == nil {
			t.Errorf("the schema accepts %q, which agentgate refuses", data)
		}
	}
}

// TestSettingsSchemaKeys: the schema names exactly the keys ParseSettings
// knows (its p.known lists in settings.go), each with a description.
func TestSettingsSchemaKeys(t *testing.T) {
	src, err := os.ReadFile("settings.go")
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	for _, call := range regexp.MustCompile(`p\.known\([^)]*\)`).FindAllString(string(src), -1) {
		for _, m := range regexp.MustCompile(`"([a-z-]+)"`).FindAllStringSubmatch(call, -1) {
			known[m[1]] = true
		}
	}
	b, err := os.ReadFile(settingsSchemaPath)
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	inSchema := map[string]bool{}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if props, ok := v["properties"].(map[string]any); ok {
				for k, p := range props {
					inSchema[k] = true
					pm, _ := p.(map[string]any)
					if pm["description"] == nil && pm["$ref"] == nil {
						t.Errorf("schema key %q has no description", k)
					}
				}
			}
			for k, x := range v {
				if k != "if" { // a condition, not a key's definition
					walk(x)
				}
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(doc)
	if k, s := slices.Sorted(maps.Keys(known)), slices.Sorted(maps.Keys(inSchema)); !slices.Equal(k, s) {
		t.Errorf("keys agentgate knows %v\nkeys the schema names %v", k, s)
	}
	// The keys of [servers.NAME.labels] are triage's label ids (the
	// p.known list reads them from triage.IDs, not from literals).
	var ids []string
	enum, _ := doc.(map[string]any)["definitions"].(map[string]any)["labelId"].(map[string]any)["enum"].([]any)
	for _, id := range enum {
		s, _ := id.(string)
		ids = append(ids, s)
	}
	if !slices.Equal(ids, triage.IDs) {
		t.Errorf("the schema's labelId %q, triage.IDs %q", ids, triage.IDs)
	}
}

// TestSettingsSchemaComment: taplo's "#:schema" first line, which points
// editors at the schema, is an ordinary comment to agentgate.
func TestSettingsSchemaComment(t *testing.T) {
	data := []byte("#:schema https://github.com/agentgate/agentgate/raw/main/docs/spec/agentgate.toml.schema.json\ntimeout = \"45s\"\n")
	st, err := ParseSettings("agentgate.toml", data)
	if err != nil || st.Timeout.String() != "45s" {
		t.Fatalf("ParseSettings with a #:schema line: %v, timeout %v", err, st.Timeout)
	}
	if err := validateSettings(settingsSchema(t), data); err != nil {
		t.Fatal(err)
	}
}
