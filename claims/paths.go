package claims

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
)

// Kinds of failure, tested with errors.Is; the command line maps each to
// its exit code.
var (
	ErrUsage    = errors.New("bad claim arguments") // a path, session or id that is refused
	ErrUnknown  = errors.New("unknown claim")
	ErrNotOwner = errors.New("claim of another session")
	ErrNotLive  = errors.New("claim not live")
	ErrHeld     = errors.New("paths held by another session")
)

// Error is a failure of one of the kinds above.
type Error struct {
	Kind  error
	Claim *Claim // the claim it is about, when there is one
	msg   string
}

func (e *Error) Error() string        { return e.msg }
func (e *Error) Is(target error) bool { return target == e.Kind }

func errorf(kind error, format string, args ...any) *Error {
	return &Error{Kind: kind, msg: fmt.Sprintf(format, args...)}
}

// HeldError says which of the paths asked for are held, and by which claims.
type HeldError struct{ Holds []Hold }

func (e *HeldError) Is(target error) bool { return target == ErrHeld }

// Error names the first hold, as "pkg/a.go is held by session "b" until T".
func (e *HeldError) Error() string {
	h := e.Holds[0]
	msg := fmt.Sprintf("%s is held by session %q until %s", h.Path, h.Claim.Session, h.Claim.ExpiresAt)
	if n := len(e.Holds) - 1; n > 0 {
		msg += fmt.Sprintf(" (and %d more)", n)
	}
	return msg
}

// Paths normalises the paths of a claim or a check: cleaned ("./a/" is
// "a"), de-duplicated and sorted. A path is refused (ErrUsage) when it is
// empty, absolute, holds ".." or a .devrites or .git element, or a control
// character. "." is the whole tree.
func Paths(paths []string) ([]string, error) {
	if len(paths) == 0 {
		return nil, errorf(ErrUsage, "no path given")
	}
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		if err := checkPath(p); err != nil {
			return nil, err
		}
		out = append(out, path.Clean(p))
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

func checkPath(p string) error {
	switch {
	case strings.TrimSpace(p) == "":
		return errorf(ErrUsage, "empty path")
	case strings.HasPrefix(p, "/"):
		return errorf(ErrUsage, "path %q is absolute; claim paths are relative to the project directory", p)
	case strings.ContainsFunc(p, func(r rune) bool { return r < ' ' || r == 0x7f }):
		return errorf(ErrUsage, "path %q holds a control character", p)
	}
	for _, el := range strings.Split(p, "/") {
		switch el {
		case "..":
			return errorf(ErrUsage, "path %q holds \"..\"; claim paths stay inside the project", p)
		case ".devrites", ".git":
			return errorf(ErrUsage, "path %q is inside %s, which is never claimed", p, el)
		}
	}
	return nil
}

// cleanStored is a path as read from the file, cleaned so that it
// compares with what Paths gives; one that Paths would refuse is kept as
// written (it matches nothing Paths gives but an equal string).
func cleanStored(p string) string {
	if checkPath(p) != nil {
		return p
	}
	return path.Clean(p)
}

// CheckSession refuses a session that is not 1 to 128 ASCII letters,
// digits and "-_.:/".
func CheckSession(s string) error {
	ok := len(s) >= 1 && len(s) <= 128
	for i := 0; ok && i < len(s); i++ {
		c := s[i]
		ok = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-_.:/", c) >= 0
	}
	if !ok {
		return errorf(ErrUsage, "session %q is not 1 to 128 letters, digits, '-', '_', '.', ':' or '/'", s)
	}
	return nil
}

// ClampTTL is ttl minutes within MinTTL…MaxTTL, and whether it moved.
func ClampTTL(ttl int) (int, bool) {
	c := min(max(ttl, MinTTL), MaxTTL)
	return c, c != ttl
}
