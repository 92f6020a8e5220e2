package gitint

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// indexFile is what agentgate needs from a git index: the entries, sorted
// by name then stage as git writes them, and the valid cached trees (the
// TREE extension) by directory ("" for the root, otherwise "a/b/").
type indexFile struct {
	entries []*index.Entry
	trees   map[string]plumbing.Hash
}

// decodeIndex reads a git index file, versions 2 to 4, SHA-1 object format.
// It reads only names, modes, object ids, stages and the intent-to-add and
// skip-worktree flags, plus the TREE extension; like git, it does not verify
// the trailing checksum. A split index (the "link" extension) is refused.
func decodeIndex(data []byte) (*indexFile, error) {
	const hashLen = 20
	if len(data) < 12+hashLen || string(data[:4]) != "DIRC" {
		return nil, errors.New("not a git index (no DIRC header)")
	}
	version := binary.BigEndian.Uint32(data[4:8])
	if version < 2 || version > 4 {
		return nil, fmt.Errorf("unsupported git index version %d", version)
	}
	count := binary.BigEndian.Uint32(data[8:12])
	body := data[:len(data)-hashLen]
	if uint64(count) > uint64(len(body))/62 {
		return nil, fmt.Errorf("git index claims %d entries in %d bytes", count, len(body))
	}
	idx := &indexFile{entries: make([]*index.Entry, 0, count)}
	// One allocation for all entries, and (below v4) names as substrings of
	// one copy of the file: the index is read on every commit.
	store := make([]index.Entry, count)
	str := string(body)
	off := 12
	prev := ""
	for k := uint32(0); k < count; k++ {
		start := off
		if off+62 > len(body) {
			return nil, errors.New("git index truncated in an entry")
		}
		e := &store[k]
		e.Mode = filemode.FileMode(binary.BigEndian.Uint32(body[off+24:]))
		copy(e.Hash[:], body[off+40:off+60])
		flags := binary.BigEndian.Uint16(body[off+60:])
		e.Stage = index.Stage(flags>>12) & 3
		off += 62
		if flags&0x4000 != 0 {
			if version < 3 || off+2 > len(body) {
				return nil, errors.New("git index entry has extended flags it cannot have")
			}
			ext := binary.BigEndian.Uint16(body[off:])
			e.SkipWorktree = ext&0x4000 != 0
			e.IntentToAdd = ext&0x2000 != 0
			off += 2
		}
		if version == 4 {
			strip, n := varint(body[off:])
			if n <= 0 || strip > uint64(len(prev)) {
				return nil, errors.New("git index entry has a bad name prefix")
			}
			off += n
			end := bytes.IndexByte(body[off:], 0)
			if end < 0 {
				return nil, errors.New("git index truncated in a name")
			}
			e.Name = prev[:len(prev)-int(strip)] + string(body[off:off+end])
			off += end + 1
		} else {
			end := bytes.IndexByte(body[off:], 0)
			if end < 0 {
				return nil, errors.New("git index truncated in a name")
			}
			e.Name = str[off : off+end]
			// Entries are padded with 1-8 NULs to a multiple of 8 bytes.
			off = start + ((off - start + end + 8) &^ 7)
			if off > len(body) {
				return nil, errors.New("git index truncated in entry padding")
			}
		}
		prev = e.Name
		idx.entries = append(idx.entries, e)
	}
	if err := idx.decodeExtensions(body[off:]); err != nil {
		return nil, err
	}
	return idx, nil
}

// decodeExtensions reads the extensions that follow the entries (each a
// 4-byte signature and a 32-bit size): TREE into idx.trees; "link" (a
// split index) is refused; the others are skipped.
func (idx *indexFile) decodeExtensions(body []byte) error {
	for off := 0; off+8 <= len(body); {
		sig := string(body[off : off+4])
		size := binary.BigEndian.Uint32(body[off+4:])
		off += 8
		if uint64(size) > uint64(len(body)-off) {
			return fmt.Errorf("git index extension %q truncated", sig)
		}
		ext := body[off : off+int(size)]
		off += int(size)
		switch sig {
		case "TREE":
			idx.trees = decodeTrees(ext)
		case "link":
			return hinted(errors.New("split git index is not supported"), "run: git update-index --no-split-index")
		}
	}
	return nil
}

// varint decodes git's offset varint (index v4 name prefixes).
func varint(b []byte) (uint64, int) {
	if len(b) == 0 {
		return 0, 0
	}
	c := b[0]
	v := uint64(c & 127)
	n := 1
	for c&128 != 0 {
		if n >= len(b) || n > 9 {
			return 0, 0
		}
		c = b[n]
		n++
		v = ((v + 1) << 7) | uint64(c&127)
	}
	return v, n
}

// decodeTrees parses a TREE extension: in pre-order, for each directory,
// "<name>\x00<entry count> <subtree count>\n" then, when the entry count is
// not negative, its 20-byte tree id. Invalid (negative count) directories are
// left out of the map but their subtrees keep their place. A malformed
// extension gives nil (no cached trees), never an error: the trees are only
// a shortcut.
func decodeTrees(b []byte) map[string]plumbing.Hash {
	out := map[string]plumbing.Hash{}
	off := 0
	var visit func(dir string, depth int) bool
	visit = func(dir string, depth int) bool {
		if depth > 4096 {
			return false
		}
		nul := bytes.IndexByte(b[off:], 0)
		if nul < 0 {
			return false
		}
		name := string(b[off : off+nul])
		off += nul + 1
		nl := bytes.IndexByte(b[off:], '\n')
		if nl < 0 {
			return false
		}
		fields := strings.Split(string(b[off:off+nl]), " ")
		off += nl + 1
		if len(fields) != 2 {
			return false
		}
		entries, err1 := strconv.Atoi(fields[0])
		trees, err2 := strconv.Atoi(fields[1])
		if err1 != nil || err2 != nil || trees < 0 {
			return false
		}
		if depth > 0 {
			if name == "" || strings.Contains(name, "/") {
				return false
			}
			dir += name + "/"
		} else if name != "" {
			return false
		}
		if entries >= 0 {
			if off+20 > len(b) {
				return false
			}
			var h plumbing.Hash
			copy(h[:], b[off:off+20])
			off += 20
			out[dir] = h
		}
		for k := 0; k < trees; k++ {
			if !visit(dir, depth+1) {
				return false
			}
		}
		return true
	}
	if len(b) == 0 || !visit("", 0) || off != len(b) {
		return nil
	}
	return out
}

// readIndexFile reads and decodes the index at p; a missing file is an
// empty index, as for git.
func readIndexFile(p string) (*indexFile, error) {
	data, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return &indexFile{}, nil
	}
	if err != nil {
		return nil, err
	}
	return decodeIndex(data)
}
