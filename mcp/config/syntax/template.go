// Package syntax is how values in client configs are written, shared by
// the reader (mcp/config), the editor (mcp/configedit) and guard's
// arguments (mcp/guardargs), which all read them alike: each client's
// variable syntax (a template split into literal text and references,
// and one neutral form to compare templates of different clients), TOML
// keys, HTTP header names, shell words, and byte offsets as line and
// column. It reads no file and imports no package of agentgate's but
// internal/lazyre.
package syntax

import (
	"fmt"
	"strings"

	"github.com/agentgate/agentgate/internal/lazyre"
)

// Vars names one client's interpolation syntax.
type Vars string

// Interpolation syntaxes, one per client family. See docs/config.md.
const (
	None     Vars = "none"     // no interpolation (Zed, Amazon Q, Junie, Codex, Claude Desktop, Cline)
	Claude   Vars = "claude"   // ${VAR}, ${VAR:-default}
	Cursor   Vars = "cursor"   // ${env:NAME}, ${userHome}, ${workspaceFolder}, ${workspaceFolderBasename}, ${pathSeparator}, ${/}
	VSCode   Vars = "vscode"   // Cursor's set plus ${input:id}
	Gemini   Vars = "gemini"   // $VAR, ${VAR}, ${VAR:-default}
	Qwen     Vars = "qwen"     // $VAR, ${VAR} (no defaults: Qwen Code passes ${VAR:-x} on literally)
	Roo      Vars = "roo"      // ${env:VAR}, ${workspaceFolder}
	Kiro     Vars = "kiro"     // ${VAR}
	Opencode Vars = "opencode" // {env:VAR}, {file:path}
	Continue Vars = "continue" // ${{ secrets.NAME }} (read from the environment variable NAME)
	Windsurf Vars = "windsurf" // ${env:NAME}
	// AmazonQ is Amazon Q's per-field scheme: ${env:NAME} in env and
	// header values, shell expansion (Shell) in command, nothing in
	// args and url.
	AmazonQ Vars = "amazonq"
	// ContinueJSON is Continue's for a JSON file in
	// .continue/mcpServers: Continue rewrites ${NAME} in env values to
	// ${{ secrets.NAME }} and then renders the converted block as it renders
	// its YAML, so env values take both forms and other fields
	// Continue.
	ContinueJSON Vars = "continue-json"
	// Shell is a shell's expansion as Rust's shellexpand::full does
	// it: a leading ~ is the home directory; $NAME, ${NAME} and
	// ${NAME:-default} are environment variables.
	Shell Vars = "shell"
	// Copilot is GitHub Copilot CLI's: $VAR, ${VAR} and
	// ${VAR:-default} in env values only (Gemini there), nothing
	// elsewhere.
	Copilot Vars = "copilot"
)

// ForField returns the syntax of one field ("command", "args[0]",
// "env.NAME", "headers.NAME", "url", "cwd", "envFile") of a server whose
// client uses syn: the same everywhere for most clients; Amazon Q,
// Continue's JSON files and Copilot CLI expand variables in some fields
// only.
func ForField(syn Vars, field string) Vars {
	switch syn {
	case AmazonQ:
		switch {
		case field == "command":
			return Shell
		case strings.HasPrefix(field, "env."), strings.HasPrefix(field, "headers."):
			return AmazonQ
		}
		return None
	case ContinueJSON:
		if strings.HasPrefix(field, "env.") {
			return ContinueJSON
		}
		return Continue
	case Copilot:
		if strings.HasPrefix(field, "env.") {
			return Gemini
		}
		return None
	}
	return syn
}

// SegKind says what a Seg is: literal text or the kind of reference.
type SegKind uint8

const (
	SegLit       SegKind = iota
	SegEnv               // environment variable name, optional default
	SegWorkspace         // repository root
	SegBasename          // base name of the repository root
	SegHome              // user's home directory
	SegPathSep           // path separator
	SegInput             // VS Code input id, answered by agentgate.toml [inputs]
	SegFile              // opencode {file:path}
)

// ExpandsArgs reports whether the client of syntax syn expands variables
// in a stdio server's args; if not, guard expands what is left in its
// --url and --header values, in its own ${VAR} syntax (Claude).
func ExpandsArgs(syn Vars) bool { return ForField(syn, "args[0]") != None }

// Seg is one piece of a template: literal text or a variable reference.
type Seg struct {
	Kind   SegKind
	Text   string // literal text, variable name, input id or file path
	Def    string // default (SegEnv with HasDef)
	HasDef bool
	Raw    string // the reference as written, for messages
}

var (
	envNameRE   = lazyre.New(`^[A-Za-z_][A-Za-z0-9_]*$`)
	claudeRE    = lazyre.New(`^([A-Za-z_][A-Za-z0-9_]*)(:-(.*))?$`)
	varLikeRE   = lazyre.New(`^[A-Za-z_][A-Za-z0-9_.]*(:.*)?$`)
	geminiBare  = lazyre.New(`^\$([A-Za-z_][A-Za-z0-9_]*)`)
	continueRE  = lazyre.New(`^\$\{\{\s*([^{}]*?)\s*\}\}`)
	continueRef = lazyre.New(`^secrets\.([A-Za-z_][A-Za-z0-9_-]*)$`)
)

// syntaxHelp lists what each syntax supports, for hints.
var syntaxHelp = map[Vars]string{
	Claude:       "${NAME} and ${NAME:-default}",
	Cursor:       "${env:NAME}, ${userHome}, ${workspaceFolder}, ${workspaceFolderBasename}, ${pathSeparator} and ${/}",
	VSCode:       "${env:NAME}, ${input:id}, ${userHome}, ${workspaceFolder}, ${workspaceFolderBasename}, ${pathSeparator} and ${/}",
	Gemini:       "$NAME, ${NAME} and ${NAME:-default}",
	Qwen:         "$NAME and ${NAME} (no defaults)",
	Copilot:      "$NAME, ${NAME} and ${NAME:-default} in env values",
	Roo:          "${env:NAME} and ${workspaceFolder}",
	Kiro:         "${NAME}",
	Opencode:     "{env:NAME} and {file:path}",
	Windsurf:     "${env:NAME}",
	Continue:     "${{ secrets.NAME }}",
	AmazonQ:      "${env:NAME} in env and headers values",
	ContinueJSON: "${{ secrets.NAME }}, and ${NAME} in env values",
	Shell:        "~, $NAME, ${NAME} and ${NAME:-default} in command",
}

// syntaxSuggest formats a reference to environment variable NAME in each
// syntax, for "did you mean" hints.
var syntaxSuggest = map[Vars]string{
	Claude: "${%s}", Gemini: "${%s}", Kiro: "${%s}", ContinueJSON: "${%s}", Shell: "${%s}", Qwen: "${%s}",
	Cursor: "${env:%s}", VSCode: "${env:%s}", Roo: "${env:%s}", Windsurf: "${env:%s}", AmazonQ: "${env:%s}",
	Opencode: "{env:%s}", Continue: "${{ secrets.%s }}",
}

// ParseTemplate splits s into literal text and variable references of the
// given syntax. Text that is not a reference of that syntax stays literal,
// as the client leaves it, except, in every syntax but None, a
// well-formed ${name} or ${kind:arg} that the client does not expand, and
// (Continue) any ${{ ... }} other than secrets.NAME: those are errors,
// because the client would pass the placeholder through literally or fail,
// which is never what the author meant.
func ParseTemplate(syn Vars, s string) ([]Seg, *Problem) {
	if syn == "" {
		syn = None // a Server built by hand
	}
	var out []Seg
	if syn == Shell && (s == "~" || strings.HasPrefix(s, "~/")) {
		out = append(out, Seg{Kind: SegHome, Raw: "~"})
		s = s[1:]
	}
	lit := func(t string) {
		if t == "" {
			return
		}
		if len(out) > 0 && out[len(out)-1].Kind == SegLit {
			out[len(out)-1].Text += t
			return
		}
		out = append(out, Seg{Kind: SegLit, Text: t})
	}
	for len(s) > 0 {
		i := strings.IndexAny(s, "${")
		if i < 0 || syn == None {
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
		sg.Raw = s[:n]
		out = append(out, sg)
		s = s[n:]
	}
	return out, nil
}

// parseRef parses a reference at the start of s (which begins with '$' or
// '{'). It returns the length consumed, 0 if s does not start a reference.
func parseRef(syn Vars, s string) (int, Seg, *Problem) {
	if syn == Opencode || syn == Continue && !strings.HasPrefix(s, "${{") {
		if n, ok := foreignRef(s); ok {
			return 0, Seg{}, unsupported(syn, s[:n])
		}
	}
	switch {
	case syn == Opencode:
		return opencodeRef(s)
	case s[0] != '$':
		return 0, Seg{}, nil
	case syn == Continue || syn == ContinueJSON && strings.HasPrefix(s, "${{"):
		return continueSecret(syn, s)
	}
	if syn == Gemini || syn == Shell || syn == Qwen {
		if m := geminiBare().FindString(s); m != "" {
			return len(m), Seg{Kind: SegEnv, Text: m[1:]}, nil
		}
	}
	if !strings.HasPrefix(s, "${") {
		return 0, Seg{}, nil
	}
	end := strings.IndexByte(s, '}')
	if end < 0 {
		return 0, Seg{}, nil
	}
	inner, n := s[2:end], end+1
	switch syn {
	case Claude, Gemini, Shell:
		if m := claudeRE().FindStringSubmatch(inner); m != nil {
			return n, Seg{Kind: SegEnv, Text: m[1], Def: m[3], HasDef: m[2] != ""}, nil
		}
		return nameOnly(syn, s[:n], inner)
	case Kiro, ContinueJSON, Qwen:
		if envNameRE().MatchString(inner) {
			return n, Seg{Kind: SegEnv, Text: inner}, nil
		}
		return nameOnly(syn, s[:n], inner)
	}
	return editorRef(syn, s[:n], inner)
}

// nameOnly is parseRef's answer for ${inner} (written ref) that the
// syntax syn does not expand: an error when inner looks like a variable,
// else literal text.
func nameOnly(syn Vars, ref, inner string) (int, Seg, *Problem) {
	if varLikeRE().MatchString(inner) {
		return 0, Seg{}, unsupported(syn, ref)
	}
	return 0, Seg{}, nil
}

// opencodeRef is parseRef for opencode: {env:NAME} and {file:path}.
func opencodeRef(s string) (int, Seg, *Problem) {
	if s[0] != '{' {
		return 0, Seg{}, nil
	}
	end := strings.IndexByte(s, '}')
	if end < 0 {
		return 0, Seg{}, nil
	}
	inner := s[1:end]
	switch {
	case strings.HasPrefix(inner, "env:") && len(inner) > 4:
		return end + 1, Seg{Kind: SegEnv, Text: inner[4:]}, nil
	case strings.HasPrefix(inner, "file:") && len(inner) > 5:
		return end + 1, Seg{Kind: SegFile, Text: inner[5:]}, nil
	}
	return 0, Seg{}, nil
}

// continueSecret is parseRef for Continue's ${{ secrets.NAME }}; any
// other ${{ ... }} is an error.
func continueSecret(syn Vars, s string) (int, Seg, *Problem) {
	if !strings.HasPrefix(s, "${{") {
		return 0, Seg{}, nil
	}
	m := continueRE().FindStringSubmatch(s)
	if m == nil {
		return 0, Seg{}, nil
	}
	if r := continueRef().FindStringSubmatch(m[1]); r != nil {
		return len(m[0]), Seg{Kind: SegEnv, Text: r[1]}, nil
	}
	return 0, Seg{}, unsupported(syn, m[0])
}

// editorRef is parseRef for Cursor, VS Code, Roo, Windsurf and Amazon Q:
// ${kind:arg} and named variables, ref being ${inner} as written.
func editorRef(syn Vars, ref, inner string) (int, Seg, *Problem) {
	n := len(ref)
	full := syn == Cursor || syn == VSCode
	envOnly := syn == Windsurf || syn == AmazonQ
	switch {
	case strings.HasPrefix(inner, "env:") && len(inner) > 4:
		return n, Seg{Kind: SegEnv, Text: inner[4:]}, nil
	case inner == "workspaceFolder" && !envOnly:
		return n, Seg{Kind: SegWorkspace}, nil
	case inner == "workspaceFolderBasename" && full:
		return n, Seg{Kind: SegBasename}, nil
	case inner == "userHome" && full:
		return n, Seg{Kind: SegHome}, nil
	case (inner == "pathSeparator" || inner == "/") && full:
		return n, Seg{Kind: SegPathSep}, nil
	case strings.HasPrefix(inner, "input:") && len(inner) > 6 && syn == VSCode:
		return n, Seg{Kind: SegInput, Text: inner[6:]}, nil
	case varLikeRE().MatchString(inner) || inner == "/":
		return 0, Seg{}, unsupported(syn, ref)
	}
	return 0, Seg{}, nil
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

// Problem is why a client would not expand a template as its author
// meant: Msg says which reference and why, Hint what to write instead.
// The reader places it in an error (file, line, server, field).
type Problem struct{ Msg, Hint string }

// IsEnvName reports whether s is an environment variable name as every
// syntax writes one: [A-Za-z_][A-Za-z0-9_]*.
func IsEnvName(s string) bool { return envNameRE().MatchString(s) }

func unsupported(syn Vars, ref string) *Problem {
	hint := "this client supports " + syntaxHelp[syn]
	inner := strings.TrimSuffix(strings.TrimPrefix(ref, "${"), "}")
	inner = strings.TrimPrefix(inner, "env:")
	if f := syntaxSuggest[syn]; f != "" && envNameRE().MatchString(inner) {
		hint = "did you mean " + fmt.Sprintf(f, inner) + "? " + hint
	}
	return &Problem{Msg: "unsupported variable " + ref + " in " + string(syn) + " syntax (the client would not expand it)", Hint: hint}
}

// Canonical renders segments in one neutral syntax, used to decide whether
// two definitions in different client syntaxes are the same: literal '$' is
// doubled, environment references become ${env:NAME} or ${env:NAME:-def}.
func Canonical(segs []Seg) string {
	var b strings.Builder
	for _, s := range segs {
		switch s.Kind {
		case SegLit:
			b.WriteString(strings.ReplaceAll(s.Text, "$", "$$"))
		case SegEnv:
			b.WriteString("${env:" + s.Text)
			if s.HasDef {
				b.WriteString(":-" + strings.ReplaceAll(s.Def, "$", "$$"))
			}
			b.WriteString("}")
		case SegWorkspace:
			b.WriteString("${workspaceFolder}")
		case SegBasename:
			b.WriteString("${workspaceFolderBasename}")
		case SegHome:
			b.WriteString("${userHome}")
		case SegPathSep:
			b.WriteString("${pathSeparator}")
		case SegInput:
			b.WriteString("${input:" + s.Text + "}")
		case SegFile:
			b.WriteString("${file:" + s.Text + "}")
		}
	}
	return b.String()
}
