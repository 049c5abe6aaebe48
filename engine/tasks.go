package engine

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/devrites/devrites-engine/mdstore"
)

// sliceRef reads how an agent names a slice: "3", "03", "SLICE-003",
// "slice 3", "3 — payments". Like every regular expression of the engine,
// it is compiled when first used, not when the program starts.
var sliceRef = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?i:slice[- ]?)?0*([0-9]+)\b`) })

// findSlice looks the slice that ref names up in tasks.md; the first slice
// with that number wins.
func findSlice(slices []mdstore.Slice, ref string) (mdstore.Slice, bool) {
	m := sliceRef().FindStringSubmatch(strings.TrimSpace(ref))
	if m == nil {
		return mdstore.Slice{}, false
	}
	want, err := strconv.Atoi(m[1])
	if err != nil {
		return mdstore.Slice{}, false
	}
	for _, s := range slices {
		if s.Number == want {
			return s, true
		}
	}
	return mdstore.Slice{}, false
}

// tasks reads the slices of tasks.md: none when the file is absent, an
// error when it cannot be read (a link, a directory).
func (e *Engine) tasks() ([]mdstore.Slice, error) {
	b, err := e.WS.ReadFile(mdstore.TasksFile)
	if errors.Is(err, mdstore.ErrMissing) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return mdstore.ParseTasks(b), nil
}
