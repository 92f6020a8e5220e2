package cli

// trusted.go is the --trusted-ref guard: a pull request from a fork edits
// the client configs, and lock, diff and ci start the commands those
// configs name. With a trusted revision, only servers defined identically
// there (and whose command-line files are identical there) are started.

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentgate/agentgate/mcp/config"
	"github.com/agentgate/agentgate/mcp/wire"
)

// trustedRefEnv is the environment variable that sets --trusted-ref.
const trustedRefEnv = "AGENTGATE_TRUSTED_REF"

// trustedRef is --trusted-ref when given, else AGENTGATE_TRUSTED_REF, else "".
func trustedRef(e *env, flagValue string) string {
	if flagValue != "" {
		return flagValue
	}
	return e.getenv(trustedRefEnv)
}

// trustFilter returns the servers whose definition is the same at the
// trusted revision ref, and one failure (exit class 3, nothing started)
// for each other server. A server is trusted when the configs at ref (read
// with config.LoadAt) define an enabled server of the same name with the
// same definition (config.DefinitionDiff), and every file inside the
// repository that its command, arguments, env values or envFile name is
// byte-identical at ref. A ref that does not resolve is exit class 2.
func trustFilter(ws *workspace, ref string, servers []config.Server) ([]config.Server, []failure, error) {
	if ws.repo == nil {
		return nil, nil, invalid(fmt.Errorf("--trusted-ref %s needs a git repository", ref))
	}
	if _, _, err := ws.repo.FileAt(ref, config.SettingsFile); err != nil {
		msg, _ := splitHints(err.Error())
		return nil, nil, invalid(fmt.Errorf("--trusted-ref %s: %s", ref, msg),
			"fetch the trusted branch first (git fetch origin main; with actions/checkout, set fetch-depth: 0)")
	}
	read := func(p string) ([]byte, bool, error) { return ws.repo.FileAt(ref, p) }
	trusted, loadErr := config.LoadAt(ws.project.Files, read)
	refuse := func(s config.Server, why string) failure {
		return failure{server: s.Name, file: where(s), code: ExitUnverified,
			msg: fmt.Sprintf("not started: %s (--trusted-ref %s starts only servers defined identically at %s)", why, ref, ref),
			hints: []string{
				fmt.Sprintf("a change to what CI starts must be reviewed and merged into %s first; then CI runs it", ref),
				"on a trusted branch, run agentgate without --trusted-ref (and without " + trustedRefEnv + ")"}}
	}
	var ok []config.Server
	var refused []failure
	for _, s := range servers {
		if loadErr != nil {
			msg, _ := splitHints(loadErr.Error())
			refused = append(refused, refuse(s, fmt.Sprintf("the configs at %s do not load: %s", ref, msg)))
			continue
		}
		i := slices.IndexFunc(trusted.Servers, func(t config.Server) bool { return t.Name == s.Name })
		if i < 0 {
			why := fmt.Sprintf("no enabled server %q at %s", s.Name, ref)
			if slices.ContainsFunc(trusted.Skipped, func(t config.Skipped) bool { return t.Name == s.Name }) {
				why = fmt.Sprintf("server %q is not enabled at %s", s.Name, ref)
			}
			refused = append(refused, refuse(s, why))
			continue
		}
		if field := config.DefinitionDiff(trusted.Servers[i], s); field != "" {
			refused = append(refused, refuse(s, fmt.Sprintf("its definition differs from the one at %s (field %q)", ref, field)))
			continue
		}
		why, err := changedLocalFile(ws, ref, s)
		if err != nil {
			return nil, nil, classify(ExitUnverified, err)
		}
		if why != "" {
			refused = append(refused, refuse(s, why))
			continue
		}
		ok = append(ok, s)
	}
	return ok, refused, nil
}

// changedLocalFile returns why s runs repository files that are not those
// at ref ("" when it does not): every regular file inside the work tree
// named by the command, an argument, an env value (whole, or after "="),
// the envFile or the cwd-relative forms of these, compared byte for byte.
func changedLocalFile(ws *workspace, ref string, s config.Server) (string, error) {
	var words []string
	add := func(v string) {
		v = strings.TrimPrefix(v, "${workspaceFolder}/")
		if v == "" || strings.ContainsAny(v, "$\n") {
			return
		}
		words = append(words, v)
		if _, after, ok := strings.Cut(v, "="); ok && after != "" {
			words = append(words, after)
		}
		words = append(words, strings.Fields(v)...)
	}
	add(s.Command)
	for _, a := range s.Args {
		add(a)
	}
	for _, k := range sortedKeys(s.Env) {
		add(s.Env[k])
	}
	add(s.EnvFile)
	bases := []string{ws.root}
	if s.Cwd != "" && !strings.Contains(s.Cwd, "$") {
		bases = append(bases, filepath.Join(ws.root, filepath.FromSlash(s.Cwd)))
	}
	seen := map[string]bool{}
	for _, w := range words {
		for _, base := range bases {
			abs := w
			if !filepath.IsAbs(abs) {
				abs = filepath.Join(base, filepath.FromSlash(w))
			}
			rel, err := filepath.Rel(ws.root, abs)
			if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				continue
			}
			rel = filepath.ToSlash(rel)
			if seen[rel] || strings.HasPrefix(rel, ".git/") {
				continue
			}
			seen[rel] = true
			fi, err := os.Stat(abs)
			if err != nil || !fi.Mode().IsRegular() {
				continue
			}
			now, err := os.ReadFile(abs)
			if err != nil {
				return "", fmt.Errorf("read %s: %w", rel, err)
			}
			then, ok, err := ws.repo.FileAt(ref, rel)
			if err != nil {
				return "", err
			}
			if !ok {
				return fmt.Sprintf("it runs %s, which does not exist at %s", rel, ref), nil
			}
			if !bytes.Equal(now, then) {
				return fmt.Sprintf("it runs %s, which differs from %s", rel, ref), nil
			}
		}
	}
	return "", nil
}

// guardedCapture is captureServers behind the --trusted-ref guard: servers
// trustFilter refuses are never started, and are reported (on stderr, and
// in the result's failures, sorted by server) like servers that failed.
func guardedCapture(e *env, fs *flag.FlagSet, ws *workspace, servers []config.Server, opts wire.Options) (*live, error) {
	var refused []failure
	if ref := trustedRef(e, flagValue[string](fs, "trusted-ref")); ref != "" {
		var err error
		if servers, refused, err = trustFilter(ws, ref, servers); err != nil {
			return nil, err
		}
	}
	for _, f := range refused {
		printFailure(e, f)
	}
	l := captureServers(e, ws.project, servers, opts)
	l.failures = append(l.failures, refused...)
	slices.SortFunc(l.failures, func(a, b failure) int { return strings.Compare(a.server, b.server) })
	return l, nil
}
