package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/agentgate/agentgate/lock"
)

// TestStampAt: generatedAt is now() in UTC truncated to milliseconds, or
// SOURCE_DATE_EPOCH when set; a value that is not a non-negative decimal
// number of seconds is refused, naming the variable and its value.
func TestStampAt(t *testing.T) {
	now := func() time.Time { return time.Date(2026, 8, 3, 14, 0, 0, 123456789, time.FixedZone("X", 2*3600)) }
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == "SOURCE_DATE_EPOCH" {
				return v
			}
			return ""
		}
	}
	tests := []struct{ epoch, want, err string }{
		{"", "2026-08-03T12:00:00.123Z", ""},
		{"1785758400", "2026-08-03T12:00:00.000Z", ""},
		{"0", "1970-01-01T00:00:00.000Z", ""},
		{"-1", "", `SOURCE_DATE_EPOCH="-1": want a decimal number of seconds since 1970-01-01T00:00:00Z`},
		{"1.5", "", `SOURCE_DATE_EPOCH="1.5"`},
		{"+5", "", `SOURCE_DATE_EPOCH="+5"`},
	}
	for _, tt := range tests {
		s, err := stampAt("agentgate@v1", now, env(tt.epoch))
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("epoch %q: error %v, want %q", tt.epoch, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if got := lock.New(lock.Version1, nil, s, nil).GeneratedAt; got != tt.want || s.By != "agentgate@v1" {
			t.Errorf("epoch %q: generatedAt %s, want %s", tt.epoch, got, tt.want)
		}
	}
}

// TestWithLF: a lockfile checked out with CRLF line ends (git's
// core.autocrlf=true) is shown as the LF text, and LF text is unchanged.
func TestWithLF(t *testing.T) {
	lf := []byte("{\n  \"lockfileVersion\": 1,\n  \"servers\": {}\n}\n")
	crlf := bytes.ReplaceAll(lf, []byte("\n"), []byte("\r\n"))
	if !bytes.Equal(withLF(crlf), lf) || !bytes.Equal(withLF(lf), lf) {
		t.Error("withLF does not give the LF text")
	}
}
