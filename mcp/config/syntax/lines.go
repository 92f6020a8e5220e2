package syntax

import "strings"

// Lines maps byte offsets of one file to 1-based lines and byte columns:
// the offset where each line starts.
type Lines []int

// NewLines indexes the lines of b.
func NewLines(b []byte) Lines {
	idx := Lines{0}
	for i, c := range b {
		if c == '\n' {
			idx = append(idx, i+1)
		}
	}
	return idx
}

// Pos returns the 1-based line and byte column of offset off.
func (idx Lines) Pos(off int) (line, col int) {
	lo, hi := 0, len(idx)
	for hi-lo > 1 {
		m := (lo + hi) / 2
		if idx[m] <= off {
			lo = m
		} else {
			hi = m
		}
	}
	return lo + 1, off - idx[lo] + 1
}

// OffsetPos returns the 1-based line and column of byte offset off in data
// (clamped to the input).
func OffsetPos(data []byte, off int) (line, col int) {
	off = max(0, min(off, len(data)))
	line = 1 + strings.Count(string(data[:off]), "\n")
	col = 1 + off - (strings.LastIndexByte(string(data[:off]), '\n') + 1)
	return line, col
}
