package triage

// A lexicon finds which of a set of literals a text contains, in one
// pass over the text: an Aho-Corasick automaton over bytes, its
// transitions completed so that each byte costs one table lookup.
type lexicon struct {
	lits  []string    // the literals, by id
	class [256]uint16 // a byte's column in next: 0 for bytes no literal holds
	cols  int
	next  []int32   // next[state*cols+column] is the state after that byte
	ends  [][]int32 // ends[state] are the literals that end at a byte leading to state
}

// newLexicon is the lexicon of lits (non-empty strings, numbered by
// their position).
func newLexicon(lits []string) *lexicon {
	x := &lexicon{lits: lits, cols: 1}
	for _, l := range lits {
		for i := 0; i < len(l); i++ {
			if x.class[l[i]] == 0 {
				x.class[l[i]] = uint16(x.cols)
				x.cols++
			}
		}
	}
	// The trie of lits: state 0 is the empty prefix; -1 no edge yet. It
	// has at most one state per byte of lits, and the empty prefix.
	states := 1
	for _, l := range lits {
		states += len(l)
	}
	x.next = make([]int32, 0, states*x.cols)
	x.ends = make([][]int32, 0, states)
	add := func() int32 {
		for range x.cols {
			x.next = append(x.next, -1)
		}
		x.ends = append(x.ends, nil)
		return int32(len(x.ends) - 1)
	}
	add()
	for id, l := range lits {
		st := int32(0)
		for i := 0; i < len(l); i++ {
			e := int(st)*x.cols + int(x.class[l[i]])
			if x.next[e] < 0 {
				t := add()
				x.next[e] = t
			}
			st = x.next[e]
		}
		x.ends[st] = append(x.ends[st], int32(id))
	}
	// Breadth first, each state's missing edges are those of its
	// longest proper suffix that is a state (fail), and it ends the
	// literals fail ends too.
	fail := make([]int32, len(x.ends))
	var queue []int32
	for c := range x.cols {
		if t := x.next[c]; t < 0 {
			x.next[c] = 0
		} else {
			queue = append(queue, t)
		}
	}
	for len(queue) > 0 {
		st := queue[0]
		queue = queue[1:]
		x.ends[st] = append(x.ends[st], x.ends[fail[st]]...)
		for c := range x.cols {
			e := int(st)*x.cols + c
			f := x.next[int(fail[st])*x.cols+c]
			if t := x.next[e]; t < 0 {
				x.next[e] = f
			} else {
				fail[t] = f
				queue = append(queue, t)
			}
		}
	}
	return x
}

// A sight is the set of a lexicon's literals that one text contains.
type sight []uint64

// has reports whether literal id is in the set.
func (in sight) has(id int) bool { return id/64 < len(in) && in[id/64]&(1<<(id%64)) != 0 }

// any reports whether one of ids is in the set.
func (in sight) any(ids []bits) bool {
	for _, b := range ids {
		if b.at < len(in) && in[b.at]&b.set != 0 {
			return true
		}
	}
	return false
}

// all reports whether every one of ids is in the set.
func (in sight) all(ids []bits) bool {
	for _, b := range ids {
		if b.at >= len(in) || in[b.at]&b.set != b.set {
			return false
		}
	}
	return true
}

// scan returns the literals of x that s contains.
func (x *lexicon) scan(s string) sight {
	in := make(sight, (len(x.lits)+63)/64)
	st := int32(0)
	for i := 0; i < len(s); i++ {
		st = x.next[int(st)*x.cols+int(x.class[s[i]])]
		for _, id := range x.ends[st] {
			in[id/64] |= 1 << (id % 64)
		}
	}
	return in
}

// each calls f with each literal of x that s contains and the index just
// past its end, in the order the matches end (for one end, in no set
// order).
func (x *lexicon) each(s string, f func(id, end int)) {
	st := int32(0)
	for i := 0; i < len(s); i++ {
		st = x.next[int(st)*x.cols+int(x.class[s[i]])]
		for _, id := range x.ends[st] {
			f(int(id), i+1)
		}
	}
}
