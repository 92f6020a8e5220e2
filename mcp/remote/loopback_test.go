package remote

import "testing"

// IsLoopback: localhost in any case, and loopback addresses with or
// without port and brackets. (mcp/registry's copy said no to "[::1]" and
// "LOCALHOST".)
func TestIsLoopback(t *testing.T) {
	for host, want := range map[string]bool{
		"localhost": true, "LOCALHOST": true, "LocalHost:8080": true,
		"127.0.0.1": true, "127.1.2.3:5000": true, "[::1]": true, "[::1]:443": true, "::1": true,
		"example.com": false, "localhost.example.com": false, "10.0.0.1": false, "[::2]": false, "0.0.0.0": false, "": false,
	} {
		if got := IsLoopback(host); got != want {
			t.Errorf("IsLoopback(%q) = %v, want %v", host, got, want)
		}
	}
}
