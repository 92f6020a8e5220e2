package config

import (
	"errors"
	"maps"
	"slices"

	"github.com/agentgate/agentgate/mcp/config/syntax"
	"github.com/agentgate/agentgate/mcp/guardargs"
)

// seeThrough is SeeThrough of the servers of res.
func seeThrough(file string, res fileResult) (fileResult, error) {
	var err error
	res.servers, err = SeeThrough(file, res.servers)
	return res, err
}

// SeeThrough returns servers (read from file, as ParseFile returns them)
// with the guard wrapper of each replaced by the server it runs, so that
// a wrapped config locks, verifies and pins like the unwrapped one; the
// wrapper itself is kept in Server.Guard. servers is not changed. A
// wrapper guard would refuse, or whose env sets one of agentgate's own
// variables (guardargs.OwnVariable), is an error naming the server (the
// error is an Errors).
func SeeThrough(file string, servers []Server) ([]Server, error) {
	servers = slices.Clone(servers)
	var errs Errors
	for i := range servers {
		s := &servers[i]
		if s.Transport != Stdio {
			continue
		}
		g, ok, err := guardargs.Wrapper(s.Command, s.Args, slices.Collect(maps.Keys(s.Env)))
		if !ok {
			continue
		}
		if err != nil {
			hint := "fix the flag as guard's usage says (agentgate guard -h), or write the wrapper as 'agentgate wrap' does (docs/GUARD.md); 'agentgate unwrap' restores the entry once guard would run it"
			var ge *guardargs.GuardArgsError
			if errors.As(err, &ge) && ge.Hint != "" {
				hint = ge.Hint + "; " + hint
			}
			errs = append(errs, &Error{File: file, Line: s.Line, Column: s.Column, Server: s.Name, Field: "args", Msg: err.Error(), Hint: hint})
			continue
		}
		for _, k := range slices.Sorted(maps.Keys(s.Env)) {
			if guardargs.OwnVariable(k) {
				errs = append(errs, ownVariableError(file, *s, "env."+k, k))
			}
		}
		guard := g.Guard
		s.Guard = &guard
		if g.Command != nil {
			s.Command, s.Args = g.Command[0], slices.Clone(g.Command[1:])
			continue
		}
		s.Command, s.Args, s.Env, s.EnvVars, s.Cwd, s.EnvFile = "", nil, nil, nil, "", ""
		s.EnvHeaders, s.BearerTokenEnvVar = nil, ""
		if !syntax.ExpandsArgs(s.Syntax) {
			// The client passes the args as written; guard expands
			// what is left in its own syntax (bridge.Flags.Resolve).
			s.Syntax = syntax.Claude
		}
		s.URL = g.URL
		// As guard reads --transport and --header (Check has refused
		// what they would refuse).
		t, fallback, _ := guardargs.RemoteTransport(g.Transport)
		s.Transport, s.FallbackSSE = Transport(t), fallback
		s.Headers, _ = guardargs.HeaderFlags(g.Headers)
	}
	if len(errs) > 0 {
		return servers, errs
	}
	return servers, nil
}

// ownVariableError is the error for variable name (guardargs.OwnVariable),
// set in the field of the wrapper s.
func ownVariableError(file string, s Server, field, name string) *Error {
	msg, hint := guardargs.OwnVariableProblem(s.Name, name)
	return &Error{File: file, Line: s.Line, Column: s.Column, Server: s.Name, Field: field, Msg: msg, Hint: hint}
}
