package cli

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

func init() {
	register(&command{
		name:    "man",
		summary: "write agentgate's man pages (roff) into a directory",
		usage: `Usage: agentgate man DIR

Man writes the manual pages agentgate.1 (the commands and exit codes),
agentgate-COMMAND.1 for each command (its usage, description, flags, exit
codes and examples: the text of 'agentgate COMMAND -h') and git-agentgate.1,
the page 'git agentgate --help' opens, into DIR (created if missing;
existing pages are replaced). Release archives and packages ship them.

Exit codes: 0 written, 2 no DIR or it cannot be written.

Examples:
  agentgate man ~/.local/share/man/man1 && man agentgate-lock
  agentgate man /tmp/m && man -l /tmp/m/agentgate.1`,
		run: runMan,
	})
}

func runMan(e *env, _ *flag.FlagSet, args []string) error {
	if len(args) != 1 {
		return invalid(fmt.Errorf("want one directory, got %d arguments", len(args)), "run 'agentgate man -h' for usage")
	}
	dir := args[0]
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(e.dir, dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return invalid(fmt.Errorf("cannot create %s: %v", args[0], err))
	}
	for name, page := range manPages(specs(), Version()) {
		if err := os.WriteFile(filepath.Join(dir, name), page, 0o644); err != nil {
			return invalid(fmt.Errorf("cannot write %s: %v", filepath.Join(args[0], name), err))
		}
	}
	return nil
}

// manPages renders every page by file name: agentgate.1, git-agentgate.1
// and agentgate-NAME.1 per command. version goes into the .TH line; no
// date, so the pages depend only on the command table.
func manPages(ss []cmdSpec, version string) map[string][]byte {
	pages := map[string][]byte{
		"agentgate.1":     mainPage(ss, version, "agentgate", "agentgate"),
		"git-agentgate.1": mainPage(ss, version, "git-agentgate", "git agentgate"),
	}
	for _, s := range ss {
		pages["agentgate-"+s.name+".1"] = commandPage(s, version)
	}
	return pages
}

// roff escapes one line of text for a man page: backslashes, hyphens (as
// \- so flags stay ASCII when copied) and a leading . or ' (which would
// start a request).
func roff(l string) string {
	l = strings.ReplaceAll(l, `\`, `\e`)
	l = strings.ReplaceAll(l, "-", `\-`)
	if strings.HasPrefix(l, ".") || strings.HasPrefix(l, "'") {
		l = `\&` + l
	}
	return l
}

func th(b *bytes.Buffer, title, version string) {
	fmt.Fprintf(b, ".TH %s 1 \"\" \"agentgate %s\" \"agentgate manual\"\n", strings.ToUpper(roff(title)), roff(version))
	// No hyphenation, ragged right: names like agentgate.lock stay whole.
	b.WriteString(".nh\n.ad l\n")
}

func mainPage(ss []cmdSpec, version, page, invoked string) []byte {
	var b bytes.Buffer
	th(&b, page, version)
	fmt.Fprintf(&b, ".SH NAME\n%s \\- pin the MCP tool surface your repository's AI agents see\n", roff(page))
	fmt.Fprintf(&b, ".SH SYNOPSIS\n.B %s\n.I command\n[flags]\n", roff(invoked))
	b.WriteString(".SH DESCRIPTION\n")
	b.WriteString(roff("agentgate connects to every MCP server configured in the repository's client configs, lists its tools exactly as the server sent them, and writes agentgate.lock: hashes of every tool's name, description and input schema (version 2: whole definitions, instructions, prompts and the package each server runs). The commit hook, diff and ci then fail on any drift and show the reviewer the new text. A server that did not answer is never reported as in sync.") + "\n")
	if page == "git-agentgate" {
		b.WriteString(".PP\n" + roff("git-agentgate is agentgate under the name git looks for: 'git agentgate COMMAND' runs 'agentgate COMMAND' in the directory git was invoked in.") + "\n")
	}
	b.WriteString(".SH COMMANDS\n")
	for _, s := range ss {
		fmt.Fprintf(&b, ".TP\n.B %s\n%s; see\n.BR agentgate\\-%s (1).\n", roff(s.name), roff(s.summary), roff(s.name))
	}
	b.WriteString(".SH EXIT STATUS\n")
	for _, x := range exitClasses {
		fmt.Fprintf(&b, ".TP\n.B %d\n%s\n", x.code, roff(x.text))
	}
	b.WriteString(".SH SEE ALSO\n")
	for i, s := range ss {
		sep := ","
		if i == len(ss)-1 {
			sep = ""
		}
		fmt.Fprintf(&b, ".BR agentgate\\-%s (1)%s\n", roff(s.name), sep)
	}
	b.WriteString(".PP\n" + roff("README.md and docs/ in the source: https://github.com/agentgate/agentgate") + "\n")
	return b.Bytes()
}

func commandPage(s cmdSpec, version string) []byte {
	var b bytes.Buffer
	th(&b, "agentgate-"+s.name, version)
	fmt.Fprintf(&b, ".SH NAME\nagentgate\\-%s \\- %s\n", roff(s.name), roff(s.summary))
	b.WriteString(".SH SYNOPSIS\n.nf\n")
	for _, l := range s.synopsis {
		b.WriteString(roff(l) + "\n")
	}
	b.WriteString(".fi\n.SH DESCRIPTION\n")
	first := true
	for _, p := range s.body {
		if strings.HasPrefix(p[0], "Examples:") || strings.HasPrefix(p[0], "Exit codes:") {
			continue
		}
		if !first {
			b.WriteString(".PP\n")
		}
		first = false
		paragraph(&b, p)
	}
	if len(s.flags) > 0 {
		b.WriteString(".SH OPTIONS\n")
		for _, f := range s.flags {
			if f.arg != "" {
				fmt.Fprintf(&b, ".TP\n.BI \"\\-\\-%s \" \"%s\"\n", roff(f.name), roff(f.arg))
			} else {
				fmt.Fprintf(&b, ".TP\n.B \\-\\-%s\n", roff(f.name))
			}
			fmt.Fprintf(&b, "%s\n", roff(f.usage))
		}
	}
	if ex, ok := s.section("Exit codes:"); ok {
		b.WriteString(".SH EXIT STATUS\n")
		paragraph(&b, ex)
	}
	if ex, ok := s.section("Examples:"); ok {
		b.WriteString(".SH EXAMPLES\n.nf\n.RS 4\n")
		for _, l := range ex {
			b.WriteString(roff(strings.TrimSpace(l)) + "\n")
		}
		b.WriteString(".RE\n.fi\n")
	}
	b.WriteString(".SH SEE ALSO\n.BR agentgate (1)\n")
	return b.Bytes()
}

// paragraph writes one paragraph of usage text: filled prose, or, when its
// lines are indented (a list, a table, commands), as written.
func paragraph(b *bytes.Buffer, p []string) {
	pre := false
	for _, l := range p {
		if strings.HasPrefix(l, " ") {
			pre = true
		}
	}
	if pre {
		b.WriteString(".nf\n")
	}
	for _, l := range p {
		if !pre {
			l = strings.TrimSpace(l)
		}
		b.WriteString(roff(l) + "\n")
	}
	if pre {
		b.WriteString(".fi\n")
	}
}
