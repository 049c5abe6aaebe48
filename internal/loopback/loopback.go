package loopback

import (
	"net"
	"strings"
)

// Is reports whether host (a name or an address, with or without the
// brackets of an IPv6 address, without a port) names loopback only.
func Is(host string) bool {
	if strings.EqualFold(host, "localhost") { // host names are case-insensitive
		return true
	}
	ip := net.ParseIP(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))
	return ip != nil && ip.IsLoopback()
}

// HostOf is the host of a Host header or listen address, without its port
// or the brackets of an IPv6 address.
func HostOf(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return strings.TrimSuffix(strings.TrimPrefix(hostport, "["), "]")
}
