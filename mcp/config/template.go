package config

import (
	"fmt"
	"strings"
)

// Interpolation syntaxes, one per client family. See docs/config.md.
const (
	SyntaxNone     VarSyntax = "none"     // no interpolation (Zed, Amazon Q, Junie, Codex, Claude Desktop, Cline)
	SyntaxClaude   VarSyntax = "claude"   // ${VAR}, ${VAR:-default}
	SyntaxCursor   VarSyntax = "cursor"   // ${env:NAME}, ${userHome}, ${workspaceFolder}, ${workspaceFolderBasename}, ${pathSeparator}, ${/}
	SyntaxVSCode   VarSyntax = "vscode"   // Cursor's set plus ${input:id}
	SyntaxGemini   VarSyntax = "gemini"   // $VAR, ${VAR}, ${VAR:-default}
	SyntaxQwen     VarSyntax = "qwen"     // $VAR, ${VAR} (no defaults: Qwen Code passes ${VAR:-x} on literally)
	SyntaxRoo      VarSyntax = "roo"      // ${env:VAR}, ${workspaceFolder}
	SyntaxKiro     VarSyntax = "kiro"     // ${VAR}
	SyntaxOpencode VarSyntax = "opencode" // {env:VAR}, {file:path}
	SyntaxContinue VarSyntax = "continue" // ${{ secrets.NAME }} (read from the environment variable NAME)
	SyntaxWindsurf VarSyntax = "windsurf" // ${env:NAME}
	// SyntaxAmazonQ is Amazon Q's per-field scheme: ${env:NAME} in env and
	// header values, shell expansion (SyntaxShell) in command, nothing in
	// args and url.
	SyntaxAmazonQ VarSyntax = "amazonq"
	// SyntaxContinueJSON is Continue's for a JSON file in
	// .continue/mcpServers: Continue rewrites ${NAME} in env values to
	// ${{ secrets.NAME }} and then renders the converted block as it renders
	// its YAML, so env values take both forms and other fields
	// SyntaxContinue.
	SyntaxContinueJSON VarSyntax = "continue-json"
	// SyntaxShell is a shell's expansion as Rust's shellexpand::full does
	// it: a leading ~ is the home directory; $NAME, ${NAME} and
	// ${NAME:-default} are environment variables.
	SyntaxShell VarSyntax = "shell"
	// SyntaxCopilot is GitHub Copilot CLI's: $VAR, ${VAR} and
	// ${VAR:-default} in env values only (SyntaxGemini there), nothing
	// elsewhere.
	SyntaxCopilot VarSyntax = "copilot"
)

// fieldSyntax returns the syntax of one field ("command", "args[0]",
// "env.NAME", "headers.NAME", "url", "cwd", "envFile") of a server whose
// client uses syn: the same everywhere for most clients; Amazon Q,
// Continue's JSON files and Copilot CLI expand variables in some fields
// only.
func fieldSyntax(syn VarSyntax, field string) VarSyntax {
	switch syn {
	case SyntaxAmazonQ:
		switch {
		case field == "command":
			return SyntaxShell
		case strings.HasPrefix(field, "env."), strings.HasPrefix(field, "headers."):
			return SyntaxAmazonQ
		}
		return SyntaxNone
	case SyntaxContinueJSON:
		if strings.HasPrefix(field, "env.") {
			return SyntaxContinueJSON
		}
		return SyntaxContinue
	case SyntaxCopilot:
		if strings.HasPrefix(field, "env.") {
			return SyntaxGemini
		}
		return SyntaxNone
	}
	return syn
}

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
	SyntaxClaude:       "${NAME} and ${NAME:-default}",
	SyntaxCursor:       "${env:NAME}, ${userHome}, ${workspaceFolder}, ${workspaceFolderBasename}, ${pathSeparator} and ${/}",
	SyntaxVSCode:       "${env:NAME}, ${input:id}, ${userHome}, ${workspaceFolder}, ${workspaceFolderBasename}, ${pathSeparator} and ${/}",
	SyntaxGemini:       "$NAME, ${NAME} and ${NAME:-default}",
	SyntaxQwen:         "$NAME and ${NAME} (no defaults)",
	SyntaxCopilot:      "$NAME, ${NAME} and ${NAME:-default} in env values",
	SyntaxRoo:          "${env:NAME} and ${workspaceFolder}",
	SyntaxKiro:         "${NAME}",
	SyntaxOpencode:     "{env:NAME} and {file:path}",
	SyntaxWindsurf:     "${env:NAME}",
	SyntaxContinue:     "${{ secrets.NAME }}",
	SyntaxAmazonQ:      "${env:NAME} in env and headers values",
	SyntaxContinueJSON: "${{ secrets.NAME }}, and ${NAME} in env values",
	SyntaxShell:        "~, $NAME, ${NAME} and ${NAME:-default} in command",
}

// syntaxSuggest formats a reference to environment variable NAME in each
// syntax, for "did you mean" hints.
var syntaxSuggest = map[VarSyntax]string{
	SyntaxClaude: "${%s}", SyntaxGemini: "${%s}", SyntaxKiro: "${%s}", SyntaxContinueJSON: "${%s}", SyntaxShell: "${%s}", SyntaxQwen: "${%s}",
	SyntaxCursor: "${env:%s}", SyntaxVSCode: "${env:%s}", SyntaxRoo: "${env:%s}", SyntaxWindsurf: "${env:%s}", SyntaxAmazonQ: "${env:%s}",
	SyntaxOpencode: "{env:%s}", SyntaxContinue: "${{ secrets.%s }}",
}

// parseTemplate splits s into literal text and variable references of the
// given syntax. Text that is not a reference of that syntax stays literal,
// as the client leaves it, except, in every syntax but SyntaxNone, a
// well-formed ${name} or ${kind:arg} that the client does not expand, and
// (Continue) any ${{ ... }} other than secrets.NAME: those are errors,
// because the client would pass the placeholder through literally or fail,
// which is never what the author meant.
func parseTemplate(syn VarSyntax, s string) ([]seg, *Error) {
	if syn == "" {
		syn = SyntaxNone // a Server built by hand
	}
	var out []seg
	if syn == SyntaxShell && (s == "~" || strings.HasPrefix(s, "~/")) {
		out = append(out, seg{kind: segHome, raw: "~"})
		s = s[1:]
	}
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
	if syn == SyntaxOpencode || syn == SyntaxContinue && !strings.HasPrefix(s, "${{") {
		if n, ok := foreignRef(s); ok {
			return 0, seg{}, unsupported(syn, s[:n])
		}
	}
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
	if syn == SyntaxContinue || syn == SyntaxContinueJSON && strings.HasPrefix(s, "${{") {
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
	if syn == SyntaxGemini || syn == SyntaxShell || syn == SyntaxQwen {
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
	case SyntaxClaude, SyntaxGemini, SyntaxShell:
		if m := claudeRE().FindStringSubmatch(inner); m != nil {
			return n, seg{kind: segEnv, text: m[1], def: m[3], hasDef: m[2] != ""}, nil
		}
		if varLikeRE().MatchString(inner) {
			return 0, seg{}, unsupported(syn, s[:n])
		}
		return 0, seg{}, nil
	case SyntaxKiro, SyntaxContinueJSON, SyntaxQwen:
		if envNameRE().MatchString(inner) {
			return n, seg{kind: segEnv, text: inner}, nil
		}
		if varLikeRE().MatchString(inner) {
			return 0, seg{}, unsupported(syn, s[:n])
		}
		return 0, seg{}, nil
	}
	// Cursor, VS Code, Roo, Windsurf, Amazon Q: ${kind:arg} and named variables.
	full := syn == SyntaxCursor || syn == SyntaxVSCode
	envOnly := syn == SyntaxWindsurf || syn == SyntaxAmazonQ
	switch {
	case strings.HasPrefix(inner, "env:") && len(inner) > 4:
		return n, seg{kind: segEnv, text: inner[4:]}, nil
	case inner == "workspaceFolder" && !envOnly:
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

// foreignRef reports whether s starts with a well-formed ${name} or
// ${kind:arg}, and its length.
func foreignRef(s string) (int, bool) {
	if !strings.HasPrefix(s, "${") || strings.HasPrefix(s, "${{") {
		return 0, false
	}
	end := strings.IndexByte(s, '}')
	if end < 0 || !(varLikeRE().MatchString(s[2:end]) || s[2:end] == "/") {
		return 0, false
	}
	return end + 1, true
}

func unsupported(syn VarSyntax, ref string) *Error {
	hint := "this client supports " + syntaxHelp[syn]
	inner := strings.TrimSuffix(strings.TrimPrefix(ref, "${"), "}")
	inner = strings.TrimPrefix(inner, "env:")
	if f := syntaxSuggest[syn]; f != "" && envNameRE().MatchString(inner) {
		hint = "did you mean " + fmt.Sprintf(f, inner) + "? " + hint
	}
	return &Error{Msg: "unsupported variable " + ref + " in " + string(syn) + " syntax (the client would not expand it)", Hint: hint}
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
