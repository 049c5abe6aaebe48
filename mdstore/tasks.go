package mdstore

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// Slice is one slice of tasks.md, which the engine only reads: a heading
// "## SLICE-003 — name" (or the older "## Slice 03: name") and its
// "Mode:", "Gate:", "SLA:" and "Checkpoint:" lines, bulleted or not.
type Slice struct {
	Number     int
	Name       string
	Mode       string
	Gate       string // lower case
	SLA        string
	Checkpoint string // "" for none
	Line       int    // 1-based line of the heading
}

// Label is how questions name the slice: "3 — payments".
func (s Slice) Label() string {
	if s.Name == "" {
		return strconv.Itoa(s.Number)
	}
	return strconv.Itoa(s.Number) + " — " + s.Name
}

var sliceHeading = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^##\s+(?:SLICE-([0-9]+)\s*(?:—|-|:)?\s*|Slice\s+([0-9]+)\s*(?::|—|-)?\s*)(.*)$`)
})

// ParseTasks returns the slices of tasks.md in file order. Headings and
// lines inside fenced code are text, as everywhere: an example slice in a
// code block is not a slice. A slice ends at the next heading.
func ParseTasks(b []byte) []Slice {
	d := splitDoc(b)
	fenced := d.fenced(nil)
	var out []Slice
	cur := -1
	for i, l := range d.lines {
		if fenced[i] {
			continue
		}
		t := l.text
		if strings.HasPrefix(t, "#") {
			cur = -1
			if h := sliceHeading().FindStringSubmatch(t); h != nil {
				n, err := strconv.Atoi(h[1] + h[2])
				if err == nil {
					out = append(out, Slice{Number: n, Name: strings.TrimSpace(h[3]), Line: i + 1})
					cur = len(out) - 1
				}
			}
			continue
		}
		if cur < 0 {
			continue
		}
		k, v, ok := strings.Cut(strings.TrimLeft(t, "-* "), ":")
		if !ok {
			continue
		}
		s, v := &out[cur], strings.TrimSpace(v)
		switch NormKey(k) {
		case "mode":
			s.Mode = v
		case "gate":
			s.Gate = strings.ToLower(v)
		case "sla":
			s.SLA = v
		case "checkpoint":
			if !strings.EqualFold(v, "none") {
				s.Checkpoint = v
			}
		}
	}
	return out
}
