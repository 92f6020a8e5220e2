package bridge

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentgate/agentgate/mcp/config/syntax"
	"github.com/agentgate/agentgate/mcp/guardargs"

	"github.com/agentgate/agentgate/internal/safetext"
	"github.com/agentgate/agentgate/mcp/auth"
	"github.com/agentgate/agentgate/mcp/config"
)

// Flags are a remote server as agentgate guard and agentgate-mcp bridge
// take it on their command line: --url URL, --header K:V (repeatable),
// --transport http|sse.
type Flags struct {
	URL       string
	Headers   []string // "Name: value" as given
	Transport string   // "", "http" or "sse"
}

// Register adds the three flags to fs.
func (f *Flags) Register(fs *flag.FlagSet) {
	fs.StringVar(&f.URL, "url", "", "the remote server's URL")
	fs.Func("header", "an HTTP header `Name:value` sent with every request to the server's origin (repeatable)", func(v string) error {
		f.Headers = append(f.Headers, v)
		return nil
	})
	fs.StringVar(&f.Transport, "transport", "", "http (streamable HTTP) or sse (legacy HTTP+SSE); default: streamable HTTP, falling back to SSE on a 4xx other than 401/403")
}

// CommandLine is the File that errors about flags name.
const CommandLine = "the command line"

// Resolve turns the flags into the resolved server name, as capture would
// reach it: ${VAR} and ${VAR:-default} in the URL and header values are
// expanded from lookup the way Claude Code's configs are (a client that
// expands its own syntax in args has done so already; what is left is
// expanded here), an unset variable without a default is an error naming
// it; every header value and URL credential is a secret, redacted from
// every message. dir is where the client runs the server (the working
// directory); the agentgate.toml at the root of the git work tree holding
// it (outside git: in dir), as agentgate guard finds the lockfile, has
// its [servers.NAME] settings applied as they are to capture (timeout,
// cross-origin-redirects, and [servers.NAME.oauth], whose client id picks
// the stored token). The error is a *config.Error
// (Unverifiable for a missing variable: exit 3; else invalid input: exit
// 2).
func (f *Flags) Resolve(name, dir string, lookup func(string) (string, bool)) (config.Resolved, error) {
	bad := func(field, msg, hint string) error {
		return &config.Error{File: CommandLine, Server: name, Field: field, Msg: msg, Hint: hint}
	}
	s := config.Server{Name: name, File: CommandLine, URL: f.URL, Syntax: syntax.Claude}
	// The one reading of --transport and --header, guard's and the
	// see-through's (mcp/guardargs).
	t, fallback, ferr := guardargs.RemoteTransport(f.Transport)
	if ferr != nil {
		return config.Resolved{}, bad("--transport", ferr.Msg, ferr.Hint)
	}
	s.Transport, s.FallbackSSE = config.Transport(t), fallback
	if f.URL == "" {
		return config.Resolved{}, bad("--url", "no URL given", "give the server's URL: --url https://...")
	}
	if s.Headers, ferr = guardargs.HeaderFlags(f.Headers); ferr != nil {
		return config.Resolved{}, bad("--header", ferr.Msg, ferr.Hint)
	}
	root, err := config.FindRoot(dir)
	if err != nil {
		root = dir
	}
	p := &config.Project{Root: root}
	data, err := os.ReadFile(filepath.Join(root, config.SettingsFile))
	switch {
	case err == nil:
		if p.Settings, err = config.ParseSettings(config.SettingsFile, data); err != nil {
			return config.Resolved{}, err
		}
		ss := p.Settings.Servers[name]
		s.Timeout = cmp.Or(ss.Timeout, p.Settings.Timeout)
		s.CrossOriginRedirects = ss.CrossOriginRedirects
		s.OAuth = ss.OAuth
	case !errors.Is(err, fs.ErrNotExist):
		return config.Resolved{}, &config.Error{File: config.SettingsFile, Msg: "cannot read: " + err.Error()}
	}
	return p.Resolve(s, lookup)
}

// Usage is agentgate-mcp bridge's command line.
const Usage = "agentgate-mcp bridge --url URL [--server NAME] [--header 'Name: value' ...] [--transport http|sse]"

// help follows Usage for -h.
const help = `Bridges stdin and stdout (an MCP client's stdio) to the remote server at
URL, as agentgate guard --url does, without the lockfile checks: to try a
server with any stdio client, or to see what guard sees (docs/GUARD.md).
--server names the server as the repository's client configs do: its
agentgate.toml settings ([servers.NAME]) and the OAuth token stored by
'agentgate auth login NAME' then apply. To check the server against
agentgate.lock, run 'agentgate guard --server NAME --url URL' instead.

Exit codes: 0 stdin closed; 2 bad usage; 3 an unset variable, or the
server was lost.
`

// Serve is "agentgate-mcp bridge --url URL [--server NAME] [--header K:V
// ...] [--transport http|sse]": it bridges stdin and stdout to the server
// (stdout carries the protocol only; messages go to stderr) until stdin
// closes (exit 0) or the server is lost (exit 3). Bad usage (a flag it
// does not know, an argument, no --url) is exit 2 with an error and the
// usage as a hint; -h prints the usage on stdout, exit 0; an unset
// variable is exit 3. Without --server the server is called "bridge",
// and an OAuth failure's hint says how to log in and pass --server (no
// client config has a server of that name to log in to).
func Serve(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, lookup func(string) (string, bool)) int {
	const prefix = "agentgate-mcp bridge"
	fs := flag.NewFlagSet(prefix, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var f Flags
	f.Register(fs)
	server := fs.String("server", "", "the server's `name` in the repository's client configs")
	usage := func(msg string) int {
		fmt.Fprintf(stderr, "%s: error: %s\n", prefix, safetext.VisibleLine(msg))
		fmt.Fprintf(stderr, "agentgate: hint: usage: %s (to check the server against agentgate.lock: agentgate guard --server NAME --url URL)\n", Usage)
		return 2
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(stdout, "Usage: %s\n\n%s", Usage, help)
			return 0
		}
		return usage(err.Error())
	}
	switch {
	case fs.NArg() > 0:
		return usage(fmt.Sprintf("unexpected argument %q", fs.Arg(0)))
	case f.URL == "":
		return usage("--url is required: the remote server's URL")
	}
	opts := Options{Log: stderr, Interactive: false}
	name := *server
	if name == "" {
		name = "bridge"
		opts.AuthHints = func(err error) []string {
			if auth.IsLoginRequired(err) {
				return []string{"log in once, in a terminal in the repository whose client config has this server: agentgate auth login NAME; " +
					"then run agentgate-mcp bridge --server NAME --url URL there, which uses the stored token; or give a token: --header 'Authorization: Bearer TOKEN'"}
			}
			return auth.Hints(err, "NAME")
		}
	}
	root, _ := os.Getwd()
	r, err := f.Resolve(name, root, lookup)
	if err != nil {
		return usageError(stderr, err)
	}
	conn, err := Open(ctx, r, opts)
	if err != nil {
		WriteError(stderr, prefix, err)
		return 2
	}
	return Pipe(conn, stdin, stdout, stderr)
}

// Pipe copies stdin to conn.In and conn.Out to stdout until the bridge
// ends, and returns its exit code: 0 when stdin closed, 3 when the server
// was lost (the reason is on stderr already, from the bridge's log).
func Pipe(conn *Conn, stdin io.Reader, stdout, stderr io.Writer) int {
	go func() {
		_, _ = io.Copy(conn.In, stdin)
		conn.In.Close()
	}()
	if _, err := io.Copy(stdout, conn.Out); err != nil {
		conn.In.Close() // the client went away
		_, _ = io.Copy(io.Discard, conn.Out)
	}
	if err := conn.Wait(); err != nil {
		if errors.Is(err, context.Canceled) {
			return 0
		}
		return 3
	}
	return 0
}

// usageError prints an error of Resolve (see WriteError) and returns its
// exit code: 3 for an unset variable, else 2.
func usageError(stderr io.Writer, err error) int {
	WriteError(stderr, "agentgate-mcp bridge", err)
	var ce *config.Error
	if errors.As(err, &ce) && ce.Unverifiable {
		return 3
	}
	return 2
}

// WriteError prints err as "PREFIX: error: MSG" lines, each followed
// right away by its own "agentgate: hint: ..." lines (its Hints()), as
// agentgate prints errors: the errors of a config.Errors (agentgate.toml
// can have several) one by one, else err with its hints. Every line is
// made safe with safetext.VisibleLine.
func WriteError(w io.Writer, prefix string, err error) {
	errs := []error{err}
	var ces config.Errors
	if errors.As(err, &ces) && len(ces) > 0 {
		errs = ces.Unwrap()
	}
	for _, e := range errs {
		fmt.Fprintf(w, "%s: error: %s\n", prefix, safetext.VisibleLine(e.Error()))
		var h interface{ Hints() []string }
		if errors.As(e, &h) {
			for _, hint := range h.Hints() {
				fmt.Fprintf(w, "agentgate: hint: %s\n", safetext.VisibleLine(hint))
			}
		}
	}
}
