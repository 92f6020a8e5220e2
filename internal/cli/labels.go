package cli

// labels.go: triage labels (package triage, docs/TRIAGE.md) on what a
// comparison found, with agentgate.toml's [servers.NAME.labels].

import (
	"fmt"
	"io"

	"github.com/agentgate/agentgate/internal/safetext"
	"github.com/agentgate/agentgate/lock"
	"github.com/agentgate/agentgate/mcp/config"
	"github.com/agentgate/agentgate/render"
	"github.com/agentgate/agentgate/triage"
)

// labelDiff labels what d reports (render.Labels over live, the display
// copy of the definitions) and applies each server's overrides.
func labelDiff(st config.Settings, d lock.Diff, old, new *lock.Lockfile, live map[string]map[string]lock.ToolDef) map[string][]triage.Finding {
	ls := render.Labels(d, old, new, live)
	for name, fs := range ls {
		ls[name] = triage.Apply(fs, st.Servers[name].Labels)
	}
	return ls
}

// failsOn reports whether some finding has a label of at least sev.
func failsOn(ls map[string][]triage.Finding, sev triage.Severity) bool {
	for _, fs := range ls {
		for _, f := range fs {
			if f.Highest() >= sev {
				return true
			}
		}
	}
	return false
}

// printFindings writes the labels of ls of at least min, one line each
// ("  ! server "fs" tool read_file: sensitive-path: description: “~/.ssh”")
// under heading, for the servers named, in that order; nothing when
// there are none. It reports whether it wrote any.
func printFindings(w io.Writer, ls map[string][]triage.Finding, servers []string, min triage.Severity, heading string) bool {
	head := false
	for _, name := range servers {
		for _, f := range ls[name] {
			for _, l := range f.Labels {
				if l.Severity < min {
					continue
				}
				if !head {
					fmt.Fprintln(w, heading)
					head = true
				}
				what := f.Kind
				if f.Name != "" {
					what += " " + safetext.VisibleLine(f.Name)
				}
				fmt.Fprintf(w, "  ! %s server %s %s: %s: %s\n", l.Severity, safetext.Quote(name), what, l.ID, l.Evidence)
			}
		}
	}
	return head
}
