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
		// The path is stdout; stderr holds "go: downloading ..." on a
		// cold module cache, which must not become part of it.
		cmd := exec.Command("go", "tool", "-n", "actionlint")
		cmd.Dir = testenv.RepoRoot(t)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		actionlintPath, actionlintErr = strings.TrimSpace(string(out)), err
		if err != nil {
			actionlintPath = stderr.String()
		}
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

// usesRE matches a uses: line: the action, its ref and an optional comment.
var usesRE = regexp.MustCompile(`(?m)^\s*(?:-\s+)?uses:\s*([^@\s#]+)@([^\s#]+)(?:\s+#\s*(\S+))?`)

// pinnedRE is a full commit SHA; versionRE the tag named in its comment.
var (
	pinnedRE  = regexp.MustCompile(`^[0-9a-f]{40}$`)
	versionRE = regexp.MustCompile(`^v\d+\.\d+\.\d+$`)
)

// TestActionsPinned: every uses: in action.yml, the workflows in docs/ and
// .github/workflows names a full commit SHA with its version (vX.Y.Z) in
// a comment, as docs/SECURITY.md recommends, and one action at one version
// has one SHA everywhere. agentgate's own action in the docs' workflows is
// the one exception (no release to pin yet; the test harness swaps it for
// the local action).
func TestActionsPinned(t *testing.T) {
	root := testenv.RepoRoot(t)
	files := append([]string{filepath.Join(root, "action.yml")}, workflowFiles(t, root)...)
	seen := map[string]string{} // action@version -> sha
	n := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, f)
		for _, m := range usesRE.FindAllStringSubmatch(string(b), -1) {
			action, ref, version := m[1], m[2], m[3]
			if action == "agentgate/agentgate" && strings.HasPrefix(rel, "docs") {
				continue
			}
			n++
			if !pinnedRE.MatchString(ref) || !versionRE.MatchString(version) {
				t.Errorf("%s: uses: %s@%s # %s: want a full commit SHA and its version in a comment (@<40 hex> # vX.Y.Z)", rel, action, ref, version)
				continue
			}
			key := action + "@" + version
			if prev, ok := seen[key]; ok && prev != ref {
				t.Errorf("%s: %s is pinned to %s here and to %s elsewhere", rel, key, ref, prev)
			}
			seen[key] = ref
		}
	}
	if n < 10 {
		t.Fatalf("found only %d uses: lines in %v", n, files)
	}
}

// TestActionsPinnedCatches shows the pattern is not vacuous.
func TestActionsPinnedCatches(t *testing.T) {
	for _, line := range []string{
		"      - uses: actions/checkout@v4",
		"      - uses: actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1",
		"      uses: actions/setup-go@main # v7.0.0",
	} {
		m := usesRE.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("%q: not recognised as uses:", line)
		}
		if pinnedRE.MatchString(m[2]) && versionRE.MatchString(m[3]) {
			t.Errorf("%q passes as pinned", line)
		}
	}
}

// TestReleaseWorkflow: the release runs on v* tags only, signs keyless
// (id-token: write), attests provenance from the checksums file, checks
// the configuration and a snapshot before publishing, and the verify job
// runs the commands docs/INSTALL.md gives users.
func TestReleaseWorkflow(t *testing.T) {
	root := testenv.RepoRoot(t)
	b, err := os.ReadFile(filepath.Join(root, ".github", "workflows", "release.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		On struct {
			Push struct {
				Tags     []string `yaml:"tags"`
				Branches []string `yaml:"branches"`
			} `yaml:"push"`
		} `yaml:"on"`
		Jobs map[string]struct {
			Permissions map[string]string `yaml:"permissions"`
			Steps       []map[string]any  `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(b, &wf); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(wf.On.Push.Tags, []string{"v*"}) || wf.On.Push.Branches != nil {
		t.Errorf("on.push: tags %v branches %v, want tags [v*] only", wf.On.Push.Tags, wf.On.Push.Branches)
	}
	rel := wf.Jobs["release"]
	for k, v := range map[string]string{"contents": "write", "id-token": "write", "attestations": "write"} {
		if rel.Permissions[k] != v {
			t.Errorf("release job: permissions.%s = %q, want %q", k, rel.Permissions[k], v)
		}
	}
	var order []string
	for _, s := range rel.Steps {
		uses, _ := s["uses"].(string)
		run, _ := s["run"].(string)
		switch {
		case strings.HasPrefix(uses, "actions/attest-build-provenance@"):
			with, _ := s["with"].(map[string]any)
			if with["subject-checksums"] == nil {
				t.Error("attest-build-provenance without subject-checksums")
			}
			order = append(order, "attest")
		case strings.Contains(run, "goreleaser check"):
			order = append(order, "check")
		case strings.Contains(run, "--snapshot"):
			order = append(order, "snapshot")
		case strings.Contains(run, "goreleaser release --clean"):
			order = append(order, "release")
		}
	}
	if want := []string{"check", "snapshot", "release", "attest"}; !slices.Equal(order, want) {
		t.Errorf("release steps in order %v, want %v", order, want)
	}
	install := readFileT(t, filepath.Join(root, "docs", "INSTALL.md"))
	var verify string
	for _, s := range wf.Jobs["verify"].Steps {
		if run, ok := s["run"].(string); ok {
			verify += run
		}
	}
	for _, cmd := range []string{"sha256sum --ignore-missing -c", "cosign verify-blob", "--certificate-identity", "--certificate-oidc-issuer https://token.actions.githubusercontent.com", "gh attestation verify", "--signer-workflow"} {
		if !strings.Contains(verify, cmd) {
			t.Errorf("release.yml's verify job does not run %q", cmd)
		}
		if !strings.Contains(install, cmd) {
			t.Errorf("docs/INSTALL.md does not tell users to run %q", cmd)
		}
	}
}

func readFileT(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
