// Package cli implements the agentgate command: flag parsing, the exit-code
// contract and the output of every subcommand. cmd/agentgate is a thin main.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentgate/agentgate/gitint"
	"github.com/agentgate/agentgate/internal/safetext"
)

// env is what a command may touch of the outside world; tests replace it.
type env struct {
	ctx    context.Context
	stdout io.Writer
	stderr io.Writer
	dir    string                      // working directory
	getenv func(string) string         // environment
	lookup func(string) (string, bool) // environment, with presence
	now    func() time.Time            // clock for generatedAt
	isTTY  func(w io.Writer) bool      // colour and progress decisions
	// waitAfter is how long a server may stay in one state before a
	// "waiting for" line (wire.Options.WaitAfter; 0 = its default); tests
	// shorten it.
	waitAfter time.Duration
	repos     []*gitint.Repo // opened by openGit, closed when the command returns
	// helpers wait for agentgate-mcp runs that answered and are still
	// stopping their servers (see runHelper); run waits for them all
	// before it returns, so agentgate exits only when every child is gone.
	helpers []func() error
	// rep is the --format json report of a command in jsonReportCommands
	// (nil otherwise); the command fills it, run prints it.
	rep *cmdReport
}

// waitHelpers waits for every agentgate-mcp still stopping its servers
// and warns about one that failed after answering (its answer stood).
func (e *env) waitHelpers() {
	for _, wait := range e.helpers {
		if err := wait(); err != nil {
			fmt.Fprintf(e.stderr, "agentgate: warning: %v\n", err)
		}
	}
	e.helpers = nil
}

// command is one subcommand.
type command struct {
	name    string
	summary string // one line for `agentgate help`
	usage   string // full help text: Usage, description, Examples (flags are appended)
	hidden  bool
	run     func(e *env, fs *flag.FlagSet, args []string) error
	// flags registers the command's flags on fs; run receives the parsed
	// FlagSet and its remaining arguments.
	flags func(fs *flag.FlagSet)
}

// commands is the dispatch table, in the order `agentgate help` lists them.
var commands []*command

func register(c *command) { commands = append(commands, c) }

func lookupCommand(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

// Main runs agentgate with args (without the program name) and returns the
// process exit code (see ExitOK, ExitDrift, ExitInvalid, ExitUnverified).
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	dir, err := os.Getwd()
	if err != nil {
		fmt.Fprintf(stderr, "agentgate: error: cannot read the working directory: %v\n", err)
		return ExitInvalid
	}
	e := &env{
		ctx: ctx, stdout: stdout, stderr: stderr, dir: dir,
		getenv: os.Getenv, lookup: os.LookupEnv, now: time.Now,
		isTTY: isTerminal,
	}
	return run(e, args)
}

func run(e *env, args []string) int {
	if len(args) == 0 {
		printHelp(e.stderr)
		return ExitInvalid
	}
	name := args[0]
	switch name {
	case "-h", "-help", "--help":
		printHelp(e.stdout)
		return ExitOK
	case "-v", "-version", "--version":
		name = "version"
	}
	c := lookupCommand(name)
	if c == nil {
		fmt.Fprintf(e.stderr, "agentgate: error: unknown command %s\n", safetext.Quote(args[0]))
		fmt.Fprintf(e.stderr, "agentgate: hint: run 'agentgate help' for the list of commands\n")
		return ExitInvalid
	}
	fs := flag.NewFlagSet("agentgate "+c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	if c.flags != nil {
		c.flags(fs)
	}
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printCommandHelp(e.stdout, c, fs)
			return ExitOK
		}
		fmt.Fprintf(e.stderr, "agentgate %s: error: %s\n", c.name, safetext.VisibleLine(flagError(err)))
		fmt.Fprintf(e.stderr, "agentgate: hint: run 'agentgate %s -h' for usage\n", c.name)
		return ExitInvalid
	}
	var stdout io.Writer
	if jsonReportCommands[c.name] && flagValue[string](fs, "format") == "json" {
		e.rep, stdout, e.stdout = newCmdReport(c.name), e.stdout, io.Discard
	}
	err := c.run(e, fs, fs.Args())
	for _, r := range e.repos {
		r.Close()
	}
	if e.rep != nil {
		e.stdout = stdout
		e.rep.write(e.stdout, err)
	}
	report(e.stderr, c.name, err)
	e.waitHelpers()
	return exitCode(err)
}

// report prints err (if it has a message) to w: each of its problems
// (see problemsOf) as "agentgate CMD: error:" lines, followed right away
// by its own hints; problems in a row with the same hints share one
// block of them, after the last. Every line is made safe with
// safetext.VisibleLine: messages quote paths, names and text from configs,
// servers and git.
func report(w io.Writer, cmd string, err error) {
	ps := problemsOf(err)
	for i, p := range ps {
		for _, l := range p.lines {
			fmt.Fprintf(w, "agentgate %s: error: %s\n", cmd, safetext.VisibleLine(l))
		}
		if i+1 < len(ps) && len(ps[i+1].lines) > 0 && slices.Equal(p.hints, ps[i+1].hints) {
			continue // the next problem's hints are these: printed after it
		}
		printHints(w, p.hints)
	}
}

// printHints prints each hint on its own "agentgate: hint:" line, made safe
// with safetext.VisibleLine.
func printHints(w io.Writer, hints []string) {
	for _, h := range hints {
		fmt.Fprintf(w, "agentgate: hint: %s\n", safetext.VisibleLine(h))
	}
}

func printHelp(w io.Writer) {
	fmt.Fprintf(w, `agentgate pins the MCP tool surface your repository's AI agents see.

Usage:
  agentgate <command> [flags]

Commands:
`)
	width := 0
	for _, c := range commands {
		if !c.hidden {
			width = max(width, len(c.name))
		}
	}
	for _, c := range commands {
		if !c.hidden {
			fmt.Fprintf(w, "  %-*s %s\n", width, c.name, c.summary)
		}
	}
	fmt.Fprintf(w, "\nExit codes:\n")
	for _, x := range exitClasses {
		fmt.Fprintf(w, "  %d  %s\n", x.code, x.text)
	}
	fmt.Fprintf(w, `
Run 'agentgate <command> -h' for a command's flags and examples.
Docs: README.md, docs/ROUTES.md, docs/config.md, docs/spec/lockfile.md
`)
}

func printCommandHelp(w io.Writer, c *command, fs *flag.FlagSet) {
	fmt.Fprintln(w, strings.TrimRight(c.usage, "\n"))
	has := false
	fs.VisitAll(func(*flag.Flag) { has = true })
	if has {
		fmt.Fprintln(w, "\nFlags:")
		printFlags(w, fs)
	}
}

// printFlags lists fs's flags as flag.PrintDefaults does, but in the
// --flag style of the usage lines and the docs (the flag package accepts
// both -flag and --flag):
//
//	--timeout duration
//	  	per-server duration ... (default: ...)
//
// A zero default is not printed; the usage text says what applies then.
func printFlags(w io.Writer, fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		name, usage := flag.UnquoteUsage(f)
		line := "  --" + f.Name
		if name != "" {
			line += " " + name
		}
		fmt.Fprintf(w, "%s\n    \t%s", line, strings.ReplaceAll(usage, "\n", "\n    \t"))
		if d := f.DefValue; d != "" && d != "0" && d != "false" && d != "0s" && d != "[]" {
			if g, ok := f.Value.(flag.Getter); ok {
				if _, isString := g.Get().(string); isString {
					d = strconv.Quote(d)
				}
			}
			fmt.Fprintf(w, " (default %s)", d)
		}
		fmt.Fprintln(w)
	})
}

// flagError is the flag package's parse error in the --flag style:
// "flag provided but not defined: -format" becomes "unknown flag --format",
// and "-name" after "flag" or ": " becomes "--name".
func flagError(err error) string {
	msg := err.Error()
	if rest, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		return "unknown flag --" + strings.TrimPrefix(rest, "-")
	}
	return flagNameRE.ReplaceAllString(msg, "$1--$2")
}

var flagNameRE = regexp.MustCompile(`(flag |: )-{1,2}([A-Za-z][A-Za-z0-9-]*)`)

func init() {
	register(&command{
		name:    "help",
		summary: "show this help, or a command's: agentgate help <command>",
		usage:   "Usage: agentgate help [command]",
		run: func(e *env, _ *flag.FlagSet, args []string) error {
			if len(args) == 0 {
				printHelp(e.stdout)
				return nil
			}
			c := lookupCommand(args[0])
			if c == nil {
				return invalid(fmt.Errorf("unknown command %q", args[0]), "run 'agentgate help' for the list of commands")
			}
			fs := flag.NewFlagSet("agentgate "+c.name, flag.ContinueOnError)
			if c.flags != nil {
				c.flags(fs)
			}
			printCommandHelp(e.stdout, c, fs)
			return nil
		},
	})
	register(&command{
		name:    "version",
		summary: "print agentgate's version",
		usage:   "Usage: agentgate version\n\nPrints the version that agentgate writes into generatedBy, which agentgate-mcp must share: a release (v1.2.3), the pseudo-version Go stamps from the commit for a build from a git checkout (+dirty with uncommitted changes), or \"devel\" for a build without VCS information.",
		run: func(e *env, _ *flag.FlagSet, args []string) error {
			if len(args) > 0 {
				return invalid(fmt.Errorf("version takes no arguments"))
			}
			fmt.Fprintf(e.stdout, "agentgate %s\n", Version())
			return nil
		},
	})
}
