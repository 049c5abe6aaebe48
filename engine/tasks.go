package engine

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/devrites/devrites-engine/mdstore"
)

// Slice is a slice of tasks.md, which the engine only reads.
type Slice struct {
	Number     int
	Name       string
	Mode       string
	Gate       string
	SLA        string
	Checkpoint string
}

// Label is how questions name the slice: "3 — payments".
func (s Slice) Label() string {
	if s.Name == "" {
		return strconv.Itoa(s.Number)
	}
	return strconv.Itoa(s.Number) + " — " + s.Name
}

var (
	sliceHeading = regexp.MustCompile(`^##\s+(?:SLICE-([0-9]+)\s*(?:—|-|:)?\s*|Slice\s+([0-9]+)\s*(?::|—|-)?\s*)(.*)$`)
	sliceRef     = regexp.MustCompile(`^(?i:slice[- ]?)?0*([0-9]+)\b`)
)

// findSlice looks the slice named by ref ("3", "03", "SLICE-003", "3 — payments")
// up in tasks.md.
func findSlice(tasks []byte, ref string) (Slice, bool) {
	m := sliceRef.FindStringSubmatch(strings.TrimSpace(ref))
	if m == nil {
		return Slice{}, false
	}
	want, _ := strconv.Atoi(m[1])
	var cur *Slice
	for _, l := range strings.Split(string(tasks), "\n") {
		l = strings.TrimRight(l, "\r")
		if strings.HasPrefix(l, "#") {
			if cur != nil {
				return *cur, true
			}
			if h := sliceHeading.FindStringSubmatch(l); h != nil {
				num := h[1] + h[2]
				if n, _ := strconv.Atoi(num); n == want {
					cur = &Slice{Number: n, Name: strings.TrimSpace(h[3])}
				}
			}
			continue
		}
		if cur == nil {
			continue
		}
		k, v, ok := strings.Cut(strings.TrimLeft(l, "-* "), ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		switch mdstore.NormKey(k) {
		case "mode":
			cur.Mode = v
		case "gate":
			cur.Gate = strings.ToLower(v)
		case "sla":
			cur.SLA = v
		case "checkpoint":
			if !strings.EqualFold(v, "none") {
				cur.Checkpoint = v
			}
		}
	}
	if cur != nil {
		return *cur, true
	}
	return Slice{}, false
}
