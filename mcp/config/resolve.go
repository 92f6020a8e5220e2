package config

import (
	"bufio"
	"bytes"
	"fmt"
	"maps"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentgate/agentgate/mcp/config/syntax"
	"github.com/agentgate/agentgate/mcp/guardargs"
)

// Resolve expands s's variables with lookup (the environment) and the
// project's settings (e.g. VS Code ${input:id} values). An unset variable
// without a default is an *Error naming server, file and variable (exit
// class 3 in the CLI: could not verify), even where the client itself would
// substitute "" or keep the placeholder. A variable set to "" is set.
//
// The result has no templates left (Syntax is syntax.None): Env holds the
// configured environment only (envFile entries, then env, then Codex
// env_vars); Headers include Codex bearer and env headers; a relative
// Command that contains a slash and Cwd are made absolute against the
// root; an empty Cwd is the root. Secrets lists every env value, header
// value, URL user, password and query value, and every value read from the
// environment, an input or a file.
func (p *Project) Resolve(s Server, lookup func(string) (string, bool)) (Resolved, error) {
	x := &expander{p: p, s: s, lookup: lookup}
	if s.HeadersHelper != "" {
		return Resolved{}, x.fail("http_headers_helper", "Codex runs this command to compute the request headers when it connects; agentgate does not run commands from a config file, and connecting without those headers could list another surface than Codex sees",
			fmt.Sprintf("give the headers from the environment instead (env_http_headers, bearer_token_env_var), or exclude the server in agentgate.toml ([servers.%s] exclude = \"reason\") and review it by hand", syntax.TOMLKey(s.Name)))
	}
	r := Resolved{Server: s}
	r.Syntax, r.EnvFile, r.EnvHeaders, r.BearerTokenEnvVar = syntax.None, "", nil, ""
	var err error
	if r.Command, err = x.expand("command", s.Command); err != nil {
		return Resolved{}, err
	}
	if strings.ContainsRune(r.Command, '/') && !filepath.IsAbs(r.Command) {
		r.Command = filepath.Join(p.Root, filepath.FromSlash(r.Command))
	}
	r.Args = make([]string, len(s.Args))
	for i, a := range s.Args {
		if r.Args[i], err = x.expand(fmt.Sprintf("args[%d]", i), a); err != nil {
			return Resolved{}, err
		}
	}
	if s.Args == nil {
		r.Args = nil
	}
	if r.Env, err = x.env(); err != nil {
		return Resolved{}, err
	}
	if r.Cwd, err = x.expand("cwd", s.Cwd); err != nil {
		return Resolved{}, err
	}
	if s.Transport == Stdio || s.Transport == "" {
		if r.Cwd == "" {
			r.Cwd = p.Root
		} else if !filepath.IsAbs(r.Cwd) {
			r.Cwd = filepath.Join(p.Root, filepath.FromSlash(r.Cwd))
		}
	}
	if r.URL, err = x.url(); err != nil {
		return Resolved{}, err
	}
	if r.Headers, err = x.headers(); err != nil {
		return Resolved{}, err
	}
	if o := s.OAuth; o != nil && o.ClientSecretEnv != "" {
		v, ok := lookup(o.ClientSecretEnv)
		if !ok || v == "" {
			return Resolved{}, x.fail("oauth.client-secret-env", fmt.Sprintf("variable %s (the OAuth client secret) is not set", o.ClientSecretEnv),
				fmt.Sprintf("set %s in the environment agentgate runs in (a CI secret), or remove client-secret-env from [servers.%s.oauth] in agentgate.toml", o.ClientSecretEnv, s.Name))
		}
		r.OAuthClientSecret = v
		x.secrets = append(x.secrets, v)
	}
	r.Secrets = dedupe(x.secrets)
	r.Files = x.files
	return r, nil
}

type expander struct {
	p       *Project
	s       Server
	lookup  func(string) (string, bool)
	secrets []string
	files   []string // read so far, absolute
}

func (x *expander) fail(field, msg, hint string) *Error {
	return &Error{File: x.s.File, Line: x.s.Line, Column: x.s.Column, Server: x.s.Name, Field: field,
		Msg: msg, Hint: hint, Unverifiable: true}
}

func (x *expander) missingEnv(field, ref, name string) *Error {
	hint := fmt.Sprintf("set %s in the environment agentgate runs in (a CI secret, or export %s=... locally)", name, name)
	switch x.s.Syntax {
	case syntax.Claude, syntax.Gemini:
		hint += fmt.Sprintf(", give a default (${%s:-value})", name)
	}
	hint += fmt.Sprintf(", or exclude the server in agentgate.toml ([servers.%s] exclude = \"reason\")", x.s.Name)
	return x.fail(field, fmt.Sprintf("variable %s is not set", ref), hint)
}

// expand expands one template.
func (x *expander) expand(field, t string) (string, error) {
	segs, perr := syntax.ParseTemplate(syntax.ForField(x.s.Syntax, field), t)
	if perr != nil {
		return "", &Error{File: x.s.File, Line: x.s.Line, Column: x.s.Column, Server: x.s.Name, Field: field, Msg: perr.Msg, Hint: perr.Hint}
	}
	var b strings.Builder
	for _, sg := range segs {
		switch sg.Kind {
		case syntax.SegLit:
			b.WriteString(sg.Text)
		case syntax.SegEnv:
			v, ok := x.lookup(sg.Text)
			if !ok {
				if !sg.HasDef {
					return "", x.missingEnv(field, sg.Raw, sg.Text)
				}
				v = sg.Def
			} else {
				x.secrets = append(x.secrets, v)
			}
			b.WriteString(v)
		case syntax.SegWorkspace:
			b.WriteString(x.p.Root)
		case syntax.SegBasename:
			b.WriteString(filepath.Base(x.p.Root))
		case syntax.SegHome:
			h, err := x.home(field, sg.Raw)
			if err != nil {
				return "", err
			}
			b.WriteString(h)
		case syntax.SegPathSep:
			b.WriteRune(filepath.Separator)
		case syntax.SegInput:
			v, err := x.input(field, sg)
			if err != nil {
				return "", err
			}
			b.WriteString(v)
		case syntax.SegFile:
			v, err := x.file(field, sg)
			if err != nil {
				return "", err
			}
			b.WriteString(v)
		}
	}
	return b.String(), nil
}

func (x *expander) home(field, ref string) (string, error) {
	for _, k := range []string{"HOME", "USERPROFILE"} {
		if h, ok := x.lookup(k); ok && h != "" {
			return h, nil
		}
	}
	return "", x.fail(field, fmt.Sprintf("variable %s: HOME is not set", ref), "set HOME")
}

func (x *expander) input(field string, sg syntax.Seg) (string, error) {
	in, ok := x.p.Settings.Inputs[sg.Text]
	if !ok {
		return "", x.fail(field, fmt.Sprintf("%s needs an answer that only a person can give in VS Code", sg.Raw),
			fmt.Sprintf("add to agentgate.toml: [inputs] %s = { env = \"VARIABLE\" } and set VARIABLE", syntax.TOMLKey(sg.Text)))
	}
	if in.Env == "" {
		x.secrets = append(x.secrets, in.Value)
		return in.Value, nil
	}
	v, ok := x.lookup(in.Env)
	if !ok {
		return "", x.fail(field, fmt.Sprintf("%s: variable %s (agentgate.toml inputs.%s) is not set", sg.Raw, in.Env, sg.Text),
			fmt.Sprintf("set %s in the environment agentgate runs in", in.Env))
	}
	x.secrets = append(x.secrets, v)
	return v, nil
}

// file reads an opencode {file:path}: relative to the config file's
// directory, "~/" is the home directory; surrounding whitespace is trimmed.
func (x *expander) file(field string, sg syntax.Seg) (string, error) {
	p := sg.Text
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		h, err := x.home(field, sg.Raw)
		if err != nil {
			return "", err
		}
		p = filepath.Join(h, filepath.FromSlash(rest))
	} else if !filepath.IsAbs(p) {
		dir, err := extraPath(x.p.Root, path.Dir(x.s.File))
		if err != nil {
			return "", x.fail(field, fmt.Sprintf("%s: %v", sg.Raw, err), "")
		}
		p = filepath.Join(dir, filepath.FromSlash(p))
	}
	x.files = append(x.files, p)
	data, err := readLimited(p)
	if err != nil {
		return "", x.fail(field, fmt.Sprintf("%s: cannot read file: %s", sg.Raw, errText(err)),
			"create the file (it usually holds a secret and is not committed), or exclude the server in agentgate.toml")
	}
	v := strings.TrimSpace(string(data))
	x.secrets = append(x.secrets, v)
	return v, nil
}

func readLimited(p string) ([]byte, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if fi.Size() > maxFileSize {
		return nil, fmt.Errorf("larger than %d bytes", maxFileSize)
	}
	return os.ReadFile(p)
}

func (x *expander) env() (map[string]string, error) {
	env := map[string]string{}
	if x.s.EnvFile != "" {
		p, err := x.expand("envFile", x.s.EnvFile)
		if err != nil {
			return nil, err
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(x.p.Root, filepath.FromSlash(p))
		}
		x.files = append(x.files, p)
		data, rerr := readLimited(p)
		if rerr != nil {
			return nil, x.fail("envFile", fmt.Sprintf("cannot read %s: %s", x.s.EnvFile, errText(rerr)),
				"create the file (it usually holds secrets and is not committed), or exclude the server in agentgate.toml")
		}
		for k, v := range parseDotenv(data) {
			if x.s.Guard != nil && (guardargs.OwnVariable(k) || strings.EqualFold(k, "PATH")) {
				// The client reads the envFile for guard, not for the server.
				err := ownVariableError(x.s.File, x.s, "envFile", k)
				if strings.EqualFold(k, "PATH") {
					err.Msg = fmt.Sprintf("the envFile %s sets PATH, where the client would look agentgate up: this entry may not run the real agentgate", x.s.EnvFile)
					err.Hint = "remove PATH from the envFile, or write the server without the agentgate guard wrapper"
				}
				return nil, err
			}
			env[k] = v
		}
	}
	for _, k := range slices.Sorted(maps.Keys(x.s.Env)) {
		v, err := x.expand("env."+k, x.s.Env[k])
		if err != nil {
			return nil, err
		}
		env[k] = v
	}
	for i, k := range x.s.EnvVars {
		v, ok := x.lookup(k)
		if !ok {
			return nil, x.missingEnv(fmt.Sprintf("env_vars[%d]", i), k, k)
		}
		env[k] = v
	}
	for _, v := range env {
		x.secrets = append(x.secrets, v)
	}
	if len(env) == 0 && x.s.Env == nil {
		return nil, nil
	}
	return env, nil
}

// parseDotenv reads KEY=VALUE lines; blank lines and # comments are
// skipped, "export " is allowed, and one pair of surrounding quotes is
// removed.
func parseDotenv(data []byte) map[string]string {
	out := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		line = strings.TrimPrefix(line, "export ")
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
			v = v[1 : len(v)-1]
		}
		out[k] = v
	}
	return out
}

func (x *expander) url() (string, error) {
	if x.s.URL == "" {
		return "", nil
	}
	u, err := x.expand("url", x.s.URL)
	if err != nil {
		return "", err
	}
	pu, perr := url.Parse(u)
	if perr != nil || (pu.Scheme != "http" && pu.Scheme != "https") || pu.Host == "" {
		return "", &Error{File: x.s.File, Line: x.s.Line, Column: x.s.Column, Server: x.s.Name, Field: "url",
			Msg: "not an http:// or https:// URL after expanding variables", Hint: "check the url and the variables it uses"}
	}
	if pu.User != nil {
		// Go's HTTP client sends userinfo as Basic base64(user:password):
		// the joined form is a secret too (see SecretForms).
		user, pw := pu.User.Username(), ""
		x.secrets = append(x.secrets, user)
		if p, ok := pu.User.Password(); ok {
			pw = p
			x.secrets = append(x.secrets, pw)
		}
		x.secrets = append(x.secrets, user+":"+pw)
	}
	for _, vs := range pu.Query() {
		x.secrets = append(x.secrets, vs...)
	}
	if pu.RawQuery != "" {
		x.secrets = append(x.secrets, pu.RawQuery)
	}
	return u, nil
}

func (x *expander) headers() (map[string]string, error) {
	if x.s.Headers == nil && x.s.EnvHeaders == nil && x.s.BearerTokenEnvVar == "" {
		return nil, nil
	}
	h := map[string]string{}
	for _, k := range slices.Sorted(maps.Keys(x.s.Headers)) {
		v, err := x.expand("headers."+k, x.s.Headers[k])
		if err != nil {
			return nil, err
		}
		h[k] = v
	}
	for _, k := range slices.Sorted(maps.Keys(x.s.EnvHeaders)) {
		name := x.s.EnvHeaders[k]
		v, ok := x.lookup(name)
		if !ok {
			return nil, x.missingEnv("env_http_headers."+k, name, name)
		}
		h[k] = v
	}
	if n := x.s.BearerTokenEnvVar; n != "" {
		v, ok := x.lookup(n)
		if !ok {
			return nil, x.missingEnv("bearer_token_env_var", n, n)
		}
		x.secrets = append(x.secrets, v)
		h["Authorization"] = "Bearer " + v
	}
	for _, v := range h {
		x.secrets = append(x.secrets, v)
	}
	return h, nil
}
