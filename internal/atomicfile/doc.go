// Package atomicfile replaces a file atomically: a temporary file in the
// same directory, fsync, the old file's mode kept, rename (retried while
// Windows reports the target held open: BusyError), and a directory sync.
// The lockfile and the token store are written with WriteFile; the client
// configs agentgate edits with WriteFiles, which replaces several files all
// or none (Prepare each, then Commit each, the replaced ones put back when
// a later one fails).
package atomicfile
