package gitint

import (
	"crypto/sha1"
	"sort"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

// indexTrees returns, for directories of the index ("" for the root,
// otherwise "a/b/"), the hash of the tree git write-tree would make of it.
// It uses the index's valid cached trees (the TREE extension, which git
// commit rewrites in full before running the pre-commit hook) when there
// are any, and otherwise hashes the entries itself (SHA-1 only). A
// directory holding an unmerged or intent-to-add entry has no tree and is
// left out, as are its ancestors.
//
// StagedChanges uses these hashes only to skip subtrees equal to HEAD's, so
// a missing or wrong hash costs time, never a missed change.
func indexTrees(idx *indexFile) map[string]plumbing.Hash {
	if len(idx.trees) > 0 {
		return idx.trees
	}
	type node struct {
		files []treeItem
		dirs  map[string]*node
		bad   bool
	}
	root := &node{}
	for _, e := range idx.entries {
		n := root
		name := e.Name
		for {
			i := strings.IndexByte(name, '/')
			if i < 0 {
				break
			}
			if n.dirs == nil {
				n.dirs = map[string]*node{}
			}
			c := n.dirs[name[:i]]
			if c == nil {
				c = &node{}
				n.dirs[name[:i]] = c
			}
			n, name = c, name[i+1:]
		}
		if e.Stage != 0 || e.IntentToAdd || e.SkipWorktree && e.Mode == 0o40000 {
			n.bad = true
			continue
		}
		n.files = append(n.files, treeItem{name: name, sortKey: name, mode: uint32(e.Mode), hash: e.Hash})
	}
	out := map[string]plumbing.Hash{}
	var hash func(n *node, dir string) (plumbing.Hash, bool)
	hash = func(n *node, dir string) (plumbing.Hash, bool) {
		items := n.files
		ok := !n.bad
		for name, c := range n.dirs {
			h, cok := hash(c, dir+name+"/")
			if !cok {
				ok = false
				continue
			}
			items = append(items, treeItem{name: name, sortKey: name + "/", mode: 0o40000, hash: h})
		}
		if !ok || len(items) == 0 {
			return plumbing.ZeroHash, false
		}
		h := treeHash(items)
		out[dir] = h
		return h, true
	}
	hash(root, "")
	return out
}

type treeItem struct {
	name, sortKey string
	mode          uint32
	hash          plumbing.Hash
}

// treeHash is the git object id of a tree with these entries: SHA-1 of
// "tree <len>\x00" followed by "<octal mode> <name>\x00<20-byte id>" per
// entry, in the order of names with "/" appended to directories.
func treeHash(items []treeItem) plumbing.Hash {
	sort.Slice(items, func(i, j int) bool { return items[i].sortKey < items[j].sortKey })
	var body []byte
	for _, it := range items {
		body = strconv.AppendUint(body, uint64(it.mode), 8)
		body = append(body, ' ')
		body = append(body, it.name...)
		body = append(body, 0)
		body = append(body, it.hash[:]...)
	}
	h := sha1.New()
	h.Write([]byte("tree " + strconv.Itoa(len(body)) + "\x00"))
	h.Write(body)
	var out plumbing.Hash
	copy(out[:], h.Sum(nil))
	return out
}
