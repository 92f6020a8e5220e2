// Package fakeserver is the command line of internal/demo's MCP server, for
// tests and benchmarks only: Main parses flags into demo.Options and serves
// stdio; Run does the same and hands -http to an HTTP transport
// (fakehttp.Main). The names below are internal/demo's, so that the tests
// read fakeserver.Options, fakeserver.Generate, ... as before. No product
// package imports this one.
//
// Flags of Main:
//
//	-tools FILE            JSON array of raw tool objects, served byte for byte
//	-generate N            serve N generated tools instead (see Generate)
//	-schema-bytes K        approximate inputSchema size of generated tools (default 256)
//	-page-size N           tools per tools/list page (0: all in one page)
//	-versions LIST         comma-separated protocol versions, newest first
//	                       (default 2025-11-25,2025-06-18,2025-03-26,2024-11-05)
//	-unknown error|ignore  reply -32601 to unknown methods, or never reply
//	-discover              answer server/discover (a 2026-07-28 server)
//	-init-delay D          wait D before answering initialize
//	-page-delay D          wait D before answering each tools/list page
//	-misbehave MODE        one of the Misbehave* constants below
//	-huge-description N    add a tool "huge" whose description is N bytes
//	-stderr TEXT           write TEXT and a newline to stderr at start
//	-log FILE              append one line per event: "pid N", "child N",
//	                       "method M" for every request or notification received
//	-fork-child            start a child (sh -c 'exec sleep 300'; on Windows
//	                       this program with -child) that ignores SIGTERM (and
//	                       Ctrl-Break) and shares stdout and stderr, like
//	                       npx -> node
//	-ignore-sigterm        ignore SIGTERM
//	-linger                keep running after stdin ends (until killed)
//	-rugpull-file PATH     when PATH exists at tools/list time, the tool named
//	-rugpull-tool NAME     NAME gets the description TEXT (the default text
//	-rugpull-text TEXT     asks the model to read ~/.ssh and send it along)
//	-rugpull-after N       the rug pull also applies after N tools/list
//	                       requests, announced by notifications/tools/list_changed
//	-call MODE             how tools/call is answered: ok (default), garbage,
//	                       duplicate, invalid, crash, hang, big:N (see Call*);
//	                       -log records "call NAME" for each call
//	-http ADDR             serve HTTP on ADDR instead of stdio (fakehttp.Main
//	                       only; Main refuses it with status 2); prints
//	                       "listening on http://HOST:PORT" on stdout
//
// It lives under internal/: a test double and the demo's server, not an
// API for other programs.
package fakeserver

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/agentgate/agentgate/internal/demo"
)

// Main runs the fake with command-line args (without the program name; see
// the package doc for the flags) on stdin and stdout, and returns the exit
// status: 0 when stdin ended, 1 for -misbehave exit and partial-json, 2 for
// crash-list and bad flags, -http among them (fakehttp.Main serves HTTP).
func Main(args []string) int { return Run(args, nil) }

// Run is Main with an HTTP transport: with -http ADDR, after the set-up
// every flag asks for (tools, -log, -stderr, -fork-child, -ignore-sigterm),
// it returns serveHTTP(addr, opts). With a nil serveHTTP, -http is a bad
// flag (status 2). This package links no package net; fakehttp.Main passes
// its serveHTTP.
func Run(args []string, serveHTTP func(addr string, opts Options) int) int {
	fs := flag.NewFlagSet("fakeserver", flag.ContinueOnError)
	var (
		o                         Options
		toolsFile, versions, mode string
		logFile, stderrText, addr string
		generate, schemaBytes     int
		forkChild, ignoreTerm     bool
		linger                    bool
		unknown                   string
	)
	fs.StringVar(&toolsFile, "tools", "", "JSON array of raw tool objects")
	var surfaceFile string
	fs.StringVar(&surfaceFile, "surface", "", "JSON object {instructions, prompts, resourceTemplates, resources, failList} served besides the tools")
	fs.IntVar(&generate, "generate", 0, "serve N generated tools")
	fs.IntVar(&schemaBytes, "schema-bytes", 256, "approximate inputSchema size of generated tools")
	fs.IntVar(&o.PageSize, "page-size", 0, "tools per page (0: one page)")
	fs.StringVar(&versions, "versions", "", "protocol versions, newest first, comma-separated")
	fs.StringVar(&unknown, "unknown", "error", "unknown methods: error or ignore")
	fs.BoolVar(&o.Discover, "discover", false, "answer server/discover")
	fs.DurationVar(&o.InitDelay, "init-delay", 0, "delay before the initialize reply")
	fs.DurationVar(&o.PageDelay, "page-delay", 0, "delay before each tools/list reply")
	fs.StringVar(&mode, "misbehave", "", "misbehaviour (see package doc)")
	fs.IntVar(&o.HugeDescription, "huge-description", 0, "add a tool whose description is N bytes")
	fs.StringVar(&stderrText, "stderr", "", "text to write to stderr at start")
	fs.StringVar(&logFile, "log", "", "append pid, child pid and received methods to this file")
	fs.BoolVar(&forkChild, "fork-child", false, "start a child that ignores SIGTERM")
	fs.BoolVar(&ignoreTerm, "ignore-sigterm", false, "ignore SIGTERM")
	fs.BoolVar(&linger, "linger", false, "keep running after stdin ends")
	var child bool
	fs.BoolVar(&child, "child", false, "be the -fork-child child on Windows: ignore interrupts, sleep 300s")
	fs.StringVar(&o.RugpullFile, "rugpull-file", "", "rug pull when this file exists")
	fs.StringVar(&o.RugpullTool, "rugpull-tool", "", "tool whose description the rug pull replaces")
	fs.StringVar(&o.RugpullText, "rugpull-text", "", "the rug-pulled description")
	fs.StringVar(&addr, "http", "", "serve HTTP on this address instead of stdio")
	fs.IntVar(&o.RugpullAfter, "rugpull-after", 0, "rug pull after this many tools/list requests, announced with list_changed")
	fs.StringVar(&o.Call, "call", "", "how tools/call is answered: ok, garbage, duplicate, invalid, crash, hang, big:N")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if child {
		signal.Ignore(os.Interrupt, syscall.SIGTERM)
		time.Sleep(300 * time.Second)
		return 0
	}
	if addr != "" && serveHTTP == nil {
		fmt.Fprintln(os.Stderr, "fakeserver: -http: this build serves stdio only\nhint: run the fake through fakehttp.Main (package internal/testing/fakehttp), which serves -http")
		return 2
	}
	o.Misbehave = mode
	o.IgnoreUnknown = unknown == "ignore"
	if versions != "" {
		o.Versions = strings.Split(versions, ",")
	}
	var err error
	if surfaceFile != "" {
		data, err := os.ReadFile(surfaceFile)
		if err == nil {
			o.Surface = new(Surface)
			err = json.Unmarshal(data, o.Surface)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "fakeserver: -surface:", err)
			return 2
		}
	}
	switch {
	case toolsFile != "":
		if o.Tools, err = LoadTools(toolsFile); err != nil {
			fmt.Fprintln(os.Stderr, "fakeserver:", err)
			return 2
		}
	case generate > 0:
		o.Tools = Generate(generate, schemaBytes)
		if os.Getenv("GOGC") == "" {
			// The listing is live for the whole run and every page is
			// garbage once written: at the default GOGC=100 the fake
			// would peak near twice the listing, and its peak counts in
			// the peak RSS of the agentgate that starts it (bench.sh 4).
			debug.SetGCPercent(25)
		}
	}
	if ignoreTerm {
		signal.Ignore(syscall.SIGTERM)
	}
	logw := io.Discard
	if logFile != "" {
		f, err := os.OpenFile(logFile, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			fmt.Fprintln(os.Stderr, "fakeserver:", err)
			return 2
		}
		defer f.Close()
		logw = f
	}
	fmt.Fprintf(logw, "pid %d\n", os.Getpid())
	o.OnMessage = func(method string, _ map[string][]string) { fmt.Fprintf(logw, "method %s\n", method) }
	o.OnCall = func(name string) { fmt.Fprintf(logw, "call %s\n", name) }
	if stderrText != "" {
		fmt.Fprintln(os.Stderr, stderrText)
	}
	if forkChild {
		c, err := childCommand()
		if err != nil {
			fmt.Fprintln(os.Stderr, "fakeserver: fork child:", err)
			return 2
		}
		c.Stdout, c.Stderr = os.Stdout, os.Stderr
		if err := c.Start(); err != nil {
			fmt.Fprintln(os.Stderr, "fakeserver: fork child:", err)
			return 2
		}
		fmt.Fprintf(logw, "child %d\n", c.Process.Pid)
	}
	// A pending timer keeps the runtime from calling a hung fake a deadlock.
	go func() {
		for {
			time.Sleep(time.Hour)
		}
	}()
	if addr != "" {
		return serveHTTP(addr, o)
	}
	err = Serve(context.Background(), os.Stdin, os.Stdout, o)
	if linger {
		select {} // until killed
	}
	switch {
	case err == nil:
		return 0
	case errors.Is(err, demo.ErrCrash):
		fmt.Fprintln(os.Stderr, "panic: fakeserver crashed mid-listing (tool registry corrupted)")
		return 2
	default:
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
}

// childCommand is the -fork-child child: on unix a shell that ignores
// SIGTERM and becomes sleep 300; on Windows, which has no sh, this program
// again with -child (so the binary must run Main again, as the test
// binaries' TestMain does with the environment the child inherits), which
// ignores Ctrl-C and Ctrl-Break and sleeps 300 s. Either way it is a
// grandchild of whoever started the fake, holding its stdout and stderr.
func childCommand() (*exec.Cmd, error) {
	if runtime.GOOS != "windows" {
		return exec.Command("/bin/sh", "-c", `trap "" TERM; exec sleep 300`), nil
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	return exec.Command(exe, "-child"), nil
}
