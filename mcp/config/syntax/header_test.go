package syntax

import (
	"net/textproto"
	"testing"
)

func TestCanonicalHeaderKey(t *testing.T) {
	for in, want := range map[string]string{
		"":                 "",
		"authorization":    "Authorization",
		"x-api-KEY":        "X-Api-Key",
		"X-API-KEY":        "X-Api-Key",
		"content-type":     "Content-Type",
		"-x--y-":           "-X--Y-",
		"x_api_key":        "X_api_key",
		"1st-header":       "1st-Header",
		"bad header":       "bad header", // a space: unchanged
		"x-ä":              "x-ä",        // not a token: unchanged
		"x-api-key:":       "x-api-key:",
		"user-agent~v2.0!": "User-Agent~v2.0!",
	} {
		if got := CanonicalHeaderKey(in); got != want {
			t.Errorf("CanonicalHeaderKey(%q) = %q, want %q", in, got, want)
		}
		if got := textproto.CanonicalMIMEHeaderKey(in); got != want {
			t.Errorf("textproto.CanonicalMIMEHeaderKey(%q) = %q, want %q (the table is wrong)", in, got, want)
		}
	}
}

// FuzzCanonicalHeaderKey checks CanonicalHeaderKey against the function it
// replaces, net/textproto.CanonicalMIMEHeaderKey.
func FuzzCanonicalHeaderKey(f *testing.F) {
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := CanonicalHeaderKey(s), textproto.CanonicalMIMEHeaderKey(s); got != want {
			t.Errorf("CanonicalHeaderKey(%q) = %q, textproto says %q", s, got, want)
		}
	})
}
