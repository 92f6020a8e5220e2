// Package config discovers the MCP client configuration files committed in a
// repository, parses each with its client's own rules (seeing through the
// agentgate guard wrapper), applies agentgate.toml, and returns the servers
// to lock. Variables are not expanded here: a Server keeps its templates,
// and Resolve expands them at connect time, listing the values that
// Redact must remove. It only reads: mcp/configedit edits the files,
// mcp/guardargs defines guard's command line, mcp/launcher recognises the
// package a command runs, and mcp/config/syntax is how values are written.
package config

import (
	"time"

	"github.com/agentgate/agentgate/triage"

	"github.com/agentgate/agentgate/mcp/config/syntax"
	"github.com/agentgate/agentgate/mcp/guardargs"
)

// Transport is how agentgate reaches a server.
type Transport string

const (
	Stdio          Transport = "stdio"
	StreamableHTTP Transport = "http" // streamable HTTP
	SSE            Transport = "sse"  // legacy HTTP+SSE (2024-11-05)
)

// Server is one server definition, as written in a client config, with
// variable references left unexpanded.
type Server struct {
	Name   string // key in the client config; the lockfile key
	Client string // e.g. "claude-code", "vscode", "codex"
	File   string // slash-separated path relative to the repository root (or absolute for extra files outside it)
	Line   int    // 1-based position of the server's entry in File, 0 if unknown
	Column int

	Transport Transport
	// FallbackSSE: try streamable HTTP first and fall back to SSE, as this
	// client does (Cursor, VS Code, Gemini, Continue for bare url).
	FallbackSSE bool

	Command string
	Args    []string
	Env     map[string]string // values are templates
	EnvVars []string          // names forwarded from agentgate's environment (Codex env_vars)
	EnvFile string            // template; dotenv file read at Resolve (Cursor, VS Code "envFile"); "" if none
	Cwd     string            // template; "" means the repository root

	URL     string            // template
	Headers map[string]string // values are templates
	// EnvHeaders maps a header name to the environment variable holding its
	// value (Codex env_http_headers).
	EnvHeaders map[string]string
	// BearerTokenEnvVar names the environment variable whose value is sent
	// as "Authorization: Bearer <value>" (Codex bearer_token_env_var).
	BearerTokenEnvVar string
	// HeadersHelper is Codex's http_headers_helper as written: a command
	// Codex runs to compute the request headers when it connects.
	// agentgate does not run it: Resolve refuses the server (could not
	// verify) rather than connect without those headers.
	HeadersHelper string `json:",omitempty"`

	Syntax syntax.Vars // which interpolation syntax the templates use

	Timeout time.Duration // from agentgate.toml; 0 means the run's default
	// MaxListingBytes and MaxTools bound this server's tools/list listing
	// (all pages) from agentgate.toml; 0 means the run's default.
	MaxListingBytes int64
	MaxTools        int
	// CrossOriginRedirects lets an HTTP server redirect to another origin
	// (scheme, host, port), from agentgate.toml; false: such a redirect is
	// an error.
	CrossOriginRedirects bool
	// LockResources asks capture for resources/list too (agentgate.toml:
	// [servers.NAME] resources = true; lockfile version 2 only).
	LockResources bool `json:",omitempty"`

	// OAuth is agentgate.toml's [servers.NAME.oauth], nil when absent.
	OAuth *OAuth

	// ClientCapabilities are the client capabilities capture declares in
	// initialize (ClientCapabilityNames: "elicitation", "roots",
	// "sampling"), sorted, from agentgate.toml's client-capabilities
	// ([servers.NAME] over the top level); nil: none, as before the key.
	ClientCapabilities []string `json:",omitempty"`

	// Guard is the agentgate guard wrapper the entry runs the server
	// under (see Guard), nil when it does not; Command, Args, URL and
	// Headers are then the wrapped server's.
	Guard *guardargs.Guard `json:",omitempty"`

	// AlsoIn lists "file:line" of other files with the same name and the
	// same effective definition, merged into this one. Sorted.
	AlsoIn []string
	// RenamedFrom is the name in the client config when an agentgate.toml
	// [[rename]] locks the server under Name; "" otherwise.
	RenamedFrom string
	// Notes says how another client that reads the same file would start
	// this server differently (VS Code reading Claude Code's .mcp.json);
	// agentgate locks the reading of Client. Not part of the definition, and
	// not sent to the helper with a resolved server (json:"-").
	Notes []string `json:"-"`
}

// Conflict is a server name defined differently in several files (Load
// fails; Inspect reports it).
type Conflict struct {
	Name  string
	Field string   // the first field that differs
	Defs  []Server // every definition of the name, in file order
}

// Skipped is a server that is configured but not locked, and why.
type Skipped struct {
	Name   string
	File   string
	Line   int    // 0 when unknown
	Reason string // e.g. "disabled (enabled = false)", "excluded in agentgate.toml: <reason>"
	// Excluded: skipped by agentgate.toml ([servers.NAME] exclude), not by
	// the client's own settings.
	Excluded bool
	// Def is the definition of an excluded server (its first file's); nil
	// for a server its client disables, whose entry is not read.
	Def *Server
}

// Project is everything agentgate reads from one repository's configs.
type Project struct {
	Root     string
	Settings Settings
	Files    []string  // config files read, sorted
	Servers  []Server  // enabled servers, one per name, sorted by name
	Skipped  []Skipped // sorted by name
	// Conflicts is filled by Inspect only (Load fails instead); sorted by name.
	Conflicts []Conflict
}

// Settings is agentgate.toml. See docs/config.md for every key.
type Settings struct {
	File        string        // "agentgate.toml" if the file exists, else ""
	Lockfile    string        // path relative to root; default "agentgate.lock"
	Timeout     time.Duration // default per-server timeout; 0 = built-in default
	Concurrency int           // 0 = built-in default
	// MaxListingBytes and MaxTools bound each server's listing; 0 =
	// built-in default (wire.DefaultMaxListingBytes, wire.DefaultMaxTools).
	MaxListingBytes int64
	MaxTools        int
	Hook            string // "changed" (the default: only the servers the commit changes) or HookAll

	Ignore  []string                  // path.Match patterns (slash paths relative to root) of config files not to read
	Extra   []ExtraFile               // further config files to read
	Servers map[string]ServerSettings // by server name
	Inputs  map[string]Input          // VS Code ${input:id} answers, by id
	Renames []Rename                  // lock a server of one file under another name
	// NoDefinitions is `definitions = false`: a version 2 lockfile keeps
	// hashes only, no readable definitions.
	NoDefinitions bool
	// ClientCapabilities is the top-level client-capabilities: the
	// capabilities capture declares for every server without its own
	// (sorted; nil when absent).
	ClientCapabilities []string
	// RequirePinnedPackages is `require-pinned-packages = true`: verify
	// fails (exit 1) when a stdio server runs a package spec without an
	// exact version or a command no package can be attributed to.
	RequirePinnedPackages bool
	// AllowUnpinnedPackage is `allow-unpinned-package = true`: agentgate
	// guard starts a command that runs another package than the lockfile
	// pins, with a warning, instead of refusing it (guard's
	// --allow-unpinned-package; [servers.NAME] has the key too).
	AllowUnpinnedPackage bool

	pos map[string]pos // positions of tables, for errors
}

// ExtraFile is a config file agentgate does not discover by itself.
type ExtraFile struct {
	Path     string // as written: relative to the root, "~/..." or absolute
	Format   string // a client name, see Formats
	Optional bool   // a missing file is not an error
}

// ServerSettings are agentgate.toml's [servers.NAME] keys.
type ServerSettings struct {
	Exclude string        // non-empty: do not lock; the reason is printed
	Timeout time.Duration // 0 = Settings.Timeout
	// MaxListingBytes and MaxTools: 0 = Settings'.
	MaxListingBytes int64
	MaxTools        int
	// CrossOriginRedirects: follow redirects to another origin.
	CrossOriginRedirects bool
	// AllowUnpinnedPackage: Settings.AllowUnpinnedPackage for this server.
	AllowUnpinnedPackage bool
	// Resources locks the server's static resources (resources/list) in a
	// version 2 lockfile.
	Resources bool
	// Labels are [servers.NAME.labels]: triage labels raised, lowered or
	// silenced on this server (see docs/config.md#labels); nil when absent.
	Labels []triage.Override
	// IgnoreMembers are member paths of tool, prompt and template
	// definitions ("_meta", "icons", "annotations.title") whose changes
	// are not drift (see docs/spec/lockfile-v2.md).
	IgnoreMembers []string
	// OAuth is [servers.NAME.oauth]; nil when absent.
	OAuth *OAuth
	// ClientCapabilities is [servers.NAME] client-capabilities: nil when
	// absent (Settings.ClientCapabilities applies), else this server's
	// (an empty list: none).
	ClientCapabilities []string
}

// OAuth is agentgate.toml's [servers.NAME.oauth] (see docs/AUTH.md).
type OAuth struct {
	ClientID        string   // client-id: a pre-registered client, or a client ID metadata document URL
	ClientSecretEnv string   // client-secret-env: the variable holding the client secret
	Grant           string   // grant: "authorization_code" (default) or "client_credentials"
	Scopes          []string // scopes: overrides the scopes the server asks for
}

// Input answers a VS Code ${input:id}: from the environment variable Env,
// or the literal Value (for values that are not secret).
type Input struct {
	Env   string
	Value string
}

// Rename locks server Server of File under the name To.
type Rename struct {
	File, Server, To string
}

// Resolved is a Server with every variable expanded, ready to connect.
// Secrets lists the resolved values that must never be printed (env values,
// header values, URL userinfo and query values); Redact removes them.
type Resolved struct {
	Server
	Secrets []string
	// Files lists, absolute and in the order read, every file whose
	// content went into the resolution: the envFile and each opencode
	// {file:path}. agentgate ci --trusted-ref compares those inside the
	// repository with the trusted revision.
	Files []string
	// OAuthClientSecret is the value of OAuth.ClientSecretEnv ("" when
	// not configured); it is in Secrets too.
	OAuthClientSecret string `json:",omitempty"`
}
