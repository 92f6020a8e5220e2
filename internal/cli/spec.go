package cli

import (
	"flag"
	"io"
	"regexp"
	"slices"
	"strings"
)

// A cmdSpec is one command as help, the shell completions and the man
// pages describe it, read from the dispatch table (commands): its name,
// summary and usage text, and the flags its FlagSet registers. The three
// outputs come from this one description, so they cannot disagree.
type cmdSpec struct {
	name, summary string
	synopsis      []string   // the usage's "Usage:" lines, without "Usage: "
	body          [][]string // the usage's other paragraphs, each a list of lines
	flags         []flagSpec // sorted by name
	words         []string   // what the first positional argument may be, if fixed
}

// A flagSpec is one flag of a command.
type flagSpec struct {
	name       string   // without dashes; given as --name (or -name)
	arg        string   // the value's placeholder (flag.UnquoteUsage), "" for a boolean flag
	usage      string   // the help text, placeholder backquotes removed
	repeatable bool     // may be given more than once (its value is a []string)
	choices    []string // the values the synopsis lists (--format text|json), else none
	files      bool     // the value names a file or directory
}

// fileArgs are the value placeholders that name a file or directory.
var fileArgs = []string{"path", "file", "PATH", "DIR", "dir"}

// subcommands are the fixed first positional arguments of the commands
// that take one; help's are the command names (see specs).
var subcommands = map[string][]string{
	"auth":       authActions,
	"completion": completionShells,
}

// specs describes every command `agentgate help` lists, in its order.
func specs() []cmdSpec {
	var out []cmdSpec
	for _, c := range commands {
		if !c.hidden {
			out = append(out, specOf(c))
		}
	}
	for i := range out {
		if out[i].name == "help" {
			for _, s := range out {
				out[i].words = append(out[i].words, s.name)
			}
		}
	}
	return out
}

// choiceRE finds "--name a|b|c" in a synopsis: the values a flag takes.
var choiceRE = regexp.MustCompile(`--([a-z0-9-]+)[ =]([a-z0-9-]+(?:\|[a-z0-9-]+)+)`)

func specOf(c *command) cmdSpec {
	s := cmdSpec{name: c.name, summary: c.summary, words: subcommands[c.name]}
	paras := strings.Split(strings.TrimSpace(c.usage), "\n\n")
	for i, l := range strings.Split(paras[0], "\n") {
		l = strings.TrimSpace(l)
		if i == 0 {
			l = strings.TrimPrefix(l, "Usage: ")
		}
		s.synopsis = append(s.synopsis, l)
	}
	for _, p := range paras[1:] {
		s.body = append(s.body, strings.Split(strings.Trim(p, "\n"), "\n"))
	}
	choices := map[string][]string{}
	for _, l := range s.synopsis {
		for _, m := range choiceRE.FindAllStringSubmatch(l, -1) {
			choices[m[1]] = strings.Split(m[2], "|")
		}
	}
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	if c.flags != nil {
		c.flags(fs)
	}
	fs.VisitAll(func(f *flag.Flag) {
		arg, usage := flag.UnquoteUsage(f)
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			arg = ""
		}
		rep := false
		if g, ok := f.Value.(flag.Getter); ok {
			_, rep = g.Get().([]string)
		}
		s.flags = append(s.flags, flagSpec{
			name: f.Name, arg: arg, usage: usage, repeatable: rep,
			choices: choices[f.Name], files: slices.Contains(fileArgs, arg),
		})
	})
	return s
}

// section returns the paragraph of s.body that starts with title (e.g.
// "Examples:"), without the title, and whether there is one.
func (s cmdSpec) section(title string) ([]string, bool) {
	for _, p := range s.body {
		if strings.HasPrefix(p[0], title) {
			first := strings.TrimSpace(strings.TrimPrefix(p[0], title))
			rest := p[1:]
			if first != "" {
				rest = append([]string{first}, rest...)
			}
			return rest, true
		}
	}
	return nil, false
}
