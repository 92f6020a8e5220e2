package configedit

import (
	"bytes"
	"github.com/agentgate/agentgate/internal/testing/archive"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/internal/testing/testenv"

	"github.com/agentgate/agentgate/mcp/config"
	"github.com/agentgate/agentgate/mcp/launcher"
)

// The golden files in testdata/edit each hold one client config file and
// what the editor must make of it. The comment names the client and the
// file's path; the sections are:
//
//	in         the file as the user wrote it
//	wrapped    WrapFile's output (then UnwrapFile must give back in)
//	wrap-error a substring of the error WrapFile must return instead
//	left       lines "SERVER FIELD: TEXT": the remote servers WrapFile
//	           leaves alone (guard cannot reach them as the client does),
//	           in order, each reason holding TEXT
//	set        lines "SERVER ARG VALUE": SetArgument calls, in order
//	set-out    the file after them
//	locked     lines "SERVER VERSION [DIGEST]": the lockfile's packages
//	pin-out    PinFile's output with those (a server not listed is an
//	           error); pinning a wrapped file and unwrapping it must give
//	           the same bytes
//
// UPDATE_GOLDEN=1 (testenv.UpdateGolden) rewrites the wrapped, set-out
// and pin-out sections; read the diff before committing it.
func TestEditGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/edit/*.txtar")
	if len(files) < 10 {
		t.Fatalf("found %d golden files, want every client format", len(files))
	}
	update := testenv.UpdateGolden()
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			a, client, file, err := readEditCase(f)
			if err != nil {
				t.Fatal(err)
			}
			sec := map[string][]byte{}
			for _, af := range a.Files {
				sec[af.Name] = af.Data
			}
			in, ok := sec["in"]
			if client == "" || file == "" || !ok {
				t.Fatal("need client:, file: and an in section")
			}
			changed := false
			if want, ok := sec["wrap-error"]; ok {
				_, _, _, err := WrapFile(client, file, in, WrapOptions{})
				if err == nil || !strings.Contains(err.Error(), strings.TrimSpace(string(want))) {
					t.Fatalf("WrapFile error = %v, want one containing %q", err, want)
				}
			}
			if want, ok := sec["wrapped"]; ok {
				got, names, left, err := WrapFile(client, file, in, WrapOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if update {
					changed = changed || setSection(a, "wrapped", got)
				} else if !bytes.Equal(got, want) {
					t.Fatalf("WrapFile:\n%s\nwant:\n%s", got, want)
				}
				back, unames, err := UnwrapFile(client, file, got)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(back, in) {
					t.Fatalf("UnwrapFile(WrapFile(in)) != in:\n%q\nwant\n%q", back, in)
				}
				if !slices.Equal(names, unames) || len(names) == 0 {
					t.Fatalf("wrapped %q, unwrapped %q", names, unames)
				}
				var wantLeft []string
				if len(sec["left"]) > 0 {
					wantLeft = strings.Split(strings.TrimSpace(string(sec["left"])), "\n")
				}
				if len(left) != len(wantLeft) {
					t.Fatalf("left alone: %v, want %q", left, wantLeft)
				}
				for i, w := range wantLeft {
					who, text, _ := strings.Cut(w, ": ")
					if u := left[i]; who != u.Server+" "+u.Field || !strings.Contains(u.Reason, text) {
						t.Fatalf("left alone: %v, want %q", u, w)
					}
				}
				again, more, _, err := WrapFile(client, file, got, WrapOptions{})
				if err != nil || !bytes.Equal(again, got) || len(more) > 0 {
					t.Fatalf("wrapping a wrapped file changed it (%v, %q)", err, more)
				}
				var leftNames []string
				for _, u := range left {
					leftNames = append(leftNames, u.Server)
				}
				sameServers(t, client, file, in, got, leftNames...)
			}
			if ops, ok := sec["set"]; ok {
				cur := in
				for _, l := range strings.Split(strings.TrimSpace(string(ops)), "\n") {
					fs := strings.SplitN(l, " ", 3)
					i, _ := strconv.Atoi(fs[1])
					var err error
					if cur, err = SetArgument(client, file, cur, fs[0], i, fs[2]); err != nil {
						t.Fatal(err)
					}
				}
				if update {
					changed = setSection(a, "set-out", cur) || changed
				} else if !bytes.Equal(cur, sec["set-out"]) {
					t.Fatalf("SetArgument:\n%s\nwant:\n%s", cur, sec["set-out"])
				}
			}
			if lines, ok := sec["locked"]; ok {
				locked := map[string][]string{}
				for _, l := range strings.Split(strings.TrimSpace(string(lines)), "\n") {
					fs := strings.Fields(l)
					locked[fs[0]] = append(fs[1:], "")
				}
				lookup := func(s config.Server, spec launcher.PackageSpec) (string, string, error) {
					v, ok := locked[s.Name]
					if !ok {
						return "", "", &config.Error{Msg: "not locked"}
					}
					return v[0], v[1], nil
				}
				got, pins, err := PinFile(client, file, in, lookup)
				if err != nil {
					t.Fatal(err)
				}
				if update {
					changed = setSection(a, "pin-out", got) || changed
				} else if !bytes.Equal(got, sec["pin-out"]) {
					t.Fatalf("PinFile:\n%s\nwant:\n%s", got, sec["pin-out"])
				}
				if len(pins) == 0 {
					t.Fatal("nothing pinned")
				}
				again, more, err := PinFile(client, file, got, lookup)
				if err != nil || !bytes.Equal(again, got) || len(more) > 0 {
					t.Fatalf("pinning a pinned file changed it (%v, %+v)", err, more)
				}
				if w, _, _, err := WrapFile(client, file, in, WrapOptions{}); err == nil {
					pw, _, err := PinFile(client, file, w, lookup)
					if err != nil {
						t.Fatal(err)
					}
					back, _, err := UnwrapFile(client, file, pw)
					if err != nil || !bytes.Equal(back, got) {
						t.Fatalf("unwrap(pin(wrap(in))) != pin(in) (%v):\n%s", err, back)
					}
				}
			}
			if changed {
				os.WriteFile(f, a.Format(), 0o644)
			}
		})
	}
}

// readEditCase reads the golden file f and the client and file its
// comment names ("client: ", "file: " lines).
func readEditCase(f string) (a *archive.Archive, client, file string, err error) {
	if a, err = archive.Read(f); err != nil {
		return nil, "", "", err
	}
	for _, l := range strings.Split(string(a.Comment), "\n") {
		if v, ok := strings.CutPrefix(l, "client: "); ok {
			client = v
		}
		if v, ok := strings.CutPrefix(l, "file: "); ok {
			file = v
		}
	}
	return a, client, file, nil
}

func setSection(a *archive.Archive, name string, data []byte) bool {
	for i := range a.Files {
		if a.Files[i].Name == name {
			if bytes.Equal(a.Files[i].Data, data) {
				return false
			}
			a.Files[i].Data = data
			return true
		}
	}
	return false
}

// sameServers checks that the client's parser reads the same servers from
// a and b once it sees through the guard wrapper: what agentgate locks,
// verifies and pins does not change when a config is wrapped. The
// servers left (not wrapped) must read exactly as before.
func sameServers(t *testing.T, client, file string, a, b []byte, left ...string) {
	t.Helper()
	read := func(data []byte) ([]config.Server, []config.Skipped) {
		raw, skipped, err := config.ParseFile(client, file, data)
		if err != nil {
			t.Fatal(err)
		}
		servers, err := config.SeeThrough(file, raw)
		if err != nil {
			t.Fatal(err)
		}
		return servers, skipped
	}
	sa, ska := read(a)
	sb, skb := read(b)
	if len(sa) != len(sb) || len(ska) != len(skb) {
		t.Fatalf("servers %d/%d, skipped %d/%d", len(sa), len(sb), len(ska), len(skb))
	}
	for i := range sa {
		x, y := sa[i], sb[i]
		if slices.Contains(left, x.Name) {
			if y.Guard != nil || config.DefinitionDiff(x, y) != "" {
				t.Errorf("server %q was left alone but reads as %+v", x.Name, y)
			}
			continue
		}
		if y.Guard == nil || y.Guard.Server != x.Name {
			t.Errorf("server %q: wrapped entry has Guard %+v", x.Name, y.Guard)
		}
		if x.Command != y.Command || !slices.Equal(x.Args, y.Args) || config.DefinitionDiff(x, y) != "" || x.Transport != y.Transport || x.FallbackSSE != y.FallbackSSE {
			t.Errorf("server %q reads differently when wrapped: %q %q vs %q %q (%s)", x.Name, x.Command, x.Args, y.Command, y.Args, config.DefinitionDiff(x, y))
		}
	}
}
