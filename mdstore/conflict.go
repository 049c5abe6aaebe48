package mdstore

import (
	"strings"
	"unsafe"
)

// ConflictLine returns the line (from 1, a BOM not counted) of the first
// conflict marker that git leaves in a file it could not merge, or 0 when
// there is none. A marker is a line that starts "<<<<<<< " or ">>>>>>> "
// (or is that run alone), or is "=======" alone, outside fenced code, as the
// grammar of every workspace file finds it (a field's value is data and
// cannot open a fence; being indented, it cannot be a marker either).
func ConflictLine(b []byte) int {
	s := unsafe.String(unsafe.SliceData(b), len(b))
	if !strings.Contains(s, "<<<<<<<") && !strings.Contains(s, "=======") && !strings.Contains(s, ">>>>>>>") {
		return 0 // the common case: no line is split
	}
	q := &Questions{d: splitString(s), ledger: true}
	q.index()
	for i, l := range q.d.lines {
		if (q.fenced == nil || !q.fenced[i]) && isMarker(l.text) {
			return i + 1
		}
	}
	return 0
}

func isMarker(t string) bool {
	if t == "=======" {
		return true
	}
	for _, m := range [...]string{"<<<<<<<", ">>>>>>>"} {
		if rest, ok := strings.CutPrefix(t, m); ok && (rest == "" || rest[0] == ' ') {
			return true
		}
	}
	return false
}
