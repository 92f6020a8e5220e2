// Package atomicfile replaces a file atomically: a temporary file in the
// same directory, fsync, the old file's mode kept, rename (retried while
// Windows reports the target held open: BusyError), and a directory sync.
// The lockfile, the client configs agentgate edits and the token store are
// all written with WriteFile.
package atomicfile
