// Package gitint reads what agentgate needs from a git repository with
// go-git: the repository root, and a file's bytes at HEAD, at a revision and
// in the index.
package gitint
