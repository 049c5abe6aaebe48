package app

import (
	"runtime/debug"
	"strings"
)

// Stamped by scripts/release.sh through -ldflags "-X …": a release build has
// no version control information (it is built with -buildvcs=false so that
// its bytes depend only on the source), and a build from a checkout with
// GOFLAGS=-buildvcs=false has none either. A stamped value wins over what the
// build recorded.
var (
	stampedVersion  string // "v1.2.3"
	stampedCommit   string // the full commit id
	stampedModified string // "true" when the tree had uncommitted changes
)

// version is what --version prints after "devrites-engine version ": the
// version, then the commit and whether the tree was modified when they are
// known, e.g. "v1.2.3 (commit 0123456789ab)" or
// "devel (commit 0123456789ab, modified)".
func version() string {
	var recorded buildRecord
	if bi, ok := debug.ReadBuildInfo(); ok {
		recorded = readBuildInfo(bi)
	}
	return formatVersion(buildRecord{stampedVersion, stampedCommit, stampedModified}, recorded)
}

// buildRecord is what one source (the stamp or the build info) says.
type buildRecord struct{ version, commit, modified string }

func readBuildInfo(bi *debug.BuildInfo) buildRecord {
	r := buildRecord{version: bi.Main.Version}
	if r.version == "(devel)" {
		r.version = ""
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			r.commit = s.Value
		case "vcs.modified":
			r.modified = s.Value
		}
	}
	// Go names a build from a checkout by a pseudo-version of its commit
	// (v0.0.0-20261202003300-6702b038f31a, "+dirty" when modified): not a
	// release, so it reads as devel with the commit. A tag on the commit
	// itself is kept (v1.2.3).
	if len(r.commit) >= 12 && strings.Contains(r.version, "-"+r.commit[:12]) {
		r.version = ""
	}
	return r
}

// formatVersion takes each part from the stamp, else from the build info.
func formatVersion(stamped, recorded buildRecord) string {
	pick := func(a, b string) string {
		if a != "" {
			return a
		}
		return b
	}
	v := pick(stamped.version, recorded.version)
	commit := pick(stamped.commit, recorded.commit)
	modified := pick(stamped.modified, recorded.modified) == "true"
	if v == "" {
		v = "devel"
	}
	if commit == "" {
		if v == "devel" {
			return v + " (commit unknown: built without version control information)"
		}
		return v
	}
	if len(commit) > 12 {
		commit = commit[:12]
	}
	var b strings.Builder
	b.WriteString(v + " (commit " + commit)
	if modified {
		b.WriteString(", modified")
	}
	b.WriteString(")")
	return b.String()
}
