package render

import (
	"encoding/json"

	"github.com/agentgate/agentgate/internal/safetext"
)

// JSON is v as agentgate's JSON reports are written (SARIF, GitLab Code
// Quality, and the cli's --format json documents): encoding/json indented
// by two spaces, so '<', '>' and '&' are \u003c, \u003e, \u0026; hidden
// characters and "##[" escaped as safetext.VisibleJSON writes them; and a
// final newline. v is a report of plain structs, which always marshal.
func JSON(v any) []byte {
	b, _ := json.MarshalIndent(v, "", "  ")
	return append(safetext.VisibleJSON(b), '\n')
}
