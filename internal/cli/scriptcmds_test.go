package cli

import (
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"github.com/agentgate/agentgate/internal/testing/testenv"
	"github.com/rogpeppe/go-internal/testscript"
	"go.yaml.in/yaml/v3"
)

// cmdSARIFValid is the testscript command "sarifvalid FILE|stdout": the
// file (or the last command's stdout) is valid against the SARIF 2.1.0
// schema (testenv.ValidateSARIF) and holds exactly one run.
func cmdSARIFValid(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: sarifvalid FILE|stdout")
	}
	data := []byte(ts.ReadFile(args[0]))
	if err := testenv.ValidateSARIF(data); err != nil {
		ts.Fatalf("%s is not valid SARIF 2.1.0: %v", args[0], err)
	}
	var log struct{ Runs []json.RawMessage }
	ts.Check(json.Unmarshal(data, &log))
	if len(log.Runs) != 1 {
		ts.Fatalf("%s: %d runs, want 1", args[0], len(log.Runs))
	}
}

// cmdGitLabValid is the testscript command "gitlabvalid FILE|stdout": the
// file is a GitLab Code Quality report (testenv.ValidateGitLab).
func cmdGitLabValid(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: gitlabvalid FILE|stdout")
	}
	if err := testenv.ValidateGitLab([]byte(ts.ReadFile(args[0]))); err != nil {
		ts.Fatalf("%s is not a valid GitLab Code Quality report: %v", args[0], err)
	}
}

// cmdWorkflowScript is the testscript command
// "workflowscript FILE STEP OUT": it writes the run: script of the step
// named STEP in FILE (action.yml or a workflow, relative to the repository
// root) to OUT, so scripts can run the real script with bash, and sets
// AGENTGATE_BIN to the directory holding the agentgate under test.
func cmdWorkflowScript(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: workflowscript FILE STEP OUT")
	}
	wd, err := os.Getwd()
	ts.Check(err)
	data, err := os.ReadFile(filepath.Join(wd, "..", "..", filepath.FromSlash(args[0])))
	ts.Check(err)
	var doc struct {
		Runs struct{ Steps []map[string]any }
		Jobs map[string]struct{ Steps []map[string]any }
	}
	ts.Check(yaml.Unmarshal(data, &doc))
	steps := doc.Runs.Steps
	for _, j := range doc.Jobs {
		steps = append(steps, j.Steps...)
	}
	for _, s := range steps {
		if s["name"] == args[1] {
			run, ok := s["run"].(string)
			if !ok {
				ts.Fatalf("%s: step %q has no run: script", args[0], args[1])
			}
			ts.Check(os.WriteFile(ts.MkAbs(args[2]), []byte(run), 0o755))
			for _, dir := range filepath.SplitList(ts.Getenv("PATH")) {
				if _, err := os.Stat(filepath.Join(dir, "agentgate")); err == nil {
					ts.Setenv("AGENTGATE_BIN", dir)
					return
				}
			}
			ts.Fatalf("agentgate is not on the script's PATH")
		}
	}
	ts.Fatalf("%s: no step named %q", args[0], args[1])
}

// cmdFakeRegistry is the testscript command "fakeregistry VAR [closed|500]":
// it starts a loopback registry in the test process for the rest of the
// script and sets VAR to its base URL. It serves the npm packument of
// @fake/tool (versions 1.0.0 and 1.1.0, latest 1.0.0, dist.integrity the
// sha512 SRI of the bytes "tarball of @fake/tool VERSION") at /npm/, and
// the PEP 691 JSON project page of fake-tool (fake_tool-1.0-py3-none-any.whl
// with the bytes "wheel of fake-tool 1.0", and a yanked 1.1) at /simple/.
// "closed" gives the URL of a server that is already closed (connections
// are refused); "500" a server that answers every request with HTTP 500.
func cmdFakeRegistry(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: fakeregistry VAR [closed|500]")
	}
	mode := ""
	if len(args) == 2 {
		mode = args[1]
	}
	sha256hex := func(s string) string { return fmt.Sprintf("%x", sha256.Sum256([]byte(s))) }
	mux := http.NewServeMux()
	mux.HandleFunc("/npm/@fake%2ftool", func(w http.ResponseWriter, r *http.Request) {
		versions := map[string]any{}
		for _, v := range []string{"1.0.0", "1.1.0"} {
			sum := sha512.Sum512([]byte("tarball of @fake/tool " + v))
			versions[v] = map[string]any{"name": "@fake/tool", "version": v, "dist": map[string]any{
				"integrity": "sha512-" + base64.StdEncoding.EncodeToString(sum[:]),
				"tarball":   "http://" + r.Host + "/npm/@fake/tool/-/tool-" + v + ".tgz"}}
		}
		json.NewEncoder(w).Encode(map[string]any{"name": "@fake/tool", "dist-tags": map[string]string{"latest": "1.0.0"}, "versions": versions})
	})
	mux.HandleFunc("/simple/fake-tool/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/vnd.pypi.simple.v1+json")
		json.NewEncoder(w).Encode(map[string]any{"meta": map[string]string{"api-version": "1.1"}, "name": "fake-tool", "files": []map[string]any{
			{"filename": "fake_tool-1.0-py3-none-any.whl", "url": "fake_tool-1.0-py3-none-any.whl", "hashes": map[string]string{"sha256": sha256hex("wheel of fake-tool 1.0")}},
			{"filename": "fake_tool-1.1-py3-none-any.whl", "url": "fake_tool-1.1-py3-none-any.whl", "hashes": map[string]string{"sha256": sha256hex("wheel of fake-tool 1.1")}, "yanked": "broken release"},
		}})
	})
	var h http.Handler = mux
	if mode == "500" {
		h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusInternalServerError) })
	}
	srv := httptest.NewServer(h)
	switch mode {
	case "closed":
		srv.Close()
	case "", "500":
		ts.Defer(srv.Close)
	default:
		ts.Fatalf("fakeregistry: unknown mode %q", mode)
	}
	ts.Setenv(args[0], srv.URL)
}

// cmdEverything is the testscript command "everything MODE VAR": it starts
// the real server-everything ($NPM_BIN/mcp-server-everything MODE, MODE
// streamableHttp or sse) on a free loopback port, waits until it accepts
// connections, sets $VAR to the port, and kills its process group when the
// script ends.
func cmdEverything(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: everything MODE VAR")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	ts.Check(err)
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	ln.Close()
	cmd := exec.Command(filepath.Join(ts.Getenv("NPM_BIN"), "mcp-server-everything"), args[0])
	cmd.Env = append(os.Environ(), "PORT="+port)
	testenv.NewGroup(cmd)
	ts.Check(cmd.Start())
	ts.Defer(func() {
		testenv.KillGroup(cmd.Process.Pid)
		_ = cmd.Wait()
	})
	for deadline := time.Now().Add(60 * time.Second); ; {
		c, err := net.DialTimeout("tcp", "127.0.0.1:"+port, time.Second)
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			ts.Fatalf("server-everything %s did not listen on port %s: %v", args[0], port, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	ts.Setenv(args[1], port)
}
