// Package wire holds what agentgate and its helper agentgate-mcp share
// about a capture, without linking mcp-go: the options, results and errors
// of mcp/capture, the protocol between the two binaries, and the front
// side of it (finding and running the helper).
//
// # Why two binaries
//
// mcp-go's client transport package imports mcp-go's server, which links
// a JSON Schema validator whose package initialisation compiles every
// meta-schema: about 3 ms on every start of any binary that links it.
// agentgate's offline paths (version, verify, the commit hook) must start
// in about a millisecond, so agentgate does not link mcp-go at all; live
// capture (mcp/capture, on mcp-go) runs in agentgate-mcp, which agentgate
// starts only when a command needs live servers. See FindHelper for where
// agentgate looks for it and Helper.CaptureAll for the protocol.
//
// # Not an API
//
// wire is the private protocol between an agentgate and an agentgate-mcp
// of one version (each refuses a peer of another version), not an API for
// other programs. It stays at mcp/wire rather than internal/ because
// release builds set its version with -ldflags "-X
// github.com/agentgate/agentgate/mcp/wire.version=..." (see version
// below): a move would leave that silently empty in a build that kept the
// old path.
package wire

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"time"

	"github.com/agentgate/agentgate/mcp/config"
)

// Defaults for the zero values of Options and Server.Timeout.
const (
	// DefaultTimeout bounds connect, handshake and every tools/list page of
	// one server; long enough for a cold `npx -y` download.
	DefaultTimeout = 60 * time.Second
	// DefaultConcurrency servers are contacted at once; they are I/O bound.
	DefaultConcurrency = 8
	// DefaultWaitAfter is how long a server may stay in one state before
	// Options.Waiting hears of it.
	DefaultWaitAfter = 5 * time.Second
	// DefaultMaxResponseBytes bounds one tools/list page (64 MiB).
	DefaultMaxResponseBytes = 64 << 20
	// DefaultMaxPages bounds the pages of one tools/list listing.
	DefaultMaxPages = 1000
	// DefaultMaxListingBytes bounds the bytes of one server's whole
	// tools/list listing, all pages together (128 MiB: 3x a listing of
	// 10,000 tools with 4 KB schemas).
	DefaultMaxListingBytes = 128 << 20
	// DefaultMaxTools bounds the tool definitions of one server.
	DefaultMaxTools = 20000
)

// Options bound one capture run.
type Options struct {
	Timeout          time.Duration // per server; 0 = DefaultTimeout
	Concurrency      int           // 0 = DefaultConcurrency
	MaxResponseBytes int64         // per tools/list page; 0 = DefaultMaxResponseBytes
	MaxPages         int           // 0 = DefaultMaxPages
	MaxListingBytes  int64         // per server, all pages; 0 = DefaultMaxListingBytes (Server.MaxListingBytes overrides)
	MaxTools         int           // per server; 0 = DefaultMaxTools (Server.MaxTools overrides)
	Progress         io.Writer     // nil = quiet; else a terminal for live progress lines
	// Waiting, when not nil, gets one line when a server has been in one
	// state (starting, initializing, listing) for WaitAfter, and again
	// after each doubling: "agentgate: waiting for NAME: WHAT (N s)", on a
	// terminal or not, so that a slow start is never silent.
	Waiting   io.Writer
	WaitAfter time.Duration // 0 = DefaultWaitAfter
	// Interactive allows a browser login for a server that needs OAuth
	// and has no usable token (stdin and stderr are terminals, CI unset).
	Interactive bool
	// Packages asks for the package each stdio server runs, resolved to
	// one immutable artefact (Result.Package): set for lockfile version 2,
	// which pins it. A package that cannot be resolved fails the server at
	// StagePackage.
	Packages bool
	// Root is the repository root, absolute: a file package (a script or
	// binary inside the repository) is named relative to it.
	Root string
}

// WithDefaults returns o with each bound that is zero (or negative) set
// to its default above: Timeout, Concurrency, MaxResponseBytes, MaxPages,
// MaxListingBytes, MaxTools and WaitAfter. It is the one place these
// defaults are filled in.
func (o Options) WithDefaults() Options {
	o.Timeout = orDefault(o.Timeout, DefaultTimeout)
	o.Concurrency = orDefault(o.Concurrency, DefaultConcurrency)
	o.MaxResponseBytes = orDefault(o.MaxResponseBytes, DefaultMaxResponseBytes)
	o.MaxPages = orDefault(o.MaxPages, DefaultMaxPages)
	o.MaxListingBytes = orDefault(o.MaxListingBytes, DefaultMaxListingBytes)
	o.MaxTools = orDefault(o.MaxTools, DefaultMaxTools)
	o.WaitAfter = orDefault(o.WaitAfter, DefaultWaitAfter)
	return o
}

// ForServer returns the options one server runs with: the server's own
// Timeout, MaxListingBytes and MaxTools (agentgate.toml's
// [servers.NAME]) where set (positive), else o's, else the defaults
// (WithDefaults). It is the one rule of which bound applies to a server:
// capture runs each server with it, the helper sizes its response by it
// and a timeout's hint names it.
func (o Options) ForServer(s config.Server) Options {
	o.Timeout = orDefault(s.Timeout, o.Timeout)
	o.MaxListingBytes = orDefault(s.MaxListingBytes, o.MaxListingBytes)
	o.MaxTools = orDefault(s.MaxTools, o.MaxTools)
	return o.WithDefaults()
}

// orDefault is v if positive, else d.
func orDefault[T int | int64 | time.Duration](v, d T) T {
	if v > 0 {
		return v
	}
	return d
}

// Result is the outcome for one server.
type Result struct {
	Server string            // the server's name
	Tools  []json.RawMessage // raw tool objects in the order listed (all pages), byte for byte
	// Prompts, ResourceTemplates and Resources are the raw elements of
	// prompts/list, resources/templates/list and resources/list (all
	// pages, byte for byte); nil when the server does not advertise the
	// capability (or, for Resources, when the server's resources are not
	// locked).
	Prompts           []json.RawMessage
	ResourceTemplates []json.RawMessage
	Resources         []json.RawMessage
	// Instructions is the initialize (or server/discover) result's
	// instructions, as sent (an unpaired surrogate escape as U+FFFD); nil
	// when the result has no instructions string.
	Instructions *string
	// Package is the package the stdio server runs, resolved to one
	// immutable artefact; nil for a remote server or a command no package
	// is attributed to.
	Package *Package
	// Sent lists the elements of the lists above that agentgate-mcp
	// redacted before they left it (the server echoed a credential it
	// holds for the session: see mcp/capture), each with the hashes of
	// the element as the server sent it, which agentgate pins instead of
	// hashing the redacted bytes. InstructionsSent is the instructions
	// hash of the instructions as sent when Instructions was redacted,
	// else "".
	Sent             []Sent
	InstructionsSent string
	Protocol         string        // negotiated protocol version
	Elapsed          time.Duration // from start to the last page or the error
	Err              error         // nil on success; messages are already redacted
	StderrTail       string        // bounded tail of a stdio server's stderr, redacted
}

// Sent is one element of a Result that was redacted, with the hashes of
// the element as the server sent it, in lock's forms (lock.SentHashes:
// wire does not import lock).
type Sent struct {
	List            string `json:"list"`                      // ListTools, ListPrompts, ListTemplates or ListResources
	Index           int    `json:"index"`                     // the element's index in that list
	DescriptionHash string `json:"descriptionHash,omitempty"` // tools: descriptionHash
	InputSchemaHash string `json:"inputSchemaHash,omitempty"` // tools: inputSchemaHash
	DefinitionHash  string `json:"definitionHash"`            // definitionHash
}

// The lists of a Result, as Sent.List names them.
const (
	ListTools     = "tools"
	ListPrompts   = "prompts"
	ListTemplates = "resourceTemplates"
	ListResources = "resources"
)

// Package is what lock.Package holds (see there for each ecosystem's
// forms), as it travels from agentgate-mcp to agentgate: wire does not
// import lock, so agentgate converts it (same fields, same JSON names).
type Package struct {
	Ecosystem string `json:"ecosystem"` // npm, pypi, oci, go or file
	Name      string `json:"name"`
	Version   string `json:"version"`
	Integrity string `json:"integrity"`
	Registry  string `json:"registry,omitempty"` // "" for the launcher's default registry
}

// Sentinels that an *Error unwraps to (besides context.DeadlineExceeded
// and context.Canceled).
var (
	ErrConnect    = errors.New("cannot connect")             // spawn failed, connection refused, bad URL
	ErrExited     = errors.New("server process exited")      // the stdio server died or closed stdout
	ErrHTTP       = errors.New("HTTP error status")          // a non-2xx reply
	ErrRPC        = errors.New("JSON-RPC error reply")       // the server answered with an error object
	ErrTooLarge   = errors.New("response too large")         // over MaxResponseBytes, MaxListingBytes or MaxTools
	ErrPagination = errors.New("endless tools/list paging")  // repeated cursor or over MaxPages
	ErrProtocol   = errors.New("protocol violation")         // a malformed result
	ErrAuth       = errors.New("authorization required")     // OAuth: no token, and none could be had
	ErrPackage    = errors.New("cannot resolve the package") // the package's file, registry or version could not be read
)

// Stage is the step of a capture at which it failed.
type Stage string

// Stages of one capture, in order.
const (
	StageStart      Stage = "start"      // spawning the process or opening the connection
	StageInitialize Stage = "initialize" // the handshake
	StageList       Stage = "tools/list" // listing the tools
	// Listing prompts, resource templates and resources (only when the
	// server advertises them).
	StagePrompts   Stage = "prompts/list"
	StageTemplates Stage = "resources/templates/list"
	StageResources Stage = "resources/list"
	// StagePackage is resolving the package a stdio server runs (only
	// with Options.Packages).
	StagePackage Stage = "package"
)

// Error is why one server could not be captured. Msg is redacted.
type Error struct {
	Server string // the server's name
	File   string // the config file that defined the server
	Stage  Stage  // where it failed
	Msg    string // what went wrong, redacted
	// Hints is what the user can do about it (redacted), each printed by
	// agentgate as an "agentgate: hint: " line; nil when there is nothing
	// to say. Msg never holds them.
	Hints []string
	// Kind is what Unwrap returns: one of the sentinels above,
	// context.DeadlineExceeded, context.Canceled, or nil.
	Kind error
}

// Error formats e as `server "NAME" (FILE): STAGE: MSG`.
func (e *Error) Error() string {
	where := fmt.Sprintf("server %q", e.Server)
	if e.File != "" {
		where += " (" + e.File + ")"
	}
	return where + ": " + string(e.Stage) + ": " + e.Msg
}

// Unwrap returns the sentinel classifying the error.
func (e *Error) Unwrap() error { return e.Kind }

// version is set at build time with
//
//	go build -ldflags "-X github.com/agentgate/agentgate/mcp/wire.version=v1.2.3" ./cmd/...
//
// (in both binaries: they refuse to talk to a different version).
var version string

// Version returns agentgate's version, which agentgate and agentgate-mcp
// compare (each refuses a peer of another version), and which lockfiles
// record in generatedBy:
//
//   - the value set with -ldflags -X (see above: the release archives);
//   - else the main module's version in the build information: the
//     release for `go install github.com/agentgate/agentgate/cmd/...@v1.2.3`,
//     and for a build from a git checkout with VCS stamping on (go build's
//     default, -buildvcs=auto) the pseudo-version Go stamps from the
//     checkout's commit, "v0.0.0-20261201031216-d19f3972e8e2", with
//     "+dirty" when the work tree had uncommitted changes;
//   - else, when the build information has a VCS revision but no module
//     version, "devel+" and the revision's first 12 hex digits (and
//     "+dirty");
//   - else "devel": a build without VCS information (-buildvcs=false, a
//     git worktree or a source tree outside git) or a test binary.
//
// So two builds from checkouts at different commits refuse each other
// whenever both carry VCS information. Two "devel" builds cannot be told
// apart, nor two "+dirty" builds of one commit: the version check then
// passes, and only building both binaries in one go build or go install
// (what every script and README.md's Install section do) keeps them
// matched; docs/ROUTES.md ("The helper binary") says so.
func Version() string {
	bi, _ := debug.ReadBuildInfo()
	return versionOf(version, bi)
}

// versionOf is Version for a -X value and build information (nil when
// there is none).
func versionOf(x string, bi *debug.BuildInfo) string {
	if x != "" {
		return x
	}
	if bi == nil {
		return "devel"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if rev == "" {
		return "devel"
	}
	v := "devel+" + rev[:min(12, len(rev))]
	if modified == "true" {
		v += "+dirty"
	}
	return v
}
