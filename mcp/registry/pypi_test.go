package registry

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/mcp/launcher"

	"golang.org/x/mod/sumdb/dirhash"
)

type pyFile struct {
	name, body string
	yanked     any // nil, true or a reason
	noHash     bool
}

func newFakePyPI(t *testing.T, projects map[string][]pyFile, contentType string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Accept") != "application/vnd.pypi.simple.v1+json" {
			http.Error(w, "want PEP 691", http.StatusNotAcceptable)
			return
		}
		name := strings.Trim(strings.TrimPrefix(r.URL.Path, "/simple/"), "/")
		files, ok := projects[name]
		if !ok {
			http.NotFound(w, r)
			return
		}
		var out []map[string]any
		for _, f := range files {
			s := sha256.Sum256([]byte(f.body))
			m := map[string]any{"filename": f.name, "url": "../../files/" + f.name, "hashes": map[string]string{"sha256": hex.EncodeToString(s[:])}}
			if f.noHash {
				m["hashes"] = map[string]string{}
			}
			if f.yanked != nil {
				m["yanked"] = f.yanked
			}
			out = append(out, m)
		}
		w.Header().Set("Content-Type", contentType)
		json.NewEncoder(w).Encode(map[string]any{"meta": map[string]string{"api-version": "1.1"}, "name": name, "files": out})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// wantPyIntegrity is dirhash.Hash1's digest over the files themselves
// (their bytes, hashed here), which PyPIIntegrity's doc says it equals,
// in the "sha256-" form.
func wantPyIntegrity(t *testing.T, files []pyFile) string {
	t.Helper()
	byName := map[string]string{}
	var names []string
	for _, f := range files {
		byName[f.name] = f.body
		names = append(names, f.name)
	}
	h, err := dirhash.Hash1(names, func(n string) (io.ReadCloser, error) {
		return io.NopCloser(strings.NewReader(byName[n])), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return "sha256-" + strings.TrimPrefix(h, "h1:")
}

func pySpec(t *testing.T, cmd string, args ...string) launcher.PackageSpec {
	t.Helper()
	if cmd == "pipx" {
		args = append([]string{"run"}, args...)
	}
	p, err := launcher.RecognizePackage(cmd, args)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPyPIResolve(t *testing.T) {
	v1 := []pyFile{
		{name: "mcp_server_fetch-1.0.0-py3-none-any.whl", body: "wheel 1.0.0"},
		{name: "mcp-server-fetch-1.0.0.tar.gz", body: "sdist 1.0.0"}, // legacy sdist name
	}
	v11 := []pyFile{
		{name: "mcp_server_fetch-1.1-py3-none-any.whl", body: "wheel 1.1"},
		{name: "mcp_server_fetch-1.1.tar.gz", body: "sdist 1.1"},
	}
	v12yanked := []pyFile{{name: "mcp_server_fetch-1.2.0-py3-none-any.whl", body: "bad", yanked: "broken build"}}
	v2rc := []pyFile{{name: "mcp_server_fetch-2.0.0rc1-py3-none-any.whl", body: "rc"}}
	partly := []pyFile{
		{name: "mcp_server_fetch-1.1.1-py3-none-any.whl", body: "good"},
		{name: "mcp_server_fetch-1.1.1-cp312-cp312-manylinux_2_17_x86_64.whl", body: "pulled", yanked: true},
	}
	var all []pyFile
	for _, fs := range [][]pyFile{v1, v11, v12yanked, v2rc, partly} {
		all = append(all, fs...)
	}
	all = append(all, pyFile{name: "mcp_server_fetch-1.0.0-py2.7.egg", body: "egg"}, pyFile{name: "README.txt", body: "x"})
	srv := newFakePyPI(t, map[string][]pyFile{
		"mcp-server-fetch": all,
		"onlypre":          {{name: "onlypre-0.1.0b1.tar.gz", body: "b1"}, {name: "onlypre-0.1.0a1.tar.gz", body: "a1"}},
		"gone":             {{name: "gone-1.0.tar.gz", body: "g", yanked: true}},
	}, "application/vnd.pypi.simple.v1+json")
	index := srv.URL + "/simple/"
	r := npmResolver(t, map[string]string{"UV_INDEX_URL": index, "PIP_INDEX_URL": index})
	cases := []struct {
		launcher string
		args     []string
		version  string
		files    []pyFile
	}{
		{"uvx", []string{"mcp-server-fetch"}, "1.1.1", partly[:1]}, // latest non-yanked final; yanked files left out
		{"uvx", []string{"mcp-server-fetch@latest"}, "1.1.1", partly[:1]},
		{"uvx", []string{"mcp_server_fetch==1.0.0"}, "1.0.0", v1},
		{"uvx", []string{"mcp-server-fetch@1.0"}, "1.0", v1}, // PEP 440: 1.0 == 1.0.0; the spec's spelling is kept
		{"uvx", []string{"mcp-server-fetch==1.1.0"}, "1.1.0", v11},
		{"uvx", []string{"--from", "mcp-server-fetch>=1,<1.1", "mcp-server-fetch"}, "1.0.0", v1},
		{"uvx", []string{"--from", "mcp-server-fetch~=1.0", "x"}, "1.1.1", partly[:1]},
		{"uvx", []string{"--from", "mcp-server-fetch==1.1.*", "x"}, "1.1.1", partly[:1]},
		{"uvx", []string{"--from", "mcp-server-fetch>=2.0.0rc1", "x"}, "2.0.0rc1", v2rc}, // only a pre-release matches
		{"uvx", []string{"--from", "mcp-server-fetch!=1.1.1,<1.2", "x"}, "1.1", v11},
		{"uvx", []string{"onlypre"}, "0.1.0b1", []pyFile{{name: "onlypre-0.1.0b1.tar.gz", body: "b1"}}},
		{"pipx", []string{"mcp-server-fetch==1.0.0"}, "1.0.0", v1},
		{"uvx", []string{"mcp-server-fetch==V1.0.0.0"}, "V1.0.0.0", v1}, // any PEP 440 spelling, kept as written
		{"uvx", []string{"mcp-server-fetch===1.1"}, "1.1", v11},         // arbitrary equality: the files' own text
	}
	for _, c := range cases {
		spec := pySpec(t, c.launcher, c.args...)
		got, err := r.Resolve(context.Background(), spec, nil)
		want := Package{Ecosystem: "pypi", Name: spec.Name, Version: c.version, Integrity: wantPyIntegrity(t, c.files), Registry: index}
		if err != nil || got != want {
			t.Errorf("%s %v:\n got %+v %v\nwant %+v", c.launcher, c.args, got, err, want)
		}
	}
	for _, c := range []struct {
		args []string
		kind error
		msg  string
	}{
		{[]string{"mcp-server-fetch==1.2.0"}, ErrNoVersion, "version 1.2.0 is yanked (broken build); latest is 1.1.1"},
		{[]string{"mcp-server-fetch==3.0"}, ErrNoVersion, "version 3.0 is not on the index"},
		{[]string{"mcp-server-fetch===1.1.0"}, ErrNoVersion, "version 1.1.0 is not on the index"}, // === compares text: the files say 1.1
		{[]string{"mcp-server-fetch===foo-bar"}, ErrUnsupported, "===foo-bar names a version that is not PEP 440"},
		{[]string{"--from", "mcp-server-fetch>=5", "x"}, ErrNoVersion, `no release that is not yanked satisfies ">=5"`},
		{[]string{"gone"}, ErrNoVersion, "every release is yanked"},
		{[]string{"nope"}, ErrNotFound, `no project "nope"`},
	} {
		_, err := r.Resolve(context.Background(), pySpec(t, "uvx", c.args...), nil)
		if !errors.Is(err, c.kind) || !strings.Contains(err.Error(), c.msg) || !strings.Contains(err.Error(), "from "+index+" (configured by UV_INDEX_URL)") {
			t.Errorf("%v: %v", c.args, err)
		}
	}
}

func TestPyPIEdges(t *testing.T) {
	html := newFakePyPI(t, map[string][]pyFile{"p": {{name: "p-1.0.tar.gz", body: "x"}}}, "text/html")
	// A file name whose version pep440.Parse reads only by trimming white
	// space (issue #24 item 17: never recorded as the version).
	spaced := newFakePyPI(t, map[string][]pyFile{"p": {{name: "p-1.0 .tar.gz", body: "x"}}}, "application/vnd.pypi.simple.v1+json")
	nohash := newFakePyPI(t, map[string][]pyFile{"p": {{name: "p-1.0.tar.gz", body: "x", noHash: true}}}, "application/vnd.pypi.simple.v1+json")
	for _, c := range []struct {
		env  map[string]string
		kind error
		msg  string
	}{
		{map[string]string{}, ErrNoRegistry, "UV_DEFAULT_INDEX, UV_INDEX_URL, "},
		{map[string]string{"PIP_INDEX_URL": html.URL}, ErrNoRegistry, "UV_DEFAULT_INDEX, UV_INDEX_URL, "}, // uv does not read pip's variable
		{map[string]string{"UV_INDEX_URL": html.URL + "/simple"}, ErrProtocol, `answered "text/html", not the PEP 691 JSON simple API`},
		{map[string]string{"UV_DEFAULT_INDEX": nohash.URL + "/simple", "UV_INDEX_URL": "http://127.0.0.1:1/"}, ErrProtocol, "file p-1.0.tar.gz has no sha256 hash"},
		{map[string]string{"UV_INDEX_URL": "http://user:tok3n@127.0.0.1:1/simple"}, ErrUnreachable, "from http://127.0.0.1:1/simple (configured by UV_INDEX_URL)"},
		{map[string]string{"UV_INDEX_URL": spaced.URL + "/simple"}, ErrProtocol, `the index names version "1.0 ", which is not a PEP 440 version`},
	} {
		r := npmResolver(t, c.env)
		_, err := r.Resolve(context.Background(), pySpec(t, "uvx", "p"), nil)
		if !errors.Is(err, c.kind) || !strings.Contains(err.Error(), c.msg) || strings.Contains(err.Error(), "tok3n") {
			t.Errorf("%v: %v", c.env, err)
		}
	}
}

func TestPyPIIndexOption(t *testing.T) {
	srv := newFakePyPI(t, map[string][]pyFile{"tool": {{name: "tool-1.0.tar.gz", body: "t"}}}, "application/vnd.pypi.simple.v1+json")
	r := npmResolver(t, map[string]string{"UV_INDEX_URL": "http://127.0.0.1:1/", "PIP_INDEX_URL": "http://127.0.0.1:1/"})
	for _, c := range []struct {
		cmd  string
		args []string
	}{
		{"uvx", []string{"--default-index", srv.URL + "/simple", "tool"}},
		{"uvx", []string{"--index-url=" + srv.URL + "/simple", "tool==1.0"}},
		{"uv", []string{"tool", "run", "-i", srv.URL + "/simple", "tool"}},
		{"pipx", []string{"run", "--index-url", srv.URL + "/simple", "tool"}},
	} {
		spec, err := launcher.RecognizePackage(c.cmd, c.args)
		if err != nil {
			t.Fatal(err)
		}
		got, err := r.Resolve(context.Background(), spec, c.args)
		if err != nil || got.Version != "1.0" || got.Registry != srv.URL+"/simple" {
			t.Errorf("%s %v: %+v %v", c.cmd, c.args, got, err)
		}
	}
}

// The vector was computed with coreutils, not with this package:
//
//	printf 'wheel 1.0.0' > mcp_server_fetch-1.0.0-py3-none-any.whl
//	printf 'sdist 1.0.0' > mcp-server-fetch-1.0.0.tar.gz
//	LC_ALL=C sha256sum * | sha256sum | cut -d' ' -f1 | xxd -r -p | base64
func TestPyPIIntegrityVector(t *testing.T) {
	files := map[string]string{}
	for n, body := range map[string]string{"mcp_server_fetch-1.0.0-py3-none-any.whl": "wheel 1.0.0", "mcp-server-fetch-1.0.0.tar.gz": "sdist 1.0.0"} {
		s := sha256.Sum256([]byte(body))
		files[n] = hex.EncodeToString(s[:])
	}
	got, err := PyPIIntegrity(files)
	if want := "sha256-4HClE2zqDbLOlypbdKJQNQJcIL9wA/3MUhJoxIquOuI="; err != nil || got != want {
		t.Errorf("%s %v, want %s", got, err, want)
	}
}
