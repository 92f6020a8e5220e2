// Package workflows tests the GitHub Action (action.yml) and the ready
// workflows in docs/ with actionlint (a go.mod tool: go tool actionlint),
// and checks that no input reaches a shell script except through env.
package workflows

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agentgate/agentgate/internal/testing/testenv"
	"go.yaml.in/yaml/v3"
)

// workflowFiles are the ready workflows shipped in docs/ and the
// repository's own .github/workflows.
func workflowFiles(t *testing.T, root string) []string {
	files, err := filepath.Glob(filepath.Join(root, "docs", "github-actions*.yml"))
	if err != nil {
		t.Fatal(err)
	}
	own, _ := filepath.Glob(filepath.Join(root, ".github", "workflows", "*.y*ml"))
	files = append(files, own...)
	if len(files) < 2 {
		t.Fatalf("found %d workflows in docs/: %v", len(files), files)
	}
	return files
}

// actionlint runs go tool actionlint in dir on files; it fails the test
// when shellcheck (which actionlint runs on scripts) is missing under CI.
func actionlint(t *testing.T, dir string, files ...string) (string, error) {
	t.Helper()
	if _, err := exec.LookPath("shellcheck"); err != nil {
		if testenv.CI() {
			t.Fatal("shellcheck is missing: run scripts/test.sh (apt-get install shellcheck)")
		}
		t.Log("shellcheck is missing: scripts are not checked")
	}
	bin := actionlintBinary(t)
	cmd := exec.Command(bin, append([]string{"-no-color"}, files...)...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

var (
	actionlintOnce sync.Once
	actionlintPath string
	actionlintErr  error
)

// actionlintBinary builds actionlint at go.mod's tool version (go tool -n
// prints the cached binary's path) so it can run outside the module.
func actionlintBinary(t *testing.T) string {
	t.Helper()
	actionlintOnce.Do(func() {
		cmd := exec.Command("go", "tool", "-n", "actionlint")
		cmd.Dir = testenv.RepoRoot(t)
		out, err := cmd.CombinedOutput()
		actionlintPath, actionlintErr = strings.TrimSpace(string(out)), err
	})
	if actionlintErr != nil {
		t.Fatalf("go tool -n actionlint: %v: %s", actionlintErr, actionlintPath)
	}
	return actionlintPath
}

// localRepo is a git work tree holding action.yml at its root and the given
// workflows under .github/workflows, with "uses: agentgate/agentgate@v1"
// replaced by the local action "./", so that actionlint checks every with:
// against action.yml's inputs.
func localRepo(t *testing.T, workflows map[string]string) string {
	t.Helper()
	root := testenv.RepoRoot(t)
	dir := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	action, err := os.ReadFile(filepath.Join(root, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "action.yml"), action, 0o644); err != nil {
		t.Fatal(err)
	}
	wf := filepath.Join(dir, ".github", "workflows")
	if err := os.MkdirAll(wf, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range workflows {
		text = strings.ReplaceAll(text, "uses: agentgate/agentgate@v1", "uses: ./")
		if err := os.WriteFile(filepath.Join(wf, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestWorkflowsLint: the shipped workflows pass actionlint as they are, and
// with the action used locally (their inputs checked against action.yml).
func TestWorkflowsLint(t *testing.T) {
	root := testenv.RepoRoot(t)
	files := workflowFiles(t, root)
	if out, err := actionlint(t, root, files...); err != nil {
		t.Fatalf("actionlint: %v\n%s", err, out)
	}
	local := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "uses: agentgate/agentgate@v1") {
			local[filepath.Base(f)] = string(b)
		}
	}
	if len(local) < 2 {
		t.Fatalf("%d workflows use the action, want the PR gate and the drift workflow", len(local))
	}
	dir := localRepo(t, local)
	if out, err := actionlint(t, dir); err != nil {
		t.Fatalf("actionlint with the local action: %v\n%s", err, out)
	}
}

// TestActionInputsChecked shows the local check is not vacuous: an input
// action.yml does not declare is reported.
func TestActionInputsChecked(t *testing.T) {
	dir := localRepo(t, map[string]string{"bad.yml": `on: push
jobs:
  j:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: agentgate/agentgate@v1
        with:
          comand: ci
`})
	out, err := actionlint(t, dir)
	if err == nil || !strings.Contains(out, `input "comand" is not defined in action "agentgate"`) {
		t.Fatalf("actionlint did not report the undefined input (err %v):\n%s", err, out)
	}
}

type actionFile struct {
	Inputs  map[string]struct{ Default string } `yaml:"inputs"`
	Outputs map[string]any                      `yaml:"outputs"`
	Runs    struct {
		Using string           `yaml:"using"`
		Steps []map[string]any `yaml:"steps"`
	} `yaml:"runs"`
}

// TestActionLint lints the composite action's steps with actionlint, as the
// steps of a reusable workflow whose inputs are the action's (actionlint
// does not lint action metadata itself): expressions, step ids and, with
// shellcheck, every script.
func TestActionLint(t *testing.T) {
	root := testenv.RepoRoot(t)
	a := readAction(t, root)
	inputs := map[string]any{}
	for name, in := range a.Inputs {
		inputs[name] = map[string]any{"type": "string", "default": in.Default}
	}
	wf := map[string]any{
		"on":   map[string]any{"workflow_call": map[string]any{"inputs": inputs}},
		"jobs": map[string]any{"action": map[string]any{"runs-on": "ubuntu-latest", "steps": a.Runs.Steps}},
	}
	text, err := yaml.Marshal(wf)
	if err != nil {
		t.Fatal(err)
	}
	dir := localRepo(t, map[string]string{"action-steps.yml": string(text)})
	if out, err := actionlint(t, dir); err != nil {
		t.Fatalf("actionlint on action.yml's steps: %v\n%s\n%s", err, out, text)
	}
}

func readAction(t *testing.T, root string) actionFile {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var a actionFile
	if err := yaml.Unmarshal(b, &a); err != nil {
		t.Fatal(err)
	}
	return a
}

// TestActionContract: the inputs the issue names, a composite action, and no
// ${{ }} expression inside any script of the action or the workflows: inputs
// and event data reach the shell only through env (the classic Actions
// injection is an expression pasted into a run: script).
func TestActionContract(t *testing.T) {
	root := testenv.RepoRoot(t)
	a := readAction(t, root)
	if a.Runs.Using != "composite" {
		t.Errorf("runs.using %q, want composite", a.Runs.Using)
	}
	var names []string
	for n := range a.Inputs {
		names = append(names, n)
	}
	slices.Sort(names)
	if want := []string{"args", "command", "sarif", "trusted-ref", "version", "working-directory"}; !slices.Equal(names, want) {
		t.Errorf("inputs %v, want %v", names, want)
	}
	if a.Inputs["command"].Default != "ci" {
		t.Errorf("command defaults to %q, want ci", a.Inputs["command"].Default)
	}
	if a.Outputs["exit-code"] == nil {
		t.Error("no exit-code output")
	}
	expr := regexp.MustCompile(`\$\{\{`)
	check := func(file string, steps []map[string]any) {
		for i, s := range steps {
			if run, ok := s["run"].(string); ok && expr.MatchString(run) {
				t.Errorf("%s: step %d (%v) has an expression in its script; pass it through env:\n%s", file, i, s["name"], run)
			}
		}
	}
	check("action.yml", a.Runs.Steps)
	last := a.Runs.Steps[len(a.Runs.Steps)-1]
	if run, _ := last["run"].(string); !strings.Contains(run, `exit "${AGENTGATE_EXIT`) {
		t.Errorf("the last step does not exit with agentgate's exit code: %v", last)
	}
	for _, f := range workflowFiles(t, root) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var wf struct {
			Jobs map[string]struct {
				Steps []map[string]any `yaml:"steps"`
			} `yaml:"jobs"`
		}
		if err := yaml.Unmarshal(b, &wf); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, j := range wf.Jobs {
			check(f, j.Steps)
		}
	}
}
