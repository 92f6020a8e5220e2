package gitint

import (
	"bytes"
	"errors"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// treeEntry is one entry of a git tree object.
type treeEntry struct {
	name string
	mode filemode.FileMode
	hash plumbing.Hash
}

// commitTree returns the tree id of a commit object: its first line is
// "tree <40 hex digits>".
func commitTree(commit []byte) (plumbing.Hash, error) {
	line, _, _ := bytes.Cut(commit, []byte("\n"))
	id, ok := bytes.CutPrefix(line, []byte("tree "))
	if !ok {
		return plumbing.ZeroHash, errors.New("commit has no tree line")
	}
	h, ok := parseHexID(string(id))
	if !ok {
		return plumbing.ZeroHash, errors.New("commit has a malformed tree id")
	}
	return h, nil
}

// nextTreeEntry decodes the entry at the start of data ("<octal mode>
// <name>\0<20-byte id>") and returns the rest.
func nextTreeEntry(data []byte) (treeEntry, []byte, error) {
	var e treeEntry
	sp := bytes.IndexByte(data, ' ')
	if sp <= 0 || sp > 7 {
		return e, nil, errors.New("malformed tree entry mode")
	}
	var mode uint32
	for _, c := range data[:sp] {
		if c < '0' || c > '7' {
			return e, nil, errors.New("malformed tree entry mode")
		}
		mode = mode<<3 | uint32(c-'0')
	}
	data = data[sp+1:]
	nul := bytes.IndexByte(data, 0)
	if nul <= 0 || nul+21 > len(data) {
		return e, nil, errors.New("malformed tree entry")
	}
	e.mode = filemode.FileMode(mode)
	e.name = string(data[:nul])
	copy(e.hash[:], data[nul+1:nul+21])
	return e, data[nul+21:], nil
}

// parseTree decodes a whole tree object.
func parseTree(data []byte) ([]treeEntry, error) {
	var out []treeEntry
	for len(data) > 0 {
		e, rest, err := nextTreeEntry(data)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
		data = rest
	}
	return out, nil
}

// findTreeEntry returns the entry called name in a tree object.
func findTreeEntry(data []byte, name string) (treeEntry, bool, error) {
	for len(data) > 0 {
		e, rest, err := nextTreeEntry(data)
		if err != nil {
			return e, false, err
		}
		if e.name == name {
			return e, true, nil
		}
		data = rest
	}
	return treeEntry{}, false, nil
}
