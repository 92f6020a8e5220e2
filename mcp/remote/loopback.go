package remote

import (
	"net"
	"strings"
)

// IsLoopback reports whether host (a URL host, with or without port; an
// IPv6 address with or without brackets) is localhost, in any case, or a
// loopback IP address (127.0.0.0/8, ::1).
func IsLoopback(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
