package config

import "github.com/agentgate/agentgate/mcp/launcher"

// Package recognises the package s runs. Remote servers run nothing
// locally: ok is false and err nil. A stdio command agentgate cannot
// attribute returns a *launcher.UnpinnableError.
func (s Server) Package() (p launcher.PackageSpec, ok bool, err error) {
	if s.Transport != Stdio && s.Transport != "" {
		return launcher.PackageSpec{}, false, nil
	}
	p, err = launcher.RecognizePackage(s.Command, s.Args)
	if err != nil {
		return launcher.PackageSpec{}, false, err
	}
	return p, true, nil
}
