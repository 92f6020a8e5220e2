package testenv

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// SARIFSchemaFile is the OASIS SARIF 2.1.0 JSON Schema, relative to the
// repository root; render/testdata/sarif/README.md says where it came from.
const SARIFSchemaFile = "render/testdata/sarif/sarif-schema-2.1.0.json"

// GitLabSchemaFile is a JSON Schema of GitLab's Code Quality report,
// written from GitLab's documentation (its $comment says so).
const GitLabSchemaFile = "render/testdata/gitlab/code-quality.schema.json"

var (
	sarifSchema  = sync.OnceValues(func() (*jsonschema.Schema, error) { return compileSchema(SARIFSchemaFile) })
	gitlabSchema = sync.OnceValues(func() (*jsonschema.Schema, error) { return compileSchema(GitLabSchemaFile) })
)

// compileSchema compiles the JSON Schema at file (relative to the
// repository root, found from the working directory) with formats asserted.
func compileSchema(file string) (*jsonschema.Schema, error) {
	dir, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		if filepath.Dir(dir) == dir {
			return nil, errors.New("testenv: no go.mod above the working directory")
		}
		dir = filepath.Dir(dir)
	}
	f, err := os.Open(filepath.Join(dir, filepath.FromSlash(file)))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	name := filepath.Base(file)
	if err := c.AddResource(name, doc); err != nil {
		return nil, err
	}
	return c.Compile(name)
}

// ValidateSARIF reports whether data is a JSON document valid against the
// SARIF 2.1.0 schema (formats asserted).
func ValidateSARIF(data []byte) error { return validate(sarifSchema, data) }

// ValidateGitLab reports whether data is a GitLab Code Quality report as
// GitLabSchemaFile describes it.
func ValidateGitLab(data []byte) error { return validate(gitlabSchema, data) }

func validate(schema func() (*jsonschema.Schema, error), data []byte) error {
	s, err := schema()
	if err != nil {
		return err
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return err
	}
	return s.Validate(v)
}
