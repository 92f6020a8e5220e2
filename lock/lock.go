// Package lock holds the agentgate.lock format, versions 1 and 2: its
// types, the hashing rules, a byte-deterministic writer, a strict reader
// (one validating JSON scanner for reading, canonical form and hashing), a
// structured comparison, a per-server three-way merge and an atomic file
// write. It is usable as a library without the agentgate command: Parse
// reads a lockfile of either version, DecodeServer (or DecodeTool and
// BuildServer) hashes what a server listed, New assembles a lockfile of
// the version asked for, and Format writes one as its own version says.
//
// The format is specified in docs/spec/lockfile.md (version 1) and
// docs/spec/lockfile-v2.md (version 2); the doc comment of each hash
// function is its specification.
package lock

import (
	"encoding/json"
	"fmt"
	"time"
)

// The lockfile versions this package reads and writes: the values of
// lockfileVersion, and the version argument of New, BuildServer,
// DecodeServer, DecodeTool and HashInputSchema.
const (
	Version1 = 1 // docs/spec/lockfile.md: each tool's field hashes
	Version2 = 2 // docs/spec/lockfile-v2.md: everything the model reads
)

// checkVersion returns nil for Version1 or Version2, and otherwise an
// error naming version.
func checkVersion(version int) error {
	if version != Version1 && version != Version2 {
		return fmt.Errorf("lockfile version %d: this package writes version %d or %d", version, Version1, Version2)
	}
	return nil
}

// FileName is the default lockfile name, at the repository root.
const FileName = "agentgate.lock"

// Lockfile is one agentgate.lock, format version 1 or 2 (LockfileVersion).
type Lockfile struct {
	LockfileVersion int               `json:"lockfileVersion"` // Version1 or Version2
	GeneratedBy     string            `json:"generatedBy"`     // the writer, e.g. agentgate@v1.2.3; not compared
	GeneratedAt     string            `json:"generatedAt"`     // RFC 3339 date-time; TimeLayout when written; not compared
	Servers         map[string]Server `json:"servers"`         // by server name from the client configs
}

// Server is the locked surface of one MCP server. The fields after Tools
// are version 2 only (zero in a version 1 lockfile); see ServerV2Fields.
type Server struct {
	SurfaceHash string `json:"surfaceHash"` // SurfaceHash of Tools
	Tools       []Tool `json:"tools"`       // sorted by Name as UTF-8 bytes, never nil when written

	ServerV2Fields
}

// Tool is one locked tool. DefinitionHash and Definition are version 2
// only.
type Tool struct {
	Name            string `json:"name"`            // the tool's name as listed, not empty
	NameHash        string `json:"nameHash"`        // HashName(Name)
	DescriptionHash string `json:"descriptionHash"` // HashDescription of the listed description
	InputSchemaHash string `json:"inputSchemaHash"` // HashInputSchema of the listed inputSchema

	// DefinitionHash is the tool definition hash of the tool object as the
	// server sent it (see DefinitionHash).
	DefinitionHash string `json:"definitionHash,omitempty"`
	// Definition is that object's canonical form (DefinitionCanonical),
	// "" when the lockfile keeps hashes only.
	Definition string `json:"definition,omitempty"`
}

// ToolDef is one tool as a server listed it, decoded only as far as the
// three hashed fields. Raw keeps the whole object exactly as sent. It is
// plain data: BuildServer hashes whatever its fields hold when it is
// called.
type ToolDef struct {
	Name        string          // the "name" member, decoded
	Description *string         // nil when absent or null
	InputSchema json.RawMessage // nil when absent or null; otherwise the raw bytes
	Raw         json.RawMessage // the whole tool object as listed
	// Sent, when not nil, says that Description, InputSchema and Raw are
	// the tool's text redacted (RedactDefinition), and holds the hashes
	// of the tool as the server sent it, which BuildServer pins instead
	// of hashing the redacted text.
	Sent *SentHashes
}

// Stamp is what a writer puts in generatedBy and generatedAt.
type Stamp struct {
	By string    // e.g. "agentgate@v1.2.3"
	At time.Time // formatted as RFC 3339 UTC with milliseconds
}
