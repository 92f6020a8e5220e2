package lock

import (
	"bytes"
	"maps"
	"slices"
	"strings"
)

// Merged is the result of a three-way Merge of lockfiles.
type Merged struct {
	// Lockfile holds every server that merged cleanly; a conflicted server
	// is absent. Its generatedAt and generatedBy are those of whichever of
	// ours and theirs has the later generatedAt, compared as instants
	// (ours on a tie).
	Lockfile  *Lockfile
	Conflicts []MergeConflict // sorted by Name
}

// MergeConflict is a server that ours and theirs changed differently, or
// one of the servers that would pin one file at different hashes.
type MergeConflict struct {
	Name   string  // the server name
	Ours   *Server // nil: removed (or never added) on our side
	Theirs *Server // nil: removed (or never added) on their side
	// File, when not "", is the repository file (a file package) that
	// this server and another would pin at different hashes: one side
	// changed the file and re-locked, the other locked a server that runs
	// it at its old bytes. Which bytes the merge keeps only a capture can
	// tell.
	File string
}

// Merge merges two lockfiles, ours and theirs, that both derive from base,
// one server at a time (any of the three may be nil: no lockfile). Ours and
// theirs should have the same lockfileVersion (the result has the later
// side's). Two versions of a server are the same when both are absent, or
// both present and SameServer (every pin of the version, definitions
// included). For each server name in any of the
// three:
//
//   - ours and theirs the same: that version (present or absent);
//   - only theirs differs from base: theirs (including its removal);
//   - only ours differs from base: ours;
//   - otherwise: a MergeConflict, and the server is left out of Lockfile.
//
// Then, when servers taken so would pin one file package (ecosystem file,
// one path) at different integrities, each of them becomes a
// MergeConflict naming the file: such a lockfile fails verify whatever
// the merged file holds.
//
// Each server is taken whole, so its surfaceHash stays the hash of its
// tools. Format(m.Lockfile) is therefore a valid lockfile; when the
// merged servers are what the merged configs capture, it is byte for byte
// what 'agentgate lock' writes (lock keeps generatedAt when the surface is
// unchanged).
func Merge(base, ours, theirs *Lockfile) Merged {
	servers := func(l *Lockfile) map[string]Server {
		if l == nil {
			return nil
		}
		return l.Servers
	}
	b, o, t := servers(base), servers(ours), servers(theirs)
	names := map[string]bool{}
	for _, m := range []map[string]Server{b, o, t} {
		for n := range m {
			names[n] = true
		}
	}
	stamp := ours
	if stamp == nil || (theirs != nil && laterTime(theirs.GeneratedAt, stamp.GeneratedAt)) {
		stamp = theirs
	}
	out := &Lockfile{LockfileVersion: Version1, Servers: map[string]Server{}}
	if stamp != nil {
		out.LockfileVersion, out.GeneratedBy, out.GeneratedAt = stamp.LockfileVersion, stamp.GeneratedBy, stamp.GeneratedAt
	}
	var m Merged
	for _, name := range slices.Sorted(maps.Keys(names)) {
		bsrv, inB := b[name]
		osrv, inO := o[name]
		tsrv, inT := t[name]
		var take *Server
		switch {
		case sameServer(osrv, inO, tsrv, inT):
			take = present(osrv, inO)
		case sameServer(osrv, inO, bsrv, inB):
			take = present(tsrv, inT)
		case sameServer(tsrv, inT, bsrv, inB):
			take = present(osrv, inO)
		default:
			m.Conflicts = append(m.Conflicts, MergeConflict{Name: name, Ours: present(osrv, inO), Theirs: present(tsrv, inT)})
			continue
		}
		if take != nil {
			out.Servers[name] = *take
		}
	}
	m.Conflicts = append(m.Conflicts, fileConflicts(out, o, t)...)
	slices.SortFunc(m.Conflicts, func(a, b MergeConflict) int { return strings.Compare(a.Name, b.Name) })
	m.Lockfile = out
	return m
}

// fileConflicts takes out of out.Servers every server that pins a file
// package (ecosystem file) at a path another server of out pins at a
// different integrity, and returns a MergeConflict naming the file for
// each, with ours and theirs from o and t.
func fileConflicts(out *Lockfile, o, t map[string]Server) []MergeConflict {
	byFile := map[string]map[string]bool{} // path -> integrity -> seen
	for _, srv := range out.Servers {
		if p := srv.Package; p != nil && p.Ecosystem == EcosystemFile {
			if byFile[p.Name] == nil {
				byFile[p.Name] = map[string]bool{}
			}
			byFile[p.Name][p.Integrity] = true
		}
	}
	var conflicts []MergeConflict
	for _, name := range slices.Sorted(maps.Keys(out.Servers)) {
		p := out.Servers[name].Package
		if p == nil || p.Ecosystem != EcosystemFile || len(byFile[p.Name]) < 2 {
			continue
		}
		osrv, inO := o[name]
		tsrv, inT := t[name]
		conflicts = append(conflicts, MergeConflict{Name: name, Ours: present(osrv, inO), Theirs: present(tsrv, inT), File: p.Name})
		delete(out.Servers, name)
	}
	return conflicts
}

func present(s Server, ok bool) *Server {
	if !ok {
		return nil
	}
	return &s
}

// sameServer is SameServer for two servers that may be absent.
func sameServer(a Server, inA bool, b Server, inB bool) bool {
	return inA == inB && (!inA || SameServer(a, b))
}

// FormatMerged writes m as Format writes m.Lockfile, with each conflicted
// server in its sorted place between conflict markers, git's style:
//
//	<<<<<<< OURS
//	    "name": { ...our version... },
//	=======
//	    "name": { ...their version... },
//	>>>>>>> THEIRS
//
// where OURS and THEIRS are the labels and a side that removed the server
// is empty. The markers are markerSize (git's default is 7) characters
// long; everything outside the markers is Format's layout. Each server's
// entry is followed by a comma unless it is the last name of all those
// written, so choosing a side by hand may leave a stray comma: the file is
// for a person to read, and 'agentgate lock --force' rewrites it. Without
// conflicts, FormatMerged(m) == Format(m.Lockfile).
func FormatMerged(m Merged, oursLabel, theirsLabel string, markerSize int) []byte {
	if len(m.Conflicts) == 0 {
		return Format(m.Lockfile)
	}
	entries := map[string][]byte{}
	for name, srv := range m.Lockfile.Servers {
		entries[name] = serverEntry(m.Lockfile.LockfileVersion, name, srv)
	}
	conflicts := map[string]MergeConflict{}
	for _, c := range m.Conflicts {
		conflicts[c.Name] = c
		entries[c.Name] = nil
	}
	header := Format(&Lockfile{LockfileVersion: m.Lockfile.LockfileVersion, GeneratedBy: m.Lockfile.GeneratedBy, GeneratedAt: m.Lockfile.GeneratedAt})
	header = header[:bytes.LastIndex(header, []byte("{}"))+1] // ... "servers": {
	out := slices.Clone(header)
	names := slices.Sorted(maps.Keys(entries))
	for i, name := range names {
		sep := ""
		if i < len(names)-1 {
			sep = ","
		}
		c, conflicted := conflicts[name]
		if !conflicted {
			out = append(out, '\n')
			out = append(out, entries[name]...)
			out = append(out, sep...)
			continue
		}
		side := func(s *Server) {
			if s != nil {
				out = append(out, serverEntry(m.Lockfile.LockfileVersion, name, *s)...)
				out = append(out, sep...)
				out = append(out, '\n')
			}
		}
		out = append(out, '\n')
		out = append(out, strings.Repeat("<", markerSize)+" "+oursLabel+"\n"...)
		side(c.Ours)
		out = append(out, strings.Repeat("=", markerSize)+"\n"...)
		side(c.Theirs)
		out = append(out, strings.Repeat(">", markerSize)+" "+theirsLabel...)
	}
	return append(out, "\n  }\n}\n"...)
}

// serverEntry is the text Format writes for one server: from the
// indentation before its name to its closing brace, without a comma.
func serverEntry(version int, name string, srv Server) []byte {
	b := Format(&Lockfile{LockfileVersion: version, Servers: map[string]Server{name: srv}})
	start := bytes.Index(b, []byte("\"servers\": {\n")) + len("\"servers\": {\n")
	end := bytes.LastIndex(b, []byte("\n  }\n}\n"))
	return b[start:end]
}
