package config

import (
	"strings"
)

// Interpolation syntaxes, one per client family. See docs/config.md.
const (
	SyntaxNone     VarSyntax = "none"     // no interpolation (Zed, Amazon Q, Junie, Codex, Claude Desktop, Cline)
	SyntaxClaude   VarSyntax = "claude"   // ${VAR}, ${VAR:-default}
	SyntaxCursor   VarSyntax = "cursor"   // ${env:NAME}, ${userHome}, ${workspaceFolder}, ${workspaceFolderBasename}, ${pathSeparator}, ${/}
	SyntaxVSCode   VarSyntax = "vscode"   // Cursor's set plus ${input:id}
	SyntaxGemini   VarSyntax = "gemini"   // $VAR, ${VAR}, ${VAR:-default}
	SyntaxRoo      VarSyntax = "roo"      // ${env:VAR}, ${workspaceFolder}
	SyntaxKiro     VarSyntax = "kiro"     // ${VAR}
	SyntaxOpencode VarSyntax = "opencode" // {env:VAR}, {file:path}
	SyntaxContinue VarSyntax = "continue" // ${{ secrets.NAME }} (read from the environment variable NAME)
	SyntaxWindsurf VarSyntax = "windsurf" // ${env:NAME}
)

type segKind uint8

const (
	segLit       segKind = iota
	segEnv               // environment variable name, optional default
	segWorkspace         // repository root
	segBasename          // base name of the repository root
	segHome              // user's home directory
	segPathSep           // path separator
	segInput             // VS Code input id, answered by agentgate.toml [inputs]
	segFile              // opencode {file:path}
)

// seg is one piece of a template: literal text or a variable reference.
type seg struct {
	kind   segKind
	text   string // literal text, variable name, input id or file path
	def    string // default (segEnv with hasDef)
	hasDef bool
	raw    string // the reference as written, for messages
}

var (
	envNameRE   = lazyRegexp(`^[A-Za-z_][A-Za-z0-9_]*$`)
	claudeRE    = lazyRegexp(`^([A-Za-z_][A-Za-z0-9_]*)(:-(.*))?$`)
	varLikeRE   = lazyRegexp(`^[A-Za-z_][A-Za-z0-9_.]*(:.*)?$`)
	geminiBare  = lazyRegexp(`^\$([A-Za-z_][A-Za-z0-9_]*)`)
	continueRE  = lazyRegexp(`^\$\{\{\s*([^{}]*?)\s*\}\}`)
	continueRef = lazyRegexp(`^secrets\.([A-Za-z_][A-Za-z0-9_-]*)$`)
)

// syntaxHelp lists what each syntax supports, for hints.
var syntaxHelp = map[VarSyntax]string{
	SyntaxCursor:   "${env:NAME}, ${userHome}, ${workspaceFolder}, ${workspaceFolderBasename}, ${pathSeparator} and ${/}",
	SyntaxVSCode:   "${env:NAME}, ${input:id}, ${userHome}, ${workspaceFolder}, ${workspaceFolderBasename}, ${pathSeparator} and ${/}",
	SyntaxRoo:      "${env:NAME} and ${workspaceFolder}",
	SyntaxWindsurf: "${env:NAME}",
	SyntaxContinue: "${{ secrets.NAME }}",
}

// parseTemplate splits s into literal text and variable references of the
// given syntax. Text that is not a reference of that syntax stays literal,
// as the client leaves it, except a well-formed ${name} or ${kind:arg} that
// the client does not support (Cursor, VS Code, Roo, Windsurf) and any
// ${{ ... }} other than secrets.NAME (Continue): those are errors, because
// the client would pass the placeholder through literally, which is never
// what the author meant.
func parseTemplate(syn VarSyntax, s string) ([]seg, *Error) {
	if syn == "" {
		syn = SyntaxNone // a Server built by hand
	}
	var out []seg
	lit := func(t string) {
		if t == "" {
			return
		}
		if len(out) > 0 && out[len(out)-1].kind == segLit {
			out[len(out)-1].text += t
			return
		}
		out = append(out, seg{kind: segLit, text: t})
	}
	for len(s) > 0 {
		i := strings.IndexAny(s, "${")
		if i < 0 || syn == SyntaxNone {
			lit(s)
			break
		}
		lit(s[:i])
		s = s[i:]
		n, sg, err := parseRef(syn, s)
		if err != nil {
			return nil, err
		}
		if n == 0 {
			lit(s[:1])
			s = s[1:]
			continue
		}
		sg.raw = s[:n]
		out = append(out, sg)
		s = s[n:]
	}
	return out, nil
}

// parseRef parses a reference at the start of s (which begins with '$' or
// '{'). It returns the length consumed, 0 if s does not start a reference.
func parseRef(syn VarSyntax, s string) (int, seg, *Error) {
	if syn == SyntaxOpencode {
		if s[0] != '{' {
			return 0, seg{}, nil
		}
		end := strings.IndexByte(s, '}')
		if end < 0 {
			return 0, seg{}, nil
		}
		inner := s[1:end]
		switch {
		case strings.HasPrefix(inner, "env:") && len(inner) > 4:
			return end + 1, seg{kind: segEnv, text: inner[4:]}, nil
		case strings.HasPrefix(inner, "file:") && len(inner) > 5:
			return end + 1, seg{kind: segFile, text: inner[5:]}, nil
		}
		return 0, seg{}, nil
	}
	if s[0] != '$' {
		return 0, seg{}, nil
	}
	if syn == SyntaxContinue {
		if !strings.HasPrefix(s, "${{") {
			return 0, seg{}, nil
		}
		m := continueRE().FindStringSubmatch(s)
		if m == nil {
			return 0, seg{}, nil
		}
		if r := continueRef().FindStringSubmatch(m[1]); r != nil {
			return len(m[0]), seg{kind: segEnv, text: r[1]}, nil
		}
		return 0, seg{}, unsupported(syn, m[0])
	}
	if syn == SyntaxGemini {
		if m := geminiBare().FindString(s); m != "" {
			return len(m), seg{kind: segEnv, text: m[1:]}, nil
		}
	}
	if !strings.HasPrefix(s, "${") {
		return 0, seg{}, nil
	}
	end := strings.IndexByte(s, '}')
	if end < 0 {
		return 0, seg{}, nil
	}
	inner, n := s[2:end], end+1
	switch syn {
	case SyntaxClaude, SyntaxGemini:
		if m := claudeRE().FindStringSubmatch(inner); m != nil {
			return n, seg{kind: segEnv, text: m[1], def: m[3], hasDef: m[2] != ""}, nil
		}
		return 0, seg{}, nil
	case SyntaxKiro:
		if envNameRE().MatchString(inner) {
			return n, seg{kind: segEnv, text: inner}, nil
		}
		return 0, seg{}, nil
	}
	// Cursor, VS Code, Roo, Windsurf: ${kind:arg} and named variables.
	full := syn == SyntaxCursor || syn == SyntaxVSCode
	switch {
	case strings.HasPrefix(inner, "env:") && len(inner) > 4:
		return n, seg{kind: segEnv, text: inner[4:]}, nil
	case inner == "workspaceFolder" && syn != SyntaxWindsurf:
		return n, seg{kind: segWorkspace}, nil
	case inner == "workspaceFolderBasename" && full:
		return n, seg{kind: segBasename}, nil
	case inner == "userHome" && full:
		return n, seg{kind: segHome}, nil
	case (inner == "pathSeparator" || inner == "/") && full:
		return n, seg{kind: segPathSep}, nil
	case strings.HasPrefix(inner, "input:") && len(inner) > 6 && syn == SyntaxVSCode:
		return n, seg{kind: segInput, text: inner[6:]}, nil
	case varLikeRE().MatchString(inner) || inner == "/":
		return 0, seg{}, unsupported(syn, s[:n])
	}
	return 0, seg{}, nil
}

func unsupported(syn VarSyntax, ref string) *Error {
	hint := "this client supports " + syntaxHelp[syn]
	if envNameRE().MatchString(strings.TrimSuffix(strings.TrimPrefix(ref, "${"), "}")) && syn != SyntaxContinue {
		hint = "did you mean ${env:" + ref[2:] + "? " + hint
	}
	return &Error{Msg: "unsupported variable " + ref + " in " + string(syn) + " syntax (the client would pass it through literally)", Hint: hint}
}

// canonical renders segments in one neutral syntax, used to decide whether
// two definitions in different client syntaxes are the same: literal '$' is
// doubled, environment references become ${env:NAME} or ${env:NAME:-def}.
func canonical(segs []seg) string {
	var b strings.Builder
	for _, s := range segs {
		switch s.kind {
		case segLit:
			b.WriteString(strings.ReplaceAll(s.text, "$", "$$"))
		case segEnv:
			b.WriteString("${env:" + s.text)
			if s.hasDef {
				b.WriteString(":-" + strings.ReplaceAll(s.def, "$", "$$"))
			}
			b.WriteString("}")
		case segWorkspace:
			b.WriteString("${workspaceFolder}")
		case segBasename:
			b.WriteString("${workspaceFolderBasename}")
		case segHome:
			b.WriteString("${userHome}")
		case segPathSep:
			b.WriteString("${pathSeparator}")
		case segInput:
			b.WriteString("${input:" + s.text + "}")
		case segFile:
			b.WriteString("${file:" + s.text + "}")
		}
	}
	return b.String()
}
