package gitint

import (
	"bytes"
	"strconv"
	"testing"
)

// FuzzApplyDelta: applyDelta never panics, and what it returns has the
// size the delta declares and is made only of the base's bytes and the
// delta's literals (checked by length bounds).
func FuzzApplyDelta(f *testing.F) {
	base := []byte("hello, world\n")
	// src 13, dst 18: copy 0..12, insert "again"
	f.Add(base, []byte{13, 18, 0x90, 13, 5, 'a', 'g', 'a', 'i', 'n'})
	// copy with offset and size bytes; size 0 means 0x10000
	f.Add(base, []byte{13, 5, 0x91, 7, 5})
	f.Add(base, []byte{13, 0, 0x80})
	f.Add([]byte{}, []byte{0, 1, 0})
	f.Add(base, []byte{13, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 1})
	f.Fuzz(func(t *testing.T, base, delta []byte) {
		out, err := applyDelta(base, delta)
		if err != nil {
			return
		}
		if len(out) > len(base)*len(delta)+len(delta) {
			t.Fatalf("delta of %d bytes on a base of %d made %d bytes", len(delta), len(base), len(out))
		}
	})
}

// TestApplyDelta pins the delta format on hand-made deltas.
func TestApplyDelta(t *testing.T) {
	base := []byte("hello, world\n")
	cases := []struct {
		name  string
		delta []byte
		want  string
		ok    bool
	}{
		{"copy and insert", []byte{13, 18, 0x90, 12, 6, ' ', 'a', 'g', 'a', 'i', 'n'}, "hello, world again", true},
		{"copy with offset", []byte{13, 5, 0x91, 7, 5}, "world", true},
		{"wrong base size", []byte{12, 5, 0x91, 7, 5}, "", false},
		{"copy past the base", []byte{13, 5, 0x91, 10, 5}, "", false},
		{"result longer than declared", []byte{13, 4, 0x91, 7, 5}, "", false},
		{"result shorter than declared", []byte{13, 6, 0x91, 7, 5}, "", false},
		{"reserved instruction", []byte{13, 0, 0}, "", false},
		{"truncated insert", []byte{13, 3, 3, 'a'}, "", false},
	}
	for _, c := range cases {
		got, err := applyDelta(base, c.delta)
		if (err == nil) != c.ok || string(got) != c.want {
			t.Errorf("%s: applyDelta = %q, %v; want %q (ok %v)", c.name, got, err, c.want, c.ok)
		}
	}
}

// FuzzParseEntryHeader: never panics; an accepted header is within the
// input, and a delta's base precedes the entry.
func FuzzParseEntryHeader(f *testing.F) {
	f.Add([]byte{0x3c}, int64(12))                             // blob of 12 bytes
	f.Add([]byte{0x95, 0x0a}, int64(100))                      // commit of 165 bytes
	f.Add([]byte{0x65, 0x81, 0x00}, int64(1000))               // OFS_DELTA, base at 1000-256
	f.Add(append([]byte{0x75}, make([]byte, 20)...), int64(5)) // REF_DELTA
	f.Add([]byte{0x80}, int64(0))
	f.Fuzz(func(t *testing.T, b []byte, off int64) {
		e, err := parseEntryHeader(b, off)
		if err != nil {
			return
		}
		if e.hdrLen > len(b) || e.size < 0 {
			t.Fatalf("header %x: length %d, size %d", b, e.hdrLen, e.size)
		}
		if e.typ == objOfsDelta && (e.baseOff < 0 || e.baseOff >= off) {
			t.Fatalf("header %x at %d: base at %d", b, off, e.baseOff)
		}
	})
}

// TestParseEntryHeader pins the size and offset varints on known values.
func TestParseEntryHeader(t *testing.T) {
	e, err := parseEntryHeader([]byte{0x95, 0x0a}, 100)
	if err != nil || e.typ != objCommit || e.size != 5+10<<4 || e.hdrLen != 2 {
		t.Errorf("commit header = %+v, %v", e, err)
	}
	// Offset varint 0x81 0x00: ((1)+1)<<7 | 0 = 256.
	e, err = parseEntryHeader([]byte{0x65, 0x81, 0x00}, 1000)
	if err != nil || e.typ != objOfsDelta || e.size != 5 || e.baseOff != 1000-256 || e.hdrLen != 3 {
		t.Errorf("OFS_DELTA header = %+v, %v", e, err)
	}
	if _, err := parseEntryHeader([]byte{0x65, 0x81, 0x00}, 100); err == nil {
		t.Error("OFS_DELTA base before the start of the pack accepted")
	}
}

// FuzzParseTree: never panics, every entry is found by name, and an
// accepted tree re-encoded ("<octal mode> <name>\0<id>" per entry) parses
// to the same entries.
func FuzzParseTree(f *testing.F) {
	id := bytes.Repeat([]byte{0xab}, 20)
	tree := append([]byte("100644 a.txt\x00"), id...)
	tree = append(tree, append([]byte("40000 dir\x00"), id...)...)
	f.Add(tree)
	f.Add([]byte("100644 x\x00short"))
	f.Add([]byte("9 x\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, err := parseTree(data)
		if err != nil {
			return
		}
		var out []byte
		for _, e := range entries {
			out = strconv.AppendUint(out, uint64(e.mode), 8)
			out = append(out, ' ')
			out = append(out, e.name...)
			out = append(out, 0)
			out = append(out, e.hash[:]...)
			if _, found, err := findTreeEntry(data, e.name); !found || err != nil {
				t.Fatalf("findTreeEntry(%q) = %v, %v", e.name, found, err)
			}
		}
		again, err := parseTree(out)
		if err != nil || len(again) != len(entries) {
			t.Fatalf("tree %q re-encoded as %q: %v", data, out, err)
		}
		for i := range again {
			if again[i] != entries[i] {
				t.Fatalf("entry %d: %+v, re-encoded %+v", i, entries[i], again[i])
			}
		}
	})
}

// FuzzParseLooseHeader: never panics; an accepted header names a known
// type and the exact content length.
func FuzzParseLooseHeader(f *testing.F) {
	f.Add([]byte("blob 5\x00hello"))
	f.Add([]byte("tree 0\x00"))
	f.Add([]byte("blob 05\x00hello"))
	f.Add([]byte("blob 6\x00hello"))
	f.Fuzz(func(t *testing.T, data []byte) {
		typ, body, err := parseLooseHeader(data)
		if err != nil {
			return
		}
		want := typeNames[typ] + " " + strconv.Itoa(len(body)) + "\x00"
		if !bytes.HasPrefix(data, []byte(want)) || len(want)+len(body) != len(data) {
			t.Fatalf("header of %q accepted as %q with %d bytes", data, want, len(body))
		}
	})
}
