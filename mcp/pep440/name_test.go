package pep440

import "testing"

// TestNormalizeName: the examples of the Name normalization specification
// (packaging.python.org/specifications/name-normalization, which PEP 503
// defines): each of these names normalises to "friendly-bard"; and the
// rule's parts one by one (runs of mixed separators collapse to one "-",
// case folds, other characters stay).
func TestNormalizeName(t *testing.T) {
	for _, n := range []string{"friendly-bard", "Friendly-Bard", "FRIENDLY-BARD", "friendly.bard", "friendly_bard",
		"friendly--bard", "FrIeNdLy-._.-bArD"} {
		if got := NormalizeName(n); got != "friendly-bard" {
			t.Errorf("NormalizeName(%q) = %q, want friendly-bard", n, got)
		}
	}
	for in, want := range map[string]string{
		"":                   "",
		"mcp-server-fetch":   "mcp-server-fetch",
		"Mcp_Server.Fetch":   "mcp-server-fetch",
		"zope.interface":     "zope-interface",
		"a__b..c--d_.-e":     "a-b-c-d-e",
		"-leading_":          "-leading-",
		"x1.2":               "x1-2",
		"PyYAML":             "pyyaml",
		"ruamel.yaml.clib":   "ruamel-yaml-clib",
		"backports.zoneinfo": "backports-zoneinfo",
	} {
		if got := NormalizeName(in); got != want {
			t.Errorf("NormalizeName(%q) = %q, want %q", in, got, want)
		}
	}
}
