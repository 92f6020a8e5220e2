package render

import (
	"strings"

	"github.com/agentgate/agentgate/internal/safetext"
	"github.com/agentgate/agentgate/lock"
)

// PackageLines describes a change of the package a server runs, one line
// per fact, names and values through VisibleLine:
//
//	package: 1.4.2 -> 1.5.0                       (same package, new version)
//	package: npm a@1.0.0 -> npm b@2.0.0           (another package)
//	package: 1.4.2, same version, different integrity
//	package: tools/server.js, file changed        (a file package)
//	package: npm a@1.0.0 -> (none)                (the command runs no package agentgate can attribute)
//
// followed by "integrity: OLD -> NEW" whenever the integrity differs (nil
// p: no lines).
func PackageLines(p *lock.PackageDiff) []string {
	if p == nil {
		return nil
	}
	full := func(k *lock.Package) string { return safetext.VisibleLine(k.Ecosystem + " " + k.String()) }
	if p.New == nil {
		return []string{"package: " + full(p.Old) + " -> (none)"}
	}
	o, n := p.Old, p.New
	var head string
	switch {
	case o.Ecosystem != n.Ecosystem || o.Name != n.Name:
		head = "package: " + full(o) + " -> " + full(n)
	case o.Version != n.Version:
		head = "package: " + orNone(o.Version) + " -> " + orNone(n.Version)
	case o.Ecosystem == lock.EcosystemFile:
		head = "package: " + safetext.VisibleLine(o.Name) + ", file changed"
	default:
		head = "package: " + safetext.VisibleLine(o.String()) + ", same version, different integrity"
	}
	lines := []string{head}
	if o.Integrity != n.Integrity {
		lines = append(lines, "integrity: "+safetext.VisibleLine(o.Integrity)+" -> "+safetext.VisibleLine(n.Integrity))
	}
	return lines
}

func orNone(v string) string {
	if v == "" {
		return "(no version)"
	}
	return safetext.VisibleLine(v)
}

// packageTitle is a package change for Review.Title: "package 1.4.2 ->
// 1.5.0", "package changed".
func packageTitle(p *lock.PackageDiff) string {
	head, _, _ := strings.Cut(PackageLines(p)[0], "\n")
	return strings.Replace(head, "package: ", "package ", 1)
}
