package lock

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentgate/agentgate/internal/safetext"
)

// TimeLayout is the layout of generatedAt as written: RFC 3339 in UTC with
// milliseconds, e.g. 2026-08-03T12:00:00.000Z. Readers accept any RFC 3339
// date-time (see validTime).
const TimeLayout = "2006-01-02T15:04:05.000Z"

// laterTime reports whether generatedAt a is a later instant than b. Both
// should be valid (validTime); a leap second 23:59:60.f comes after
// 23:59:59.f' and before the next day's 00:00:00. When either does not
// parse, the strings are compared.
func laterTime(a, b string) bool {
	ta, la, oka := timeKey(a)
	tb, lb, okb := timeKey(b)
	if !oka || !okb {
		return a > b
	}
	switch {
	case ta.Unix() != tb.Unix():
		return ta.Unix() > tb.Unix()
	case la != lb:
		return la
	}
	return ta.Nanosecond() > tb.Nanosecond()
}

// timeKey parses the RFC 3339 date-time s (any form validTime accepts);
// a leap second is returned as second 59 of its minute with leap set.
func timeKey(s string) (t time.Time, leap bool, ok bool) {
	if len(s) < 20 {
		return time.Time{}, false, false
	}
	u := []byte(strings.ToUpper(s)) // t and z: time.Parse wants T and Z
	if leap = string(u[17:19]) == "60"; leap {
		u[18] = '9'
	}
	t, err := time.Parse(time.RFC3339Nano, string(u))
	return t, leap, err == nil
}

// validTime reports whether s is an RFC 3339 date-time (section 5.6), as
// generatedAt must be and as JSON Schema's "date-time" format checks it:
// YYYY-MM-DD, T or t, hh:mm:ss with a day that exists in that month, hour
// 00-23, minute 00-59, second 00-60; optionally '.' and one or more digits
// (a ',' is refused); then Z, z, or +hh:mm / -hh:mm with hh 00-23 and mm
// 00-59. Second 60, a leap second, is accepted only at 23:59 UTC once the
// offset is applied: RFC 3339 allows leap seconds and a reader cannot know
// every one of them.
func validTime(s string) bool {
	if len(s) < 20 || s[4] != '-' || s[7] != '-' || s[10] != 'T' && s[10] != 't' || s[13] != ':' || s[16] != ':' {
		return false
	}
	h, m, sec := digits(s[11:13]), digits(s[14:16]), digits(s[17:19])
	if !validDate(s[:10]) || !inRange(h, 0, 23) || !inRange(m, 0, 59) || !inRange(sec, 0, 60) {
		return false
	}
	rest, ok := skipFraction(s[19:])
	if !ok {
		return false
	}
	east, ok := zoneOffset(rest)
	if !ok {
		return false
	}
	utc := ((h*60+m-east)%1440 + 1440) % 1440 // the minute of the day in UTC
	return sec < 60 || utc == 23*60+59
}

// validDate reports whether d, YYYY-MM-DD, is a day that exists.
func validDate(d string) bool {
	year, month, day := digits(d[0:4]), digits(d[5:7]), digits(d[8:10])
	return year >= 0 && inRange(month, 1, 12) && day >= 1 &&
		day <= time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// skipFraction returns rest after a leading fraction of a second ('.' and
// one or more digits), or rest itself when it has none; ok is false for a
// '.' with no digit.
func skipFraction(rest string) (after string, ok bool) {
	if rest == "" || rest[0] != '.' {
		return rest, true
	}
	n := 1
	for n < len(rest) && '0' <= rest[n] && rest[n] <= '9' {
		n++
	}
	return rest[n:], n > 1
}

// zoneOffset returns the offset east of UTC, in minutes, of zone, which
// must be Z, z, or +hh:mm / -hh:mm with hh 00-23 and mm 00-59.
func zoneOffset(zone string) (east int, ok bool) {
	if zone == "Z" || zone == "z" {
		return 0, true
	}
	if len(zone) != 6 || zone[0] != '+' && zone[0] != '-' || zone[3] != ':' {
		return 0, false
	}
	oh, om := digits(zone[1:3]), digits(zone[4:6])
	if !inRange(oh, 0, 23) || !inRange(om, 0, 59) {
		return 0, false
	}
	if zone[0] == '-' {
		return -(oh*60 + om), true
	}
	return oh*60 + om, true
}

// digits returns the decimal value of s, or -1 when s holds anything but
// the digits 0-9.
func digits(s string) int {
	v := 0
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return -1
		}
		v = v*10 + int(c-'0')
	}
	return v
}

// inRange reports whether lo <= v <= hi.
func inRange(v, lo, hi int) bool { return lo <= v && v <= hi }

// New returns a lockfile of the given version (Version1 or Version2; New
// panics on any other) holding servers, stamped with s, unless prev (may
// be nil) is of the same version and has an equal surface (the same
// server names and, for each, SameServer: every pin and definition of
// that version), in which case prev's generatedBy and generatedAt are kept
// so that regenerating an unchanged surface changes no byte. Tools are
// sorted by name and nil tool lists become empty ones; in a version 2
// lockfile prompts, resource templates and resources are sorted as Format
// writes them and nil prompt and template lists become empty ones. The
// map and slices are copied. In a version 1 lockfile the version 2
// members of servers and tools are dropped.
func New(version int, servers map[string]Server, s Stamp, prev *Lockfile) *Lockfile {
	if err := checkVersion(version); err != nil {
		panic("lock.New: " + err.Error())
	}
	l := &Lockfile{
		LockfileVersion: version,
		GeneratedBy:     s.By,
		GeneratedAt:     s.At.UTC().Format(TimeLayout),
		Servers:         make(map[string]Server, len(servers)),
	}
	for name, srv := range servers {
		tools := slices.Clone(srv.Tools)
		if tools == nil {
			tools = []Tool{}
		}
		slices.SortStableFunc(tools, compareTools)
		srv.Tools = tools
		if version == Version2 {
			srv = cloneV2(srv)
		} else {
			srv.ServerV2Fields = ServerV2Fields{}
			for i := range tools {
				tools[i].DefinitionHash, tools[i].Definition = "", ""
			}
		}
		l.Servers[name] = srv
	}
	if prev != nil && prev.LockfileVersion == version && sameSurface(l.Servers, prev.Servers) {
		l.GeneratedBy, l.GeneratedAt = prev.GeneratedBy, prev.GeneratedAt
	}
	return l
}

// sameSurface reports whether a and b lock the same servers and tools.
func sameSurface(a, b map[string]Server) bool {
	return maps.EqualFunc(a, b, SameServer)
}

// Format returns the canonical bytes of l as the version l.LockfileVersion
// says: a Lockfile of version 2 is written as version 2 (formatV2), any
// other as version 1. As version 1: JSON with 2-space indentation,
// members in the order lockfileVersion, generatedBy, generatedAt, servers;
// surfaceHash, tools; name, nameHash, descriptionHash, inputSchemaHash;
// servers sorted by name and tools by name as UTF-8 bytes; "servers": {}
// and "tools": [] when empty; one trailing newline. lockfileVersion is
// written as 1 (Version1). Strings escape '"', '\\', C0 and C1
// control characters, DEL, and invisible or bidirectional formatting
// characters (see escapeRune) as \uXXXX or the short forms \b \t \n \f
// \r (above U+FFFF: a \uXXXX\uXXXX surrogate pair); everything else,
// including < > & and non-ASCII, is raw UTF-8. Invalid
// UTF-8 in a string is written as U+FFFD (names from BuildServer and Parse
// are always valid). Format(Parse(b)) == b for every b that Format wrote.
func Format(l *Lockfile) []byte {
	if l.LockfileVersion == Version2 {
		return formatV2(l)
	}
	return appendLockfile(make([]byte, 0, 256+estimateSize(l)), l, Version1, func(b []byte, srv Server) []byte {
		b = append(b, "{\n      \"surfaceHash\": "...)
		b = appendString(b, srv.SurfaceHash)
		b = append(b, ",\n      \"tools\": ["...)
		tools := sortedTools(srv.Tools)
		for j, t := range tools {
			if j > 0 {
				b = append(b, ',')
			}
			b = append(b, "\n        {\n          \"name\": "...)
			b = appendString(b, t.Name)
			b = append(b, ",\n          \"nameHash\": "...)
			b = appendString(b, t.NameHash)
			b = append(b, ",\n          \"descriptionHash\": "...)
			b = appendString(b, t.DescriptionHash)
			b = append(b, ",\n          \"inputSchemaHash\": "...)
			b = appendString(b, t.InputSchemaHash)
			b = append(b, "\n        }"...)
		}
		if len(tools) > 0 {
			b = append(b, "\n      "...)
		}
		return append(b, "]\n    }"...)
	})
}

// appendLockfile appends l as a lockfile of the given version: the members
// lockfileVersion, generatedBy, generatedAt and servers, each server's
// name then server(b, its entry), which appends the entry's object from
// its opening brace (at an indent of four spaces) to its closing one.
func appendLockfile(b []byte, l *Lockfile, version int, server func(b []byte, srv Server) []byte) []byte {
	b = append(b, "{\n  \"lockfileVersion\": "...)
	b = strconv.AppendInt(b, int64(version), 10)
	b = append(b, ",\n  \"generatedBy\": "...)
	b = appendString(b, l.GeneratedBy)
	b = append(b, ",\n  \"generatedAt\": "...)
	b = appendString(b, l.GeneratedAt)
	b = append(b, ",\n  \"servers\": {"...)
	for i, name := range slices.Sorted(maps.Keys(l.Servers)) {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, "\n    "...)
		b = appendString(b, name)
		b = append(b, ": "...)
		b = server(b, l.Servers[name])
	}
	if len(l.Servers) > 0 {
		b = append(b, "\n  "...)
	}
	return append(b, "}\n}\n"...)
}

func estimateSize(l *Lockfile) int {
	n := 0
	for name, s := range l.Servers {
		n += 128 + len(name)
		for _, t := range s.Tools {
			n += 320 + len(t.Name)
		}
	}
	return n
}

// appendString appends s as a JSON string in the lockfile's style: JCS
// string escaping plus \uXXXX for the invisible runes escapeRune lists.
func appendString(b []byte, s string) []byte { return appendQuoted(b, s, escapeRune) }

// escapeRune reports whether Format writes r as a \u escape so that it is
// visible in a review: every character on agentgate's one list of hidden
// characters (internal/safetext: controls, bidi, zero-width, invisible, tag,
// private-use and separator characters). The list is fixed, not taken
// from Unicode tables, so output does not change with the Go version.
func escapeRune(r rune) bool { return safetext.Kind(r) != "" }
