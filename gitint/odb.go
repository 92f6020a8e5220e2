package gitint

import (
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/agentgate/agentgate/internal/sys/mmap"
	"github.com/go-git/go-git/v5/plumbing"
)

// Object types, as numbered in pack files.
const (
	objCommit   = 1
	objTree     = 2
	objBlob     = 3
	objTag      = 4
	objOfsDelta = 6
	objRefDelta = 7
)

var typeNames = [...]string{objCommit: "commit", objTree: "tree", objBlob: "blob", objTag: "tag"}

// errFastUnsupported means the fast reader does not handle this object or
// repository; the caller falls back to go-git.
var errFastUnsupported = errors.New("not handled by the fast object reader")

// objects is a small, read-only reader for one SHA-1 object directory:
// loose objects (zlib) and pack files through their version 2 .idx files,
// with OFS_DELTA and REF_DELTA chains, in the directory and in the object
// directories objects/info/alternates names (as git clone --shared and
// --reference make them). It reads only the parts of the index
// and pack files that the requested objects need (a fanout bucket, an
// offset, the entries of one delta chain), so its cost does not grow with
// the size of the repository, unlike go-git's, which decodes a whole pack
// index on the first lookup.
//
// Every object it returns is verified: the SHA-1 of its header and content
// must be the requested id. Anything it does not handle (an index version
// other than 2, an object larger than maxObjectSize, a missing object, a
// damaged file) is errFastUnsupported or an error, and the caller reads
// the object with go-git instead, so correctness never depends on this
// reader.
type objects struct {
	dirs   []string // .../objects, then its alternates
	packs  []*pack
	listed bool
	zr     io.ReadCloser // reused zlib reader
}

// pack is one pack file and its index, opened on first use. Both are
// mapped into memory when the platform allows (then only the pages touched
// are read, with no system call per read), else read with ReadAt.
type pack struct {
	idxPath, packPath string
	idx, data         io.ReaderAt
	idxMap, dataMap   []byte // the mappings, unmapped by close
	size              int64  // of the pack file
	fanout            [256]uint32
	loaded            bool
	err               error
}

// openMapped opens path for reading through a mapping, or the file itself.
func openMapped(path string) (io.ReaderAt, []byte, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, 0, err
	}
	if m := mmap.Map(f, fi.Size()); m != nil {
		f.Close() // the mapping stays valid
		return bytes.NewReader(m), m, fi.Size(), nil
	}
	return f, nil, fi.Size(), nil
}

// maxDeltaDepth bounds delta chains (git's default is 50, --aggressive 250).
const maxDeltaDepth = 10000

// maxObjectSize bounds what the fast reader inflates (larger: go-git).
const maxObjectSize = 1 << 30

// newObjects reads the object directory dir and its alternates (nested up
// to a depth of 5, as git allows).
func newObjects(dir string) *objects {
	o := &objects{}
	var add func(d string, depth int)
	add = func(d string, depth int) {
		d = filepath.Clean(d)
		for _, have := range o.dirs {
			if have == d {
				return
			}
		}
		o.dirs = append(o.dirs, d)
		b, err := os.ReadFile(filepath.Join(d, "info", "alternates"))
		if err != nil || depth >= 5 {
			return
		}
		for _, line := range strings.Split(string(b), "\n") {
			line = strings.TrimSpace(line)
			if line == "" || line[0] == '#' {
				continue
			}
			if !filepath.IsAbs(line) {
				line = filepath.Join(d, line)
			}
			add(line, depth+1)
		}
	}
	add(dir, 0)
	return o
}

// close closes or unmaps the pack files it opened (Repo.Close calls it; no
// slice of a mapping outlives it, as inflate and applyDelta copy); o must
// not be used afterwards.
func (o *objects) close() {
	for _, p := range o.packs {
		for _, r := range []io.ReaderAt{p.idx, p.data} {
			if c, ok := r.(io.Closer); ok {
				c.Close()
			}
		}
		mmap.Unmap(p.idxMap)
		mmap.Unmap(p.dataMap)
		p.idx, p.data, p.idxMap, p.dataMap = nil, nil, nil, nil
	}
	o.packs = nil
}

// read returns the type and content of object h.
func (o *objects) read(h plumbing.Hash) (int, []byte, error) {
	typ, data, err := o.readUnverified(h, 0)
	if err != nil {
		return 0, nil, err
	}
	if objectID(typ, data) != h {
		return 0, nil, fmt.Errorf("object %s: content does not match its id: %w", h, errFastUnsupported)
	}
	return typ, data, nil
}

// objectID is the git object id of an object: SHA-1 of "<type> <size>\0"
// and the content.
func objectID(typ int, data []byte) plumbing.Hash {
	h := sha1.New()
	h.Write([]byte(typeNames[typ] + " " + strconv.Itoa(len(data)) + "\x00"))
	h.Write(data)
	var id plumbing.Hash
	h.Sum(id[:0])
	return id
}

func (o *objects) readUnverified(h plumbing.Hash, depth int) (int, []byte, error) {
	if depth > maxDeltaDepth {
		return 0, nil, fmt.Errorf("object %s: delta chain too deep: %w", h, errFastUnsupported)
	}
	hex := h.String()
	for _, d := range o.dirs {
		raw, err := os.ReadFile(filepath.Join(d, hex[:2], hex[2:]))
		if err == nil {
			return o.loose(h, raw)
		}
		if !errors.Is(err, os.ErrNotExist) {
			return 0, nil, err
		}
	}
	if err := o.listPacks(); err != nil {
		return 0, nil, err
	}
	for _, p := range o.packs {
		off, found, err := p.find(h)
		if err != nil {
			return 0, nil, err
		}
		if found {
			return o.packed(p, off, depth)
		}
	}
	return 0, nil, fmt.Errorf("object %s: not found: %w", h, errFastUnsupported)
}

// loose decodes a loose object file: zlib of "<type> <size>\0<content>".
func (o *objects) loose(h plumbing.Hash, raw []byte) (int, []byte, error) {
	data, err := o.inflate(bytes.NewReader(raw), -1)
	if err != nil {
		return 0, nil, fmt.Errorf("loose object %s: %w", h, err)
	}
	typ, body, err := parseLooseHeader(data)
	if err != nil {
		return 0, nil, fmt.Errorf("loose object %s: %w", h, err)
	}
	return typ, body, nil
}

// parseLooseHeader splits an inflated loose object into type and content.
func parseLooseHeader(data []byte) (int, []byte, error) {
	nul := bytes.IndexByte(data, 0)
	if nul < 0 || nul > 32 {
		return 0, nil, errors.New("no object header")
	}
	name, size, ok := bytes.Cut(data[:nul], []byte(" "))
	if !ok {
		return 0, nil, errors.New("bad object header")
	}
	typ := 0
	for t, n := range typeNames {
		if n != "" && string(name) == n {
			typ = t
		}
	}
	n, err := strconv.Atoi(string(size))
	if typ == 0 || err != nil || n != len(data)-nul-1 || (len(size) > 1 && size[0] == '0') {
		return 0, nil, fmt.Errorf("bad object header %q", data[:nul])
	}
	return typ, data[nul+1:], nil
}

// inflate decompresses one zlib stream from r; size is the expected length
// (-1: unknown, up to maxObjectSize).
func (o *objects) inflate(r io.Reader, size int64) ([]byte, error) {
	var err error
	if o.zr == nil {
		o.zr, err = zlib.NewReader(r)
	} else {
		err = o.zr.(zlib.Resetter).Reset(r, nil)
	}
	if err != nil {
		return nil, err
	}
	if size < 0 {
		var buf bytes.Buffer
		n, err := buf.ReadFrom(io.LimitReader(o.zr, maxObjectSize+1))
		if err != nil {
			return nil, err
		}
		if n > maxObjectSize {
			return nil, errFastUnsupported
		}
		return buf.Bytes(), nil
	}
	out := make([]byte, size)
	if _, err := io.ReadFull(o.zr, out); err != nil {
		return nil, fmt.Errorf("inflate %d bytes: %w", size, err)
	}
	// The stream must end here (which also checks its Adler-32).
	var one [1]byte
	for k := 0; ; k++ {
		n, err := o.zr.Read(one[:])
		if n > 0 || k > 100 {
			return nil, fmt.Errorf("zlib stream longer than %d bytes", size)
		}
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// listPacks finds the pack indexes, once.
func (o *objects) listPacks() error {
	if o.listed {
		return nil
	}
	o.listed = true
	for _, d := range o.dirs {
		des, err := os.ReadDir(filepath.Join(d, "pack"))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		for _, de := range des {
			name := de.Name()
			if filepath.Ext(name) != ".idx" || !strings.HasPrefix(name, "pack-") {
				continue
			}
			base := filepath.Join(d, "pack", strings.TrimSuffix(name, ".idx"))
			o.packs = append(o.packs, &pack{idxPath: base + ".idx", packPath: base + ".pack"})
		}
	}
	return nil
}
