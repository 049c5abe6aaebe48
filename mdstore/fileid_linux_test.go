package mdstore

import (
	"testing"
)

func TestKernelAtLeast(t *testing.T) {
	for release, want := range map[string]bool{
		"6.13.0": true, "6.18.44-fc-v857": true, "7.0": true, "6.12.9-arch1": false, "5.15.0-91-generic": false,
		"6.13-rc1": true, "6": false, "": false, "x.y": false,
	} {
		if got := kernelAtLeast(release, 6, 13); got != want {
			t.Errorf("kernelAtLeast(%q, 6, 13) = %v, want %v", release, got, want)
		}
	}
}
