package cli

// cmd_demo.go: `agentgate demo`, a rug pull caught in a throwaway
// repository, and `agentgate demo-server`, the tiny MCP server it uses.

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentgate/agentgate/internal/demo"
	"github.com/agentgate/agentgate/internal/safetext"
	"github.com/agentgate/agentgate/mcp/wire"
)

func init() {
	register(&command{
		name:    "demo",
		summary: "watch agentgate catch a rug pull, offline, in a throwaway repository",
		usage: `Usage: agentgate demo [--keep DIR]

A two-second tour for a newcomer; needs no network, npm or git setup. It
builds a throwaway git repository whose .mcp.json starts a tiny "notes" MCP
server built into agentgate, pins it with 'agentgate lock', commits, then
makes the server reword one tool description into a hidden instruction and
flip another tool's destructiveHint annotation (the "rug pull"), and shows
'agentgate diff' catching both with exit code 1: the lockfile is version 2,
which pins whole tool definitions (version 1 would miss the annotation).

The repository is deleted afterwards, unless --keep names a directory (new,
or empty) to build it in; there, 'agentgate diff' shows the drift again, and
deleting .rugpull undoes the rug pull.

Exit codes: 0 when every step went as described (the demo shows diff's own
exit code 1); 2 for a bad --keep directory; 3 when a step did not go as
described, or when agentgate-mcp (installed next to agentgate by
'go install github.com/agentgate/agentgate/cmd/...') is missing.

Examples:
  agentgate demo
  agentgate demo --keep /tmp/agentgate-demo`,
		flags: func(fs *flag.FlagSet) {
			fs.String("keep", "", "build the repository in `DIR` (new or empty) and keep it")
		},
		run: runDemo,
	})
	register(&command{
		name:    "demo-server",
		hidden:  true,
		summary: "the demo's MCP server (stdio)",
		usage: `Usage: agentgate demo-server [--rugpull-file PATH]

Serves the demo's "notes" MCP server (3 tools) on stdin and stdout. While
PATH exists, the description of search_notes is replaced by a hidden
instruction. Used by 'agentgate demo' and by agentgate's own tests.`,
		flags: func(fs *flag.FlagSet) {
			fs.String("rugpull-file", "", "serve the rug-pulled description while `PATH` exists")
		},
		run: runDemoServer,
	})
}

func runDemoServer(e *env, flags *flag.FlagSet, args []string) error {
	if len(args) > 0 {
		return invalid(fmt.Errorf("demo-server takes no arguments, got %q", args[0]))
	}
	err := demo.ServeNotes(e.ctx, os.Stdin, e.stdout, flags.Lookup("rugpull-file").Value.String())
	if err != nil && !errors.Is(err, e.ctx.Err()) {
		return unverified(err)
	}
	return nil
}

func runDemo(e *env, flags *flag.FlagSet, args []string) error {
	if len(args) > 0 {
		return invalid(fmt.Errorf("demo takes no arguments, got %q", args[0]), "run 'agentgate demo', or 'agentgate demo --keep DIR'")
	}
	exe, err := selfExecutable()
	if err != nil {
		return unverified(fmt.Errorf("cannot find this agentgate binary to start the demo server: %v", err))
	}
	if _, err := wire.FindHelper(e.getenv); err != nil {
		return unverified(fmt.Errorf("demo: %v; agentgate needs it to talk to the demo's server", err), wire.InstallHint(Version()),
			"from a checkout: go build -o bin/ ./cmd/... && bin/agentgate demo ('go run ./cmd/agentgate' builds agentgate alone)")
	}
	dir, cleanup, err := demoDir(flags.Lookup("keep").Value.String())
	if err != nil {
		return err
	}
	defer cleanup()
	w := e.stdout
	// The commands the demo runs print indented under their "$ agentgate"
	// line, coloured when agentgate's own output would be.
	sub := *e
	sub.dir = dir
	sub.stdout = &indentWriter{w: e.stdout, prefix: "   "}
	sub.stderr = &indentWriter{w: e.stderr, prefix: "   "}
	sub.isTTY = func(x io.Writer) bool {
		if iw, ok := x.(*indentWriter); ok {
			x = iw.w
		}
		return e.isTTY(x)
	}
	fmt.Fprintf(w, "agentgate demo: a rug pull, caught. Everything runs on this machine.\n\n")

	fmt.Fprintf(w, "1. A new git repository, %s, with one MCP client config:\n", safetext.VisibleLine(dir))
	fmt.Fprintf(w, "   .mcp.json starts %q, a small MCP server built into agentgate, with 3 tools.\n\n", demo.ServerName)
	if err := demo.WriteRepo(dir, exe); err != nil {
		return unverified(fmt.Errorf("demo: cannot create the repository in %s: %v", dir, err))
	}

	fmt.Fprintf(w, "2. Pin the tools: agentgate connects to the server, lists its tools and\n")
	fmt.Fprintf(w, "   writes lockfile version 2: each whole tool definition (description, input\n")
	fmt.Fprintf(w, "   schema, annotations, title, ...) and its SHA-256.\n\n")
	if err := demoStep(&sub, ExitOK, "lock"); err != nil {
		return err
	}

	fmt.Fprintf(w, "\n3. Commit .mcp.json and agentgate.lock, as a team would. Live and pinned agree:\n\n")
	if err := demoCommit(dir, e); err != nil {
		return unverified(fmt.Errorf("demo: cannot commit in %s: %v", dir, err))
	}
	if err := demoStep(&sub, ExitOK, "diff"); err != nil {
		return err
	}

	fmt.Fprintf(w, "\n4. The server's next release rewords the description of %s: it now\n", demo.RugpullTool)
	fmt.Fprintf(w, "   tells the agent to send your SSH key along. It also marks delete_note as\n")
	fmt.Fprintf(w, "   harmless (annotations.destructiveHint: true -> false), so clients may run it\n")
	fmt.Fprintf(w, "   without asking. No file in the repository changes.\n\n")
	rugpull := func() error {
		if err := os.WriteFile(filepath.Join(dir, demo.RugpullFile), []byte("rug pull: see agentgate demo -h\n"), 0o644); err != nil {
			return unverified(fmt.Errorf("demo: cannot start the rug pull: %v", err))
		}
		return nil
	}
	if err := rugpull(); err != nil {
		return err
	}

	fmt.Fprintf(w, "5. agentgate diff compares the live tools with agentgate.lock:\n\n")
	if err := demoStep(&sub, ExitDrift, "diff"); err != nil {
		return err
	}

	fmt.Fprintf(w, "\nCaught: diff exited 1 (drift), showed the new text and named\n")
	fmt.Fprintf(w, "annotations.destructiveHint (lockfile version 1, 'agentgate lock --lockfile-version 1',\n")
	fmt.Fprintf(w, "pins names, descriptions and input schemas only, and would miss the flip). In CI,\n")
	fmt.Fprintf(w, "'agentgate ci' fails the same way; the pre-commit hook ('agentgate install')\n")
	fmt.Fprintf(w, "blocks commits that change a server until its new lockfile is reviewed and staged.\n")
	if flags.Lookup("keep").Value.String() != "" {
		fmt.Fprintf(w, "\nThe repository is kept in %s: run 'agentgate diff' there; delete %s to undo the rug pull.\n", safetext.VisibleLine(dir), demo.RugpullFile)
	} else {
		fmt.Fprintf(w, "\nThe throwaway repository has been deleted. Next: docs/ROUTES.md.\n")
	}
	return nil
}

// demoStep runs one agentgate command in the demo repository, showing it as
// typed, and fails unless it exits with want.
func demoStep(e *env, want int, args ...string) error {
	fmt.Fprintf(e.stdout, "$ agentgate %s\n", strings.Join(args, " "))
	got := run(e, args)
	fmt.Fprintf(e.stdout, "(exit code %d)\n", got)
	if got != want {
		return unverified(fmt.Errorf("demo: 'agentgate %s' exited %d, but the demo expects %d", strings.Join(args, " "), got, want),
			"run 'agentgate demo --keep DIR' and look at DIR; please report this as a bug")
	}
	return nil
}

// demoDir returns the directory to build the demo in and how to clean up:
// keep (created if needed, and must be empty) or a new temporary directory
// that cleanup removes.
func demoDir(keep string) (dir string, cleanup func(), err error) {
	if keep == "" {
		dir, err := os.MkdirTemp("", "agentgate-demo-")
		if err != nil {
			return "", nil, unverified(fmt.Errorf("demo: cannot create a temporary directory: %v", err), "check TMPDIR")
		}
		return dir, func() { os.RemoveAll(dir) }, nil
	}
	dir, err = filepath.Abs(keep)
	if err != nil {
		return "", nil, invalid(fmt.Errorf("demo --keep %s: %v", keep, err))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", nil, invalid(fmt.Errorf("demo --keep %s: %v", keep, err), "name a new or empty directory")
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", nil, invalid(fmt.Errorf("demo --keep %s: %v", keep, err), "name a new or empty directory")
	}
	if len(entries) > 0 {
		return "", nil, invalid(fmt.Errorf("demo --keep %s: the directory is not empty", keep),
			"name a new or empty directory: the demo builds a git repository there")
	}
	return dir, func() {}, nil
}

// demoCommit commits .mcp.json and agentgate.lock with go-git, with an
// explicit author so that no git configuration is needed.
func demoCommit(dir string, e *env) error {
	return demo.CommitFiles(dir, []string{".mcp.json", "agentgate.lock"},
		"agentgate demo", "demo@agentgate.invalid", e.now(), "Pin the notes MCP server's tools")
}

// indentWriter writes to w with prefix at the start of every line.
type indentWriter struct {
	w      io.Writer
	prefix string
	mid    bool // the last byte written was not a newline
}

func (iw *indentWriter) Write(p []byte) (int, error) {
	var b []byte
	for _, c := range p {
		if !iw.mid {
			b = append(b, iw.prefix...)
		}
		b = append(b, c)
		iw.mid = c != '\n'
	}
	if _, err := iw.w.Write(b); err != nil {
		return 0, err
	}
	return len(p), nil
}
