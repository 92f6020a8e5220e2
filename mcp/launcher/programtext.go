package launcher

import (
	"fmt"
	"slices"
	"strings"
)

// ProgramText reads the programs a command line hands over as text: a
// shell's command string (sh -c, bash -c, fish -c, cmd /c, npx -c, npm
// exec -c, env -S) and an interpreter's inline program or module (python
// -c and -m, node, bun and tsx -e and -p, deno eval, ruby -e, perl -e, php
// -r, lua -e, Rscript -e, osascript -e, PowerShell's -Command and
// -EncodedCommand). Every word of the command line is looked at, so
// `uv run python -c ...` and `env node -e ...` count.
//
// A shell's command string is read when it is one simple command of plain
// and quoted words: unquoted letters, digits and _ . / : = @ + , % -,
// single-quoted text, and double-quoted text without $, ` and \ (for cmd
// /c: plain words only). Its words, with the value of each NAME=value
// word, are returned in words, and read in turn (a shell inside a shell,
// up to 4 deep). Anything else (an operator such as && or ;, a newline, a
// glob, an expansion, a redirection, a cd that would need a second
// command, an assignment to PATH) is a program agentgate would have to
// interpret to know which files it runs (and so is a word eval or trap
// among them, which run their arguments as a command): why says so. An inline program or
// module is always such a program (its text can open any file). why is ""
// when there is none.
//
// It is pure: it reads no file. --trusted-ref refuses a server whose why
// is not "", and checks words as it checks arguments.
func ProgramText(command string, args []string) (words []string, why string) {
	return programText(append([]string{command}, args...), 0)
}

// maxProgramDepth bounds shells inside shells.
const maxProgramDepth = 4

// programLang is how one interpreter takes a program as text.
type programLang struct {
	text   string   // option letters taking a program as text, clustered too (-e, -Ic)
	module string   // option letters running a module from a search path (python -m)
	long   []string // long options taking a program as text (--eval, --eval=...)
	values string   // option letters whose value is the rest of the cluster or the next argument
	sub    string   // a subcommand taking a program as text (deno eval)
}

// programLangs maps an interpreter (langName) to how it takes a program
// as text.
var programLangs = map[string]programLang{
	"python":    {text: "c", module: "m", values: "WXQ"},
	"node":      {text: "ep", long: []string{"--eval", "--print"}, values: "rC"},
	"bun":       {text: "ep", long: []string{"--eval", "--print"}, values: "rc"},
	"tsx":       {text: "ep", long: []string{"--eval", "--print"}},
	"deno":      {sub: "eval"},
	"ruby":      {text: "e", values: "IrCEx"},
	"perl":      {text: "eE", module: "mM", values: "Ilx"},
	"php":       {text: "rRBE", values: "cdz"},
	"lua":       {text: "e", values: "l"},
	"luajit":    {text: "e", values: "l"},
	"rscript":   {text: "e"},
	"osascript": {text: "e"},
}

// shellNames are the POSIX-style shells whose -c takes a command string.
var shellNames = map[string]bool{
	"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "mksh": true, "ash": true,
	"yash": true, "posh": true, "fish": true, "csh": true, "tcsh": true,
}

// langName is launcherName without a version suffix, interpreters'
// aliases mapped to one name: "python3.12" -> "python", "nodejs" -> "node".
func langName(word string) string {
	n := launcherName(word)
	if t := strings.TrimRight(n, "0123456789.-"); t != "" {
		n = t
	}
	switch n {
	case "py", "pypy":
		return "python"
	case "nodejs":
		return "node"
	}
	return n
}

func programText(argv []string, depth int) (words []string, why string) {
	for i, w := range argv {
		name, rest := langName(w), argv[i+1:]
		var text string
		var how string // "" none; "shell", "cmd", "inline", "module"
		switch {
		case shellNames[name]:
			text, how = shellCommand(rest), "shell"
			if text == "" {
				how = ""
			}
			name += " -c"
		case name == "cmd":
			for j, a := range rest {
				if strings.EqualFold(a, "/c") || strings.EqualFold(a, "/k") {
					text, how, name = strings.Join(rest[j+1:], " "), "cmd", "cmd "+a
					break
				}
			}
		case name == "eval" || name == "trap":
			if len(rest) > 0 {
				return nil, fmt.Sprintf("cannot tell which repository files %q runs: the shell runs its arguments as a command of their own", name)
			}
		case name == "powershell" || name == "pwsh":
			if flag := powershellText(name, rest); flag != "" {
				how, name = "inline", name+" "+flag
			}
		case name == "npx" || name == "npm":
			if name == "npm" && len(rest) > 0 && (rest[0] == "exec" || rest[0] == "x") {
				rest = rest[1:]
			}
			if flag, t, ok := optionValue(rest, flagSet{"-p": true, "--package": true}, "-c", "--call"); ok {
				text, how, name = t, "shell", name+" "+flag
			}
		case name == "env":
			envValues := flagSet{"-u": true, "--unset": true, "-C": true, "--chdir": true}
			if flag, _, ok := optionValue(rest, envValues, "-C", "--chdir"); ok {
				return nil, fmt.Sprintf("%q changes the working directory, and agentgate cannot tell which repository files the command after it names", "env "+flag)
			}
			if flag, t, ok := optionValue(rest, envValues, "-S", "--split-string"); ok {
				text, how, name = t, "shell", name+" "+flag
			}
		default:
			if lang, ok := programLangs[name]; ok {
				if flag, module := lang.find(rest, interpreters[name]); flag != "" {
					how, name = "inline", launcherName(w)+" "+flag
					if module {
						how = "module"
					}
				}
			}
		}
		switch how {
		case "inline":
			return nil, fmt.Sprintf("%q runs a program given as text, and agentgate cannot tell which repository files it reads", name)
		case "module":
			return nil, fmt.Sprintf("%q runs a module found on a search path, and agentgate cannot tell which repository file that is", name)
		case "shell", "cmd":
			sw, bad := shellWords(text, how == "cmd")
			if bad == "" && depth >= maxProgramDepth {
				bad = fmt.Sprintf("shells nested more than %d deep", maxProgramDepth)
			}
			if bad != "" {
				return nil, fmt.Sprintf("cannot tell which repository files %q runs: its command has %s, which a shell interprets and agentgate does not (under --trusted-ref, give the command and its arguments as the entry's own, or plain and quoted words of one command)", name, bad)
			}
			inner, why := programText(sw, depth+1)
			if why != "" {
				return nil, why
			}
			words = append(words, sw...)
			for _, v := range sw {
				if _, after, ok := strings.Cut(v, "="); ok && after != "" {
					words = append(words, after)
				}
			}
			return append(words, inner...), ""
		}
	}
	return words, ""
}

// shellCommand is the command string of a POSIX shell's arguments: the
// first operand after the options when a -c (alone or in a cluster such as
// -ec, or fish's --command) is among them; "" when there is none.
func shellCommand(args []string) string {
	c := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			if c && i+1 < len(args) {
				return args[i+1]
			}
			return ""
		case a == "--command" && i+1 < len(args):
			return args[i+1]
		case strings.HasPrefix(a, "--command="):
			return strings.TrimPrefix(a, "--command=")
		case strings.HasPrefix(a, "--"):
		case len(a) > 1 && (a[0] == '-' || a[0] == '+'):
			if strings.ContainsRune(a[1:], 'c') {
				c = true
			}
			if strings.ContainsAny(a[1:], "oO") && i+1 < len(args) {
				i++ // -o option
			}
		default:
			if c {
				return a
			}
			return "" // a script file: an argument like any other
		}
	}
	return ""
}

// optionValue finds option short or long among args before the first
// operand (skipping the value of each option in values), and returns the
// option as written and its value (attached, --long=value, or the next
// argument).
func optionValue(args []string, values flagSet, short, long string) (flag, value string, ok bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == short || a == long:
			if i+1 < len(args) {
				return a, args[i+1], true
			}
			return "", "", false
		case strings.HasPrefix(a, long+"="):
			return long, strings.TrimPrefix(a, long+"="), true
		case strings.HasPrefix(a, short) && len(a) > len(short) && !strings.HasPrefix(a, "--"):
			return short, a[len(short):], true
		case a == "--" || !strings.HasPrefix(a, "-"):
			return "", "", false
		case values[a]:
			i++
		}
	}
	return "", "", false
}

// find returns the option of args (up to the first operand; long options
// in values, the interpreter's that take the next argument, are skipped
// with it) that takes a program as text or a module, as written, and
// whether it is a module.
func (l programLang) find(args []string, values flagSet) (flag string, module bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--" || a == "-":
			return "", false
		case strings.HasPrefix(a, "--"):
			name, _, hasValue := strings.Cut(a, "=")
			if slices.Contains(l.long, name) {
				return name, false
			}
			if !hasValue && values[name] {
				i++
			}
		case len(a) > 1 && a[0] == '-':
		cluster:
			for j, r := range a[1:] {
				switch {
				case strings.ContainsRune(l.text, r):
					return a, false
				case strings.ContainsRune(l.module, r):
					return a, true
				case strings.ContainsRune(l.values, r):
					if j == len(a)-2 {
						i++ // the value is the next argument
					}
					break cluster // the rest of the cluster is the value
				}
			}
		default:
			if l.sub != "" && a == l.sub {
				return a, false
			}
			return "", false
		}
	}
	return "", false
}

// powershellText returns the option by which PowerShell's arguments give
// it a program as text (-Command, -EncodedCommand and their short forms,
// with - or /), or, for Windows PowerShell (whose first operand is a
// command), the first operand before any -File; "" when it runs a file.
func powershellText(name string, args []string) string {
	for _, a := range args {
		if len(a) < 2 || (a[0] != '-' && a[0] != '/') {
			if name == "powershell" {
				return a
			}
			return ""
		}
		o := strings.ToLower(a[1:])
		switch {
		case o == "file" || o == "f":
			return ""
		case o == "e" || o == "ec" || strings.HasPrefix(o, "en") && strings.HasPrefix("encodedcommand", o),
			strings.HasPrefix("command", o), strings.HasPrefix("commandwithargs", o) && len(o) > 7, o == "cwa":
			return a
		}
	}
	return ""
}

// shellWords splits one simple command into its words (see ProgramText),
// or says what it holds that agentgate does not interpret. plain: cmd's
// rules, no quoting at all and no %.
func shellWords(s string, plain bool) (words []string, bad string) {
	var cur strings.Builder
	in := false
	end := func() {
		if in {
			words = append(words, cur.String())
			cur.Reset()
			in = false
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			end()
		case c == '\'' && !plain, c == '"' && !plain:
			j := strings.IndexByte(s[i+1:], c)
			if j < 0 {
				return nil, fmt.Sprintf("an unclosed %c", c)
			}
			q := s[i+1 : i+1+j]
			if k := strings.IndexAny(q, "$`\\"); c == '"' && k >= 0 {
				return nil, fmt.Sprintf("%q inside double quotes", q[k])
			}
			cur.WriteString(q)
			i += 1 + j
			in = true
		case plainShellByte(c) && !(plain && c == '%'):
			cur.WriteByte(c)
			in = true
		case c == '\n':
			return nil, "a newline"
		default:
			return nil, fmt.Sprintf("%q", c)
		}
	}
	end()
	for _, w := range words {
		if name, _, ok := strings.Cut(w, "="); ok && strings.EqualFold(name, "PATH") {
			return nil, "an assignment to PATH"
		}
	}
	if len(words) == 0 {
		return nil, "no command"
	}
	return words, ""
}

// plainShellByte reports whether c stands for itself, unquoted, in every
// shell ProgramText reads.
func plainShellByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("_./:=@+,%-", c) >= 0
}
