package config

import (
	"cmp"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/agentgate/agentgate/mcp/config/syntax"
)

// MinSecretLen is the shortest secret Redact replaces. Shorter values (such
// as "1" or "on") are too common to replace without destroying the text
// around them, and too short to be credentials.
const MinSecretLen = 4

// MinEchoedSecretLen is the shortest secret replaced inside the text a
// server sends (descriptions, schemas, definitions, instructions: see
// mcp/capture's redaction): shorter values ("true", "info") are words,
// not credentials, and replacing them would garble honest text.
const MinEchoedSecretLen = 8

// Redacted replaces a secret in redacted text (the same marker as
// lock.Redacted, which the lockfile's readable definitions hold).
const Redacted = "[redacted]"

// Redact replaces every secret value in text by "[redacted]": each secret
// of at least MinSecretLen bytes, longest first, in every form SecretForms
// lists.
func (r Resolved) Redact(text string) string {
	forms := r.SecretForms()
	if len(forms) == 0 {
		return text
	}
	args := make([]string, 0, 2*len(forms))
	for _, f := range forms {
		args = append(args, f, Redacted)
	}
	return strings.NewReplacer(args...).Replace(text)
}

// SecretForms lists, longest first, every form in which a secret of r (of
// at least MinSecretLen bytes) can reach a message: as written; JSON
// string-escaped as Go writes it, with non-ASCII characters as \uXXXX (as
// Python and others write it), and with "/" as "\/"; URL query- and
// path-escaped; and base64 (standard and URL alphabets, padded or not),
// which covers the Basic credential built from URL userinfo (Resolve lists
// "user:password" as a secret too).
func (r Resolved) SecretForms() []string {
	var forms []string
	for _, s := range r.Secrets {
		if len(s) < MinSecretLen {
			continue
		}
		j, _ := json.Marshal(s)
		js := string(j[1 : len(j)-1])
		forms = append(forms, s, js, strings.ReplaceAll(js, "/", `\/`), asciiJSON(js),
			url.QueryEscape(s), url.PathEscape(s),
			base64.StdEncoding.EncodeToString([]byte(s)), base64.RawStdEncoding.EncodeToString([]byte(s)),
			base64.URLEncoding.EncodeToString([]byte(s)), base64.RawURLEncoding.EncodeToString([]byte(s)))
	}
	return dedupe(forms)
}

// asciiJSON rewrites the non-ASCII characters of a JSON string body as
// \uXXXX escapes (surrogate pairs above U+FFFF).
func asciiJSON(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r < 0x80:
			b.WriteRune(r)
		case r > 0xFFFF:
			hi, lo := utf16.EncodeRune(r)
			fmt.Fprintf(&b, `\u%04x\u%04x`, hi, lo)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}

// RedactEdges is Redact for text that was cut before it could be redacted:
// at its start (cutStart: the tail of a stream) or at its end (cutEnd: the
// head of a long line), where a secret may be cut in two. After
// redacting, it removes at each cut edge the longest piece that could be
// part of a secret form (a proper suffix of one at the start, a proper
// prefix at the end), so no fragment of a secret is shown.
func (r Resolved) RedactEdges(text string, cutStart, cutEnd bool) string {
	text = r.Redact(text)
	if !cutStart && !cutEnd {
		return text
	}
	forms := r.SecretForms()
	for changed := true; changed; {
		changed = false
		for _, f := range forms {
			for k := min(len(f)-1, len(text)); k >= 1; k-- {
				if cutStart && strings.HasPrefix(text, f[len(f)-k:]) {
					text, changed = text[k:], true
					break
				}
				if cutEnd && strings.HasSuffix(text, f[:k]) {
					text, changed = text[:len(text)-k], true
					break
				}
			}
		}
	}
	return text
}

// Clip returns text redacted (RedactEdges, cutEnd when truncated says the
// text was already cut at its end), then cut to at most max bytes at a
// character boundary, with "..." when cut. Redacting first means a cut
// can never fall inside a secret.
func (r Resolved) Clip(text string, max int, truncated bool) string {
	text = r.RedactEdges(text, false, truncated)
	if len(text) <= max && !truncated {
		return text
	}
	if len(text) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		text = text[:cut]
	}
	return text + "..."
}

// dedupe drops empty and repeated values and sorts longest first (then
// lexically), the order Redact needs.
func dedupe(s []string) []string {
	out := slices.DeleteFunc(slices.Clone(s), func(v string) bool { return v == "" })
	slices.SortFunc(out, func(a, b string) int {
		return cmp.Or(cmp.Compare(len(b), len(a)), strings.Compare(a, b))
	})
	return slices.Compact(out)
}

// Describe renders the server for display without secrets: the transport,
// the command line or the URL without userinfo, query and fragment, the
// NAMES of env variables and headers (never their values) and where it was
// defined, e.g.
//
//	stdio: npx -y @modelcontextprotocol/server-memory [env: API_KEY] (from .mcp.json:3)
//	http (SSE fallback): https://example.com/mcp [headers: Authorization] (from .vscode/mcp.json:4)
//
// On a Resolved, call Resolved.Describe (not r.Server.Describe): resolved
// arguments may hold variable values, which it redacts.
func (s Server) Describe() string {
	var b strings.Builder
	switch {
	case s.Transport == Stdio || s.Transport == "" && s.URL == "":
		b.WriteString("stdio: " + syntax.ShellQuote(s.Command))
		for _, a := range s.Args {
			b.WriteString(" " + syntax.ShellQuote(a))
		}
	default:
		b.WriteString(string(s.Transport))
		if s.FallbackSSE {
			b.WriteString(" (SSE fallback)")
		}
		b.WriteString(": " + stripURL(s.URL))
	}
	env := slices.Sorted(maps.Keys(s.Env))
	env = append(env, s.EnvVars...)
	if s.EnvFile != "" {
		env = append(env, "envFile")
	}
	if len(env) > 0 {
		slices.Sort(env)
		fmt.Fprintf(&b, " [env: %s]", strings.Join(slices.Compact(env), ", "))
	}
	hdr := slices.Sorted(maps.Keys(s.Headers))
	hdr = append(hdr, slices.Sorted(maps.Keys(s.EnvHeaders))...)
	if s.BearerTokenEnvVar != "" {
		hdr = append(hdr, "Authorization")
	}
	if len(hdr) > 0 {
		slices.Sort(hdr)
		fmt.Fprintf(&b, " [headers: %s]", strings.Join(slices.Compact(hdr), ", "))
	}
	if s.HeadersHelper != "" {
		b.WriteString(" [http_headers_helper]")
	}
	if s.Cwd != "" {
		b.WriteString(" [cwd: " + syntax.ShellQuote(s.Cwd) + "]")
	}
	if s.File != "" {
		b.WriteString(" (from " + s.File)
		if s.Line > 0 {
			fmt.Fprintf(&b, ":%d", s.Line)
		}
		b.WriteString(")")
	}
	return b.String()
}

// Describe is Server.Describe with every secret redacted (resolved
// arguments may contain variable values).
func (r Resolved) Describe() string { return r.Redact(r.Server.Describe()) }

// stripURL removes userinfo, query and fragment from a URL or URL template.
func stripURL(u string) string {
	if i := strings.IndexAny(u, "?#"); i >= 0 {
		u = u[:i]
	}
	scheme, rest, ok := strings.Cut(u, "://")
	if !ok {
		scheme, rest = "", u
	}
	auth, tail := rest, ""
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		auth, tail = rest[:i], rest[i:]
	}
	if i := strings.LastIndexByte(auth, '@'); i >= 0 {
		auth = auth[i+1:]
	}
	if ok {
		return scheme + "://" + auth + tail
	}
	return auth + tail
}

// ShownValue returns how an env or header value template (field is
// "env.NAME" or "headers.NAME") of s may be displayed without running
// anything: the template as written when it cannot hold a secret under
// Redact's rule (its literal text, outside variable references and a
// leading auth scheme such as "Bearer ", is shorter than MinSecretLen),
// and ok false otherwise (the caller shows the name only). Variable
// references are names, not values; they are shown.
func (s Server) ShownValue(field, v string) (shown string, ok bool) {
	segs, err := syntax.ParseTemplate(syntax.ForField(s.Syntax, field), v)
	if err != nil {
		return "", false
	}
	lit := ""
	for _, sg := range segs {
		if sg.Kind == syntax.SegLit {
			lit += sg.Text
		}
	}
	for _, scheme := range []string{"Bearer ", "Basic ", "Token ", "token "} {
		if rest, cut := strings.CutPrefix(lit, scheme); cut && len(segs) > 1 {
			lit = rest
			break
		}
	}
	if len(lit) >= MinSecretLen {
		return "", false
	}
	return v, true
}

// StripURL returns a URL or URL template without userinfo, query and
// fragment, as Describe shows it.
func StripURL(u string) string { return stripURL(u) }
