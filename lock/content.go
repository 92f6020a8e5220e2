package lock

// SameContent reports whether a and b pin the same servers and tools: the
// lockfile specification's comparison (by content, never by bytes, and
// never by generatedBy or generatedAt). Layout, CRLF line ends and member
// order are not content: Parse accepts them and they are gone here. Two
// files of different lockfileVersions differ. Either may be nil (no
// servers).
func SameContent(a, b *Lockfile) bool {
	var x, y map[string]Server
	if a != nil {
		x = a.Servers
	}
	if b != nil {
		y = b.Servers
	}
	if a != nil && b != nil && a.LockfileVersion != b.LockfileVersion {
		return false
	}
	return sameSurface(x, y)
}
