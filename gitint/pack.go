package gitint

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/go-git/go-git/v5/plumbing"
)

// Pack index version 2: "\377tOc", version 2, 256 fanout counts, then the
// sorted object ids, their CRCs, their 4-byte offsets (high bit: index into
// the table of 8-byte offsets that follows) and a trailer.
const (
	idxHeader  = 8
	idxFanout  = idxHeader + 256*4
	idxHashLen = 20
)

// load opens the index and reads its header and fanout table.
func (p *pack) load() error {
	if p.loaded {
		return p.err
	}
	p.loaded = true
	p.err = func() error {
		f, m, _, err := openMapped(p.idxPath)
		if err != nil {
			return err
		}
		p.idx, p.idxMap = f, m
		var b [idxFanout]byte
		if _, err := f.ReadAt(b[:], 0); err != nil {
			return fmt.Errorf("%s: %w", p.idxPath, err)
		}
		if string(b[:4]) != "\xfftOc" || binary.BigEndian.Uint32(b[4:8]) != 2 {
			return fmt.Errorf("%s: not a version 2 pack index: %w", p.idxPath, errFastUnsupported)
		}
		var prev uint32
		for i := range p.fanout {
			p.fanout[i] = binary.BigEndian.Uint32(b[idxHeader+4*i:])
			if p.fanout[i] < prev {
				return fmt.Errorf("%s: fanout table not sorted: %w", p.idxPath, errFastUnsupported)
			}
			prev = p.fanout[i]
		}
		return nil
	}()
	return p.err
}

// find returns the pack offset of h, reading only the fanout bucket of h's
// first byte and one or two offsets.
func (p *pack) find(h plumbing.Hash) (int64, bool, error) {
	if err := p.load(); err != nil {
		return 0, false, err
	}
	lo := uint32(0)
	if h[0] > 0 {
		lo = p.fanout[h[0]-1]
	}
	hi, n := p.fanout[h[0]], p.fanout[255]
	if lo == hi {
		return 0, false, nil
	}
	ids := make([]byte, int(hi-lo)*idxHashLen)
	if _, err := p.idx.ReadAt(ids, idxFanout+int64(lo)*idxHashLen); err != nil {
		return 0, false, fmt.Errorf("%s: %w", p.idxPath, err)
	}
	k := sort.Search(int(hi-lo), func(i int) bool {
		return bytes.Compare(ids[i*idxHashLen:(i+1)*idxHashLen], h[:]) >= 0
	})
	if k == int(hi-lo) || !bytes.Equal(ids[k*idxHashLen:(k+1)*idxHashLen], h[:]) {
		return 0, false, nil
	}
	i := int64(lo) + int64(k)
	var b [8]byte
	offs := idxFanout + int64(n)*(idxHashLen+4)
	if _, err := p.idx.ReadAt(b[:4], offs+i*4); err != nil {
		return 0, false, fmt.Errorf("%s: %w", p.idxPath, err)
	}
	off := binary.BigEndian.Uint32(b[:4])
	if off&0x80000000 == 0 {
		return int64(off), true, nil
	}
	if _, err := p.idx.ReadAt(b[:], offs+int64(n)*4+int64(off&0x7fffffff)*8); err != nil {
		return 0, false, fmt.Errorf("%s: %w", p.idxPath, err)
	}
	big := binary.BigEndian.Uint64(b[:])
	if big >= 1<<62 {
		return 0, false, fmt.Errorf("%s: bad offset: %w", p.idxPath, errFastUnsupported)
	}
	return int64(big), true, nil
}

// packed reads the object at off in p, resolving deltas.
func (o *objects) packed(p *pack, off int64, depth int) (int, []byte, error) {
	if p.data == nil {
		f, m, size, err := openMapped(p.packPath)
		if err != nil {
			return 0, nil, err
		}
		p.data, p.dataMap, p.size = f, m, size
	}
	var hb [32]byte
	n, err := p.data.ReadAt(hb[:], off)
	if n == 0 && err != nil {
		return 0, nil, fmt.Errorf("%s at %d: %w", p.packPath, off, err)
	}
	e, err := parseEntryHeader(hb[:n], off)
	if err != nil {
		return 0, nil, fmt.Errorf("%s at %d: %w", p.packPath, off, err)
	}
	// Deflate expands at most about 1032 times: a size no rest of the pack
	// can hold is damage, not a reason to allocate it.
	if e.size > maxObjectSize || e.size > (p.size-off)*1032+64 {
		return 0, nil, fmt.Errorf("%s at %d: object of %d bytes: %w", p.packPath, off, e.size, errFastUnsupported)
	}
	var zr io.Reader
	if p.dataMap != nil {
		zr = bytes.NewReader(p.dataMap[off+int64(e.hdrLen):])
	} else {
		zr = bufio.NewReaderSize(io.NewSectionReader(p.data, off+int64(e.hdrLen), 1<<62), 4096)
	}
	body, err := o.inflate(zr, e.size)
	if err != nil {
		return 0, nil, fmt.Errorf("%s at %d: %w", p.packPath, off, err)
	}
	var typ int
	var base []byte
	switch e.typ {
	case objCommit, objTree, objBlob, objTag:
		return e.typ, body, nil
	case objOfsDelta:
		typ, base, err = o.packed(p, e.baseOff, depth+1)
	case objRefDelta:
		typ, base, err = o.readUnverified(e.baseID, depth+1)
	}
	if err != nil {
		return 0, nil, err
	}
	out, err := applyDelta(base, body)
	if err != nil {
		return 0, nil, fmt.Errorf("%s at %d: %w", p.packPath, off, err)
	}
	return typ, out, nil
}

// entryHeader is a pack entry's header: type, inflated size, and for a
// delta its base (an earlier offset in the same pack, or an object id).
type entryHeader struct {
	typ     int
	size    int64
	hdrLen  int
	baseOff int64
	baseID  plumbing.Hash
}

// parseEntryHeader decodes the entry header at the start of b (the entry
// is at pack offset off).
func parseEntryHeader(b []byte, off int64) (entryHeader, error) {
	var e entryHeader
	if len(b) == 0 {
		return e, errors.New("truncated pack entry")
	}
	c := b[0]
	e.typ = int(c>>4) & 7
	e.size = int64(c & 15)
	i, shift := 1, 4
	for c&0x80 != 0 {
		if i >= len(b) || shift > 56 {
			return e, errors.New("bad pack entry size")
		}
		c = b[i]
		i++
		e.size |= int64(c&0x7f) << shift
		shift += 7
	}
	switch e.typ {
	case objCommit, objTree, objBlob, objTag:
	case objOfsDelta:
		if i >= len(b) {
			return e, errors.New("truncated delta offset")
		}
		c = b[i]
		i++
		rel := int64(c & 0x7f)
		for c&0x80 != 0 {
			if i >= len(b) || rel >= 1<<55 {
				return e, errors.New("bad delta offset")
			}
			c = b[i]
			i++
			rel = (rel+1)<<7 | int64(c&0x7f)
		}
		if rel <= 0 || rel > off {
			return e, fmt.Errorf("delta base offset %d out of range", rel)
		}
		e.baseOff = off - rel
	case objRefDelta:
		if i+20 > len(b) {
			return e, errors.New("truncated delta base id")
		}
		copy(e.baseID[:], b[i:i+20])
		i += 20
	default:
		return e, fmt.Errorf("pack entry of unknown type %d", e.typ)
	}
	e.hdrLen = i
	return e, nil
}

// applyDelta applies a git delta to base: the two sizes (varints), then
// copy instructions (high bit set: offset and size bytes selected by the
// low 7 bits; size 0 means 0x10000) and insert instructions (1-127 literal
// bytes).
func applyDelta(base, delta []byte) ([]byte, error) {
	src, i, err := deltaSize(delta, 0)
	if err != nil {
		return nil, err
	}
	dst, i, err := deltaSize(delta, i)
	if err != nil {
		return nil, err
	}
	if src != len(base) {
		return nil, fmt.Errorf("delta expects a base of %d bytes, got %d", src, len(base))
	}
	if dst > maxObjectSize {
		return nil, errors.New("delta result too large")
	}
	// Each instruction byte makes at most 0x10000 bytes: a damaged delta
	// cannot make this allocate more than its own size allows.
	out := make([]byte, 0, min(dst, 0x10000*(len(delta)-i)))
	for i < len(delta) {
		op := delta[i]
		i++
		switch {
		case op&0x80 != 0:
			var cpOff, cpLen int
			if cpOff, cpLen, i, err = deltaCopy(op, delta, i); err != nil {
				return nil, err
			}
			if cpOff+cpLen > len(base) || len(out)+cpLen > dst {
				return nil, errors.New("delta copy out of range")
			}
			out = append(out, base[cpOff:cpOff+cpLen]...)
		case op != 0:
			if i+int(op) > len(delta) || len(out)+int(op) > dst {
				return nil, errors.New("delta insert out of range")
			}
			out = append(out, delta[i:i+int(op)]...)
			i += int(op)
		default:
			return nil, errors.New("reserved delta instruction 0")
		}
	}
	if len(out) != dst {
		return nil, fmt.Errorf("delta made %d bytes, want %d", len(out), dst)
	}
	return out, nil
}

// deltaSize reads the size varint at delta[i:] (7 bits a byte, low
// first, high bit set on all but the last) and returns it and the index
// after it.
func deltaSize(delta []byte, i int) (v, next int, err error) {
	for shift := 0; ; shift += 7 {
		if i >= len(delta) || shift > 56 {
			return 0, 0, errors.New("truncated delta size")
		}
		c := delta[i]
		i++
		v |= int(c&0x7f) << shift
		if c&0x80 == 0 {
			return v, i, nil
		}
	}
}

// deltaCopy reads the operands of copy instruction op from delta[i:]: the
// offset bytes op's bits 0-3 select and the size bytes bits 4-6 select,
// low byte first (size 0 means 0x10000), and returns the index after them.
func deltaCopy(op byte, delta []byte, i int) (off, size, next int, err error) {
	for k := 0; k < 7; k++ {
		if op&(1<<k) == 0 {
			continue
		}
		if i >= len(delta) {
			return 0, 0, 0, errors.New("truncated delta copy")
		}
		if k < 4 {
			off |= int(delta[i]) << (8 * k)
		} else {
			size |= int(delta[i]) << (8 * (k - 4))
		}
		i++
	}
	if size == 0 {
		size = 0x10000
	}
	return off, size, i, nil
}
