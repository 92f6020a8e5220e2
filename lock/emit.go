package lock

import (
	"crypto/sha256"
	"hash"
)

// isNull reports whether tape[idx] is the literal null.
func (f *scanner) isNull(idx int) bool {
	e := f.tape[idx]
	return e.kind == kindVerbatim && string(f.in[e.a:e.b]) == "null"
}

// hashMember returns the SHA-256 of the canonical form of m's value.
func (f *scanner) hashMember(m member) [32]byte {
	if m.v < 0 {
		return sha256.Sum256(f.in[m.vs:m.ve])
	}
	return f.hashValue(int(m.v))
}

// hashValue returns the SHA-256 of the canonical form of tape[idx].
func (f *scanner) hashValue(idx int) (sum [32]byte) {
	if e := f.tape[idx]; e.kind == kindVerbatim {
		return sha256.Sum256(f.in[e.a:e.b])
	}
	f.h.Reset()
	f.out = f.emit(f.out[:0], idx, f.h)
	f.h.Write(f.out)
	f.h.Sum(f.sum[:0])
	return f.sum
}

// after returns the index of the tape entry after the value at idx.
func (f *scanner) after(idx int) int {
	if e := f.tape[idx]; e.kind != kindVerbatim {
		return int(e.next)
	}
	return idx + 1
}

// emit appends the canonical form of tape[idx] to out; with h non-nil, it
// writes the output to h whenever it grows past flushAt.
func (f *scanner) emit(out []byte, idx int, h hash.Hash) []byte {
	in := f.in
	switch e := f.tape[idx]; e.kind {
	case kindVerbatim:
		out = put(out, in[e.a:e.b], h)
	case kindArray:
		out = append(out, '[')
		for j := idx + 1; j < int(e.next); j = f.after(j) {
			if j > idx+1 {
				out = append(out, ',')
			}
			out = f.emit(out, j, h)
		}
		out = append(out, ']')
	case kindObject:
		out = append(out, '{')
		ms := f.order[e.a:e.b]
		for k := range ms {
			m := &ms[k]
			if k > 0 {
				out = append(out, ',')
			}
			switch {
			case m.v >= 0:
				out = append(out, in[m.ks-1:m.ke+1]...)
				out = append(out, ':')
				out = f.emit(out, int(m.v), h)
			case m.vs == m.ke+2: // "name":value as it stands
				if b := in[m.ks-1 : m.ve]; h == nil || len(b) < directAt {
					out = append(out, b...)
				} else {
					out = put(out, b, h)
				}
			default:
				out = append(out, in[m.ks-1:m.ke+1]...)
				out = append(out, ':')
				out = put(out, in[m.vs:m.ve], h)
			}
			if h != nil && len(out) >= flushAt {
				h.Write(out)
				out = out[:0]
			}
		}
		out = append(out, '}')
	}
	return out
}

// put appends b to out, or with h non-nil and b long writes both to h.
func put(out, b []byte, h hash.Hash) []byte {
	if h != nil && len(b) >= directAt {
		h.Write(out)
		h.Write(b)
		return out[:0]
	}
	return append(out, b...)
}
