package mdstore

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Ignore lists names in dir/.gitignore, under a comment line, unless a
// line there names them already (as "name" or "/name"): files that belong
// to one machine stay out of git. It only appends, so a person's own lines
// stay as they are, and it never lists a name twice.
func Ignore(dir, comment string, names ...string) error {
	path := filepath.Join(dir, ".gitignore")
	b, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	listed := map[string]bool{}
	for _, l := range strings.Split(string(b), "\n") {
		l = strings.TrimSpace(l)
		listed[strings.TrimPrefix(l, "/")] = true
	}
	var add []string
	for _, n := range names {
		if !listed[n] {
			add = append(add, n)
		}
	}
	if len(add) == 0 {
		return nil
	}
	text := "# " + comment + "\n" + strings.Join(add, "\n") + "\n"
	if len(b) > 0 && b[len(b)-1] != '\n' {
		text = "\n" + text
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteString(text)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
