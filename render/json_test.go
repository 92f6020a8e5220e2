package render

import "testing"

// TestJSON rebuilds the bytes JSON's doc comment specifies: two-space
// indent, HTML characters as \u escapes, a hidden character and "##["
// escaped, a final newline.
func TestJSON(t *testing.T) {
	got := string(JSON(struct {
		S string   `json:"s"`
		L []string `json:"l"`
	}{"<a&b>\u200b##[x", []string{}}))
	want := "{\n  \"s\": \"\\u003ca\\u0026b\\u003e\\u200b##\\u005bx\",\n  \"l\": []\n}\n"
	if got != want {
		t.Errorf("JSON = %q, want %q", got, want)
	}
}
