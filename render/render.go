// Package render turns lockfile comparisons into text a reviewer reads: a
// minimal unified diff, a per-server summary, and untrusted server text
// (descriptions, schemas) with control, bidi and invisible characters made
// visible.
package render
