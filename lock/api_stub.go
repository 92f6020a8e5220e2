package lock

// THIS FILE IS A CONTRACT STUB. The owner of package lock replaces every
// panic with an implementation (and may move functions to other files), but
// keeps these exported names and signatures, which other packages build on.

import "io/fs"

// Canonicalize returns the RFC 8785 (JCS) canonical form of one JSON text,
// rejecting input that is not I-JSON (see docs/spec/lockfile.md).
func Canonicalize(raw []byte) ([]byte, error) { panic("todo") }

// HashName, HashDescription, HashInputSchema and SurfaceHash implement the
// four hashing rules.
func HashName(name string) string                { panic("todo") }
func HashDescription(desc *string) string        { panic("todo") }
func HashInputSchema(raw []byte) (string, error) { panic("todo") }
func SurfaceHash(tools []Tool) string            { panic("todo") }

// DecodeTool decodes one element of a tools/list result's "tools" array.
// Errors (*ToolError) say which field is wrong.
func DecodeTool(raw []byte) (ToolDef, error) { panic("todo") }

// BuildServer hashes the tools one server listed into a Server entry,
// sorting them; two tools with one name is an error.
func BuildServer(defs []ToolDef) (Server, error) { panic("todo") }

// New returns a lockfile of the given servers, stamped with s, unless prev
// (may be nil) has an equal surface, in which case prev's generatedBy and
// generatedAt are kept so that the bytes do not change.
func New(servers map[string]Server, s Stamp, prev *Lockfile) *Lockfile { panic("todo") }

// Format returns the canonical bytes of l (2-space indent, spec field order,
// sorted, no HTML escaping, one trailing newline).
func Format(l *Lockfile) []byte { panic("todo") }

// Parse reads a lockfile strictly: version, schema and integrity.
// Errors are *ParseError (JSON path) or *VersionError or *IntegrityError.
func Parse(data []byte) (*Lockfile, error) { panic("todo") }

// WriteFile writes data to path atomically (temp file in the same directory,
// fsync, rename), keeping the existing file's mode (perm for a new file).
func WriteFile(path string, data []byte, perm fs.FileMode) error { panic("todo") }

// Compare returns what changed from old to new, ignoring generatedAt and
// generatedBy. Either may be nil (treated as no servers).
func Compare(old, new *Lockfile) Diff { panic("todo") }

// Diff is a structured comparison of two lockfiles; everything is sorted.
type Diff struct {
	Servers []ServerDiff
}

// Change says how a server or tool differs.
type Change string

const (
	Added   Change = "added"
	Removed Change = "removed"
	Changed Change = "changed"
)

// ServerDiff is one server that differs.
type ServerDiff struct {
	Name   string
	Change Change
	Tools  []ToolDiff // for Added/Removed servers: every tool, as Added/Removed
}

// ToolDiff is one tool that differs. Fields lists, for Changed, which of
// "name", "description", "inputSchema" changed (in that order).
type ToolDiff struct {
	Name   string
	Change Change
	Fields []string
}

// Empty reports whether there is no difference.
func (d Diff) Empty() bool { return len(d.Servers) == 0 }
