package syntax

import "testing"

func TestTemplates(t *testing.T) {
	for _, tc := range []struct {
		syn  Vars
		in   string
		want string // canonical form, or "error"
	}{
		{Claude, "a ${X} b", "a ${env:X} b"},
		{Claude, "${X:-d$ef}", "${env:X:-d$$ef}"},
		{Claude, "$X ${1X} ${", "$$X $${1X} $${"},
		// A reference in another client's syntax is an error in every
		// client that expands variables (Claude Code would look up a
		// variable named "env:X" or "a.b", which is never set).
		{Claude, "${a.b}", "error"},
		{Claude, "${env:X}", "error"},
		{Kiro, "${X}", "${env:X}"},
		{Kiro, "${X:-d}", "error"},
		{Gemini, "$X/${Y}/${Z:-z}/$5/$", "${env:X}/${env:Y}/${env:Z:-z}/$$5/$$"},
		{Cursor, "${env:A}${userHome}${/}${pathSeparator}${workspaceFolder}${workspaceFolderBasename}",
			"${env:A}${userHome}${pathSeparator}${pathSeparator}${workspaceFolder}${workspaceFolderBasename}"},
		{Cursor, "${input:x}", "error"},
		{Cursor, "${HOME}", "error"},
		{Cursor, "${ not a var }", "$${ not a var }"},
		{VSCode, "${input:api-key}", "${input:api-key}"},
		{VSCode, "${config:editor.fontSize}", "error"},
		{Roo, "${env:A}${workspaceFolder}", "${env:A}${workspaceFolder}"},
		{Roo, "${userHome}", "error"},
		{Windsurf, "${env:A}", "${env:A}"},
		{Windsurf, "${workspaceFolder}", "error"},
		{Opencode, "{env:A}-{file:~/k.txt}-{other}-$B", "${env:A}-${file:~/k.txt}-{other}-$$B"},
		{Opencode, "${B}", "error"},
		{Continue, "${{ secrets.A }}/${{secrets.B}}", "${env:A}/${env:B}"},
		{Continue, "${{ inputs.A }}", "error"},
		{Continue, "${A}", "error"},
		{ContinueJSON, "${A}/${{ secrets.B }}", "${env:A}/${env:B}"},
		{AmazonQ, "${env:A}", "${env:A}"},
		{AmazonQ, "${A}", "error"},
		{Shell, "~/bin/${A}/$B/${C:-c}", "${userHome}/bin/${env:A}/${env:B}/${env:C:-c}"},
		{Shell, "a~/x", "a~/x"},
		{None, "${A} {env:B} $C", "$${A} {env:B} $$C"},
	} {
		segs, err := ParseTemplate(tc.syn, tc.in)
		got := "error"
		if err == nil {
			got = Canonical(segs)
		}
		if got != tc.want {
			t.Errorf("%s %q: got %q, want %q", tc.syn, tc.in, got, tc.want)
		}
	}
}

func FuzzTemplate(f *testing.F) {
	f.Add("${A:-b}$C{env:D}${{ secrets.E }}${env:F}${input:g}")
	f.Fuzz(func(t *testing.T, s string) {
		for _, syn := range []Vars{None, Claude, Cursor, VSCode, Gemini,
			Roo, Kiro, Opencode, Continue, Windsurf} {
			segs, err := ParseTemplate(syn, s)
			if err != nil {
				continue
			}
			// Literal segments and the references, as written, rebuild s.
			rebuilt := ""
			for _, sg := range segs {
				if sg.Kind == SegLit {
					rebuilt += sg.Text
				} else {
					rebuilt += sg.Raw
				}
			}
			if rebuilt != s {
				t.Fatalf("%s: segments of %q rebuild %q", syn, s, rebuilt)
			}
		}
	})
}
