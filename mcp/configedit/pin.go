package configedit

import (
	"errors"
	"fmt"

	"github.com/agentgate/agentgate/mcp/config"
	"github.com/agentgate/agentgate/mcp/launcher"
)

// ErrSkipPin, returned by PinFile's locked function, leaves a server unpinned
// without an error (a server agentgate.toml excludes from the lockfile).
var ErrSkipPin = errors.New("not pinned")

// Pin is one argument PinFile rewrote.
type Pin struct {
	Server   string
	Line     int
	Spec     launcher.PackageSpec
	From, To string // the argument before and after
}

// PinFile rewrites, in data (a config file of client, named file relative
// to the root), the package spec of every stdio server that runs a
// package without an exact version, to the version locked returns for it
// (the locked version and integrity: PinnedArg), with minimal edits (see
// SetArgument). Exact specs, remote servers and commands no package is
// attributed to are left alone. Servers running under the guard wrapper
// are pinned inside it. An error from locked, for any server, fails the
// whole file: every server's error is returned (an Errors) and nothing is
// pinned.
func PinFile(client, file string, data []byte, locked func(s config.Server, spec launcher.PackageSpec) (version, integrity string, err error)) ([]byte, []Pin, error) {
	d, err := locate(client, file, data)
	if err != nil {
		return nil, nil, err
	}
	servers, err := d.seeThrough()
	if err != nil {
		return nil, nil, err
	}
	var errs config.Errors
	var pins []Pin
	var edits []Edit
	want := map[string][]string{}
	for _, s := range servers {
		spec, ok, perr := s.Package()
		if perr != nil || !ok || spec.Exact || spec.Ecosystem == launcher.EcoFile {
			continue
		}
		field := "command"
		if spec.Arg >= 0 {
			field = fmt.Sprintf("args[%d]", spec.Arg)
		}
		fail := func(err error) {
			var ce *config.Error
			if !errors.As(err, &ce) {
				ce = &config.Error{Msg: err.Error()}
			}
			e := *ce
			if e.File == "" {
				e.File, e.Line, e.Column = file, s.Line, s.Column
			}
			if e.Server == "" {
				e.Server, e.Field = s.Name, field
			}
			errs = append(errs, &e)
		}
		version, integrity, err := locked(s, spec)
		if errors.Is(err, ErrSkipPin) {
			continue
		}
		if err != nil {
			fail(err)
			continue
		}
		to, err := spec.PinnedArg(version, integrity)
		if err != nil {
			fail(err)
			continue
		}
		// The pinned argv must run the same package, exactly.
		argv := append([]string{s.Command}, s.Args...)
		argv[spec.Arg+1] = to
		if after, err := launcher.RecognizePackage(argv[0], argv[1:]); err != nil || !after.Exact || after.Name != spec.Name || after.Arg != spec.Arg {
			fail(fmt.Errorf("cannot pin %q: %s would no longer read it as the same package", spec.Raw, spec.Launcher))
			continue
		}
		i := spec.Arg
		if s.Guard != nil {
			g, _, _ := parseGuard(d.servers[s.Name])
			i += g.cmdAt + 1 // the wrapped command's args follow the command
		}
		ed, rawArgv, err := d.setEdit(s.Name, i, to)
		if err != nil {
			fail(err)
			continue
		}
		edits, want[s.Name] = append(edits, ed), rawArgv
		pins = append(pins, Pin{Server: s.Name, Line: s.Line, Spec: spec, From: spec.Raw, To: to})
	}
	if len(errs) > 0 {
		return nil, nil, errs
	}
	if len(edits) == 0 {
		return data, nil, nil
	}
	out, err := applyEdits(data, edits)
	if err != nil {
		return nil, nil, err
	}
	if err := d.verifyEdit(out, want); err != nil {
		return nil, nil, err
	}
	return out, pins, nil
}
