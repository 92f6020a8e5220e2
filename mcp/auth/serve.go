package auth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/agentgate/agentgate/internal/safetext"
	"github.com/agentgate/agentgate/mcp/wire"
)

// Exit codes of Serve (agentgate's exit classes).
const (
	exitOK         = 0
	exitInvalid    = 2
	exitUnverified = 3
)

// RunInstead is the hint for `agentgate-mcp auth` run by hand (with
// arguments, or without agentgate's request on stdin).
const RunInstead = "agentgate-mcp auth is started by agentgate auth, which sends it the servers: run agentgate auth login|status|logout [NAME...] instead"

// Serve is `agentgate-mcp auth`: it reads a wire.AuthRequest from stdin
// and runs its action on each server, in order:
//
//   - login: probe the server, discover, get a token (browser login, or
//     the client credentials grant when configured) and store it; exit 3
//     when any server could not be authorized;
//   - status: one line per server on stdout: whether a token is stored,
//     its client, expiry, whether it can be refreshed, and where it is;
//     never the token;
//   - logout: delete the stored token of each server.
//
// Nothing is stored for a server whose login fails.
//
// A request that does not parse (run by hand) is exit 2 with RunInstead as
// the hint; one from another version is exit 2 with the version's hint.
func Serve(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	req, err := wire.ReadAuthRequest(stdin)
	if err != nil {
		fmt.Fprintf(stderr, "%s: error: %v\n", wire.HelperName, err)
		hints := []string{RunInstead}
		var ve *wire.VersionError
		if errors.As(err, &ve) {
			hints = ve.Hints()
		}
		for _, h := range hints {
			fmt.Fprintf(stderr, "agentgate: hint: %s\n", h)
		}
		return exitInvalid
	}
	store, err := OpenStore(getenv)
	if err != nil {
		fmt.Fprintf(stderr, "agentgate: error: token store: %v\n", err)
		return exitInvalid
	}
	code := exitOK
	for _, r := range req.Servers {
		s := FromResolved(r)
		name := safetext.VisibleLine(s.Name)
		var err error
		switch req.Action {
		case "login":
			err = serveLogin(ctx, s, store, stdout, stderr, getenv)
		case "status":
			err = serveStatus(s, store, stdout)
		case "logout":
			var found bool
			if found, err = store.Delete(s.key()); err == nil {
				if found {
					fmt.Fprintf(stdout, "%s: logged out (stored token deleted)\n", name)
				} else {
					fmt.Fprintf(stdout, "%s: no stored token\n", name)
				}
			}
		default:
			fmt.Fprintf(stderr, "agentgate: error: unknown auth action %q\n", req.Action)
			return exitInvalid
		}
		if err != nil {
			code = exitUnverified
			file := r.File
			if r.Line > 0 {
				file = fmt.Sprintf("%s:%d", r.File, r.Line)
			}
			// Messages are redacted where they are made; the server's
			// configured secrets (headers, the client secret) once more
			// here, for every action.
			fmt.Fprintf(stderr, "agentgate: error: server %q (%s): %s: %s\n", name, file, req.Action, safetext.VisibleLine(r.Redact(err.Error())))
			for _, h := range Hints(err, s.Name) {
				fmt.Fprintf(stderr, "agentgate: hint: %s\n", h)
			}
		}
	}
	return code
}

func serveLogin(ctx context.Context, s Server, store *Store, stdout, stderr io.Writer, getenv func(string) string) error {
	name := safetext.VisibleLine(s.Name)
	where, needed, err := Login(ctx, s, Options{Store: store, Browser: Browser{Getenv: getenv, Prompt: stderr, Name: name}})
	if err != nil {
		return err
	}
	if !needed {
		fmt.Fprintf(stdout, "%s: the server did not ask for authorization; nothing stored\n", name)
		return nil
	}
	fmt.Fprintf(stdout, "%s: logged in; token stored in %s\n", name, where)
	return nil
}

func serveStatus(s Server, store *Store, stdout io.Writer) error {
	name := safetext.VisibleLine(s.Name)
	e, where, err := store.Get(s.key())
	if err != nil {
		return err
	}
	if e == nil || e.ServerURL != s.URL {
		fmt.Fprintf(stdout, "%s: not logged in\n", name)
		return nil
	}
	state := "valid"
	now := time.Now()
	switch {
	case e.Expiry.IsZero():
		state = "valid, no expiry given"
	case e.Valid(now):
		state = fmt.Sprintf("valid until %s", e.Expiry.UTC().Format(time.RFC3339))
	default:
		state = fmt.Sprintf("expired at %s", e.Expiry.UTC().Format(time.RFC3339))
	}
	if e.RefreshToken != "" {
		state += ", refreshable"
	}
	fmt.Fprintf(stdout, "%s: logged in (%s; grant %s; client %s from %s; issuer %s) in %s\n", name, state, e.Grant,
		safetext.VisibleLine(e.ClientID), e.ClientSource, safetext.VisibleLine(e.Issuer), where)
	return nil
}

// Hints suggests the next step after err for server name.
func Hints(err error, name string) []string {
	switch {
	case errors.Is(err, ErrLoginRequired):
		return []string{"agentgate auth login " + name}
	case errors.Is(err, ErrRefused):
		return []string{"agentgate refuses OAuth metadata and endpoints that could leak a token (see docs/AUTH.md); check the server's URL, or report it to the server's maintainers"}
	case errors.As(err, new(*PermError)):
		return nil
	default:
		return []string{"check that the server and its authorization server are reachable, and the [servers." + name + ".oauth] table of agentgate.toml (see docs/AUTH.md)"}
	}
}
