package loopback

import "testing"

func TestHostOf(t *testing.T) {
	for hostport, want := range map[string]string{"127.0.0.1:7878": "127.0.0.1", "[::1]:7878": "::1", "[::1]": "::1",
		"localhost": "localhost", "evil.example:80": "evil.example", "": ""} {
		if got := HostOf(hostport); got != want {
			t.Errorf("HostOf(%q) = %q, want %q", hostport, got, want)
		}
	}
}
