package app

import (
	"runtime/debug"
	"testing"
)

func TestFormatVersion(t *testing.T) {
	const rev = "0123456789abcdef0123456789abcdef01234567"
	tests := []struct {
		name              string
		stamped, recorded buildRecord
		want              string
	}{
		{"release stamp", buildRecord{"v1.2.3", rev, "false"}, buildRecord{}, "v1.2.3 (commit 0123456789ab)"},
		{"stamp of a modified tree", buildRecord{"v1.2.3", rev, "true"}, buildRecord{}, "v1.2.3 (commit 0123456789ab, modified)"},
		{"go install at a version", buildRecord{}, buildRecord{version: "v1.2.3"}, "v1.2.3"},
		{"checkout with vcs info", buildRecord{}, buildRecord{commit: rev, modified: "true"}, "devel (commit 0123456789ab, modified)"},
		{"checkout, clean", buildRecord{}, buildRecord{commit: rev, modified: "false"}, "devel (commit 0123456789ab)"},
		{"buildvcs off, nothing stamped", buildRecord{}, buildRecord{}, "devel (commit unknown: built without version control information)"},
		{"stamp wins over build info", buildRecord{"v2.0.0", rev, "false"}, buildRecord{"v1.0.0", "ffffffffffff", "true"}, "v2.0.0 (commit 0123456789ab)"},
		{"stamped version only, buildvcs off", buildRecord{version: "v2.0.0"}, buildRecord{}, "v2.0.0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := formatVersion(tt.stamped, tt.recorded); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestReadBuildInfo(t *testing.T) {
	bi := &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.modified", Value: "true"}, {Key: "GOOS", Value: "linux"},
	}}
	got := readBuildInfo(bi)
	if want := (buildRecord{"", "abc", "true"}); got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

// TestReadBuildInfoPseudoVersion: a build from a clean checkout, which Go
// names by a pseudo-version of the commit, is devel; a tag is kept.
func TestReadBuildInfoPseudoVersion(t *testing.T) {
	const commit = "6702b038f31a5c1e2d3f4a5b6c7d8e9f00112233"
	for version, want := range map[string]string{
		"v0.0.0-20261202003300-6702b038f31a":       "",
		"v0.0.0-20261202003300-6702b038f31a+dirty": "",
		"v1.2.4-0.20261202003300-6702b038f31a":     "",
		"v1.2.3":                                   "v1.2.3",
	} {
		bi := &debug.BuildInfo{Main: debug.Module{Version: version}, Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: commit}}}
		if got := readBuildInfo(bi).version; got != want {
			t.Errorf("%s: version %q, want %q", version, got, want)
		}
	}
}
