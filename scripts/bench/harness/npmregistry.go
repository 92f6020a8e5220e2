//go:build agentgate_bench

package main

import (
	"errors"
	"flag"
	"os"
	"os/signal"
	"syscall"

	"github.com/agentgate/agentgate/internal/testing/npmregistry"
)

// cmdNPMRegistry packs the package directories given and serves them as
// a loopback npm registry (internal/testing/npmregistry) until SIGTERM or
// SIGINT, after writing its URL to -url-file.
func cmdNPMRegistry(args []string) error {
	fs := flag.NewFlagSet("npm-registry", flag.ContinueOnError)
	urlFile := fs.String("url-file", "", "where to write the registry's URL")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *urlFile == "" || fs.NArg() == 0 {
		return errors.New("want -url-file FILE and package directories")
	}
	out, err := os.MkdirTemp("", "npm-registry")
	if err != nil {
		return err
	}
	defer os.RemoveAll(out)
	vs, err := npmregistry.Pack(out, fs.Args()...)
	if err != nil {
		return err
	}
	r := npmregistry.Serve(vs)
	defer r.Close()
	if err := os.WriteFile(*urlFile, []byte(r.URL+"\n"), 0o644); err != nil {
		return err
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	<-sig
	return nil
}
