package remote

import (
	"strings"
	"testing"
)

func TestParseBearer(t *testing.T) {
	cases := []struct {
		in   []string
		want BearerChallenge
	}{
		{[]string{`Bearer resource_metadata="https://s.example/.well-known/oauth-protected-resource/mcp", scope="a b"`},
			BearerChallenge{true, "https://s.example/.well-known/oauth-protected-resource/mcp", "a b"}},
		{[]string{`Basic realm="x", Bearer scope=read`}, BearerChallenge{Bearer: true, Scope: "read"}},
		{[]string{`Basic realm="x"`, `bearer Resource_Metadata="https://s.example/m"`}, BearerChallenge{Bearer: true, ResourceMetadata: "https://s.example/m"}},
		{[]string{`Basic resource_metadata="https://evil.example/m"`}, BearerChallenge{}}, // not the Bearer challenge
		{[]string{`Bearer scope="a \"quoted\" b"`}, BearerChallenge{Bearer: true, Scope: `a "quoted" b`}},
		{[]string{`Bearer abc==, scope="x"`}, BearerChallenge{Bearer: true, Scope: "x"}}, // token68 padding is no param
		{[]string{`Bearer error="invalid_token" , scope = "s1"`}, BearerChallenge{Bearer: true, Scope: "s1"}},
		{[]string{`Bearer scope="first"`, `Bearer scope="second"`}, BearerChallenge{Bearer: true, Scope: "first"}},
		{[]string{``, `Bearer`, `Bearer resource_metadata`}, BearerChallenge{Bearer: true}},
		{nil, BearerChallenge{}},
	}
	for _, c := range cases {
		if got := ParseBearer(c.in); got != c.want {
			t.Errorf("ParseBearer(%q) = %+v, want %+v", c.in, got, c.want)
		}
	}
}

func FuzzParseBearer(f *testing.F) {
	f.Add(`Bearer resource_metadata="https://s.example/m", scope="a b"`)
	f.Add(`Basic realm="x", Bearer scope=read, error="\"`)
	f.Add(`Bearer ==,=,"`)
	f.Add(`Bearer realm="https://a/token",service="s",scope="repository:a:pull"`)
	f.Add(`Basic realm=x, charset="UTF-8"`)
	f.Fuzz(func(t *testing.T, s string) {
		for _, ch := range ParseChallenges([]string{s}) {
			for _, p := range ch.Params {
				if !strings.Contains(strings.ReplaceAll(s, `\`, ""), strings.ReplaceAll(p.Value, `\`, "")) {
					t.Fatalf("ParseChallenges(%q): %s=%q not in the input", s, p.Name, p.Value)
				}
			}
		}
		c := ParseBearer([]string{s})
		// What is found came from the input.
		if !strings.Contains(s, c.Scope) || !strings.Contains(strings.ReplaceAll(s, `\`, ""), strings.ReplaceAll(c.ResourceMetadata, `\`, "")) {
			t.Fatalf("ParseBearer(%q) = %+v: values not in the input", s, c)
		}
	})
}

// TestParseChallenges: an OCI registry's Bearer and Basic challenges
// (mcp/registry reads realm, service and scope from them).
func TestParseChallenges(t *testing.T) {
	chs := ParseChallenges([]string{`Bearer realm="https://auth.example/token",service="registry.example",scope="repository:a/b:pull,push"`})
	if len(chs) != 1 || chs[0].Scheme != "Bearer" || chs[0].Param("realm") != "https://auth.example/token" || chs[0].Param("service") != "registry.example" || chs[0].Param("scope") != "repository:a/b:pull,push" {
		t.Errorf("%+v", chs)
	}
	chs = ParseChallenges([]string{`Basic realm=fake, charset="UTF-8"`})
	if len(chs) != 1 || chs[0].Scheme != "Basic" || chs[0].Param("realm") != "fake" || chs[0].Param("CHARSET") != "UTF-8" {
		t.Errorf("%+v", chs)
	}
	chs = ParseChallenges([]string{`Basic realm="x", Bearer scope=read`, `scope=orphan`})
	if len(chs) != 2 || chs[1].Scheme != "Bearer" || chs[1].Param("scope") != "read" || chs[0].Param("scope") != "" {
		t.Errorf("%+v", chs)
	}
}
